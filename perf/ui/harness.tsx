// The page `npm run bench` drives in Chromium to measure the renderer: the app's real components and store, fed
// as the core's events would feed them. Built by scripts/bench.mjs into a temporary folder; never part of the app.
// The building blocks first, as in the app: each component's own sheet comes after them and wins a tie.
import '../../src/renderer/src/styles.css';
import type { ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { createRoot, type Root } from 'react-dom/client';
import * as echarts from 'echarts/core';
import { ServelabError, type CallName, type EventName, type EventPayload } from '../../src/shared/contract';
import { PROJECT_SCHEMA_VERSION, type ProjectFile, type Trial } from '../../src/shared/study/study';
import type { ApiClient } from '../../src/renderer/src/api/client';
import { applyTheme } from '../../src/renderer/src/App';
import { curveOption } from '../../src/renderer/src/features/compare/charts';
import type { ConcurrencyCurve } from '../../src/renderer/src/features/compare/compare-model';
import { EChart, type ChartTheme } from '../../src/renderer/src/components/EChart';
import { ResultsTab } from '../../src/renderer/src/features/studies/ResultsTab';
import { stripAnsi } from '../../src/renderer/src/logs/ansi';
import { LogView } from '../../src/renderer/src/logs/LogView';
import { createAppStore, StoreProvider, syncStoreWithCore, useAppStore, type AppStore } from '../../src/renderer/src/store';

/** Frame times in ms: rAF deltas and the long tasks the browser reported meanwhile. */
export interface FrameStats {
  frames: number;
  p50: number;
  p95: number;
  max: number;
  /** Frames longer than one 60 Hz frame. */
  slow: number;
  longTasks: number;
  longTaskMs: number;
}

export interface IngestOptions {
  /** Per pane. */
  linesPerSecond: number;
  seconds: number;
  intervalMs: number;
  /** Server log panes streaming at once. */
  panes: number;
}

export interface IngestResult {
  panes: number;
  /** Over all panes. */
  linesFed: number;
  linesHeld: number;
  droppedByBuffer: number;
  lostLines: number;
  events: number;
  seconds: number;
  lastLineFed: string;
  /** Per pane. */
  lastLinesShown: string[];
  rowsInDom: number;
  frames: FrameStats;
}

export interface TableResult {
  trials: number;
  commitMs: number;
  firstFrameMs: number;
  rowsInDom: number;
  scrolledPx: number;
  frames: FrameStats;
}

export interface ChartResult {
  points: number;
  commitMs: number;
  /** The first frame after the commit: echarts may not have drawn yet. */
  firstFrameMs: number;
  /** The first frame with the chart painted: what the reader waits for. */
  drawnMs: number;
}

declare global {
  interface Window {
    servelabBench: {
      logIngest(options: IngestOptions): Promise<IngestResult>;
      resultsTable(options: { trials: number; scrollFrames: number }): Promise<TableResult>;
      chart(options: { points: number }): Promise<ChartResult>;
    };
  }
}

/** An ApiClient whose events the bench emits; calls answer as an empty core would. */
function benchApi(): ApiClient & { emit<N extends EventName>(name: N, payload: EventPayload<N>): void } {
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const empty: Partial<Record<CallName, unknown>> = { 'hosts:list': [], 'hosts:states': [], 'prompts:pending': [] };
  return {
    kind: 'websocket',
    async call(name) {
      if (name in empty) return empty[name] as never;
      throw new ServelabError('UNKNOWN_CALL', `the bench page has no ${name}`);
    },
    on(name, listener) {
      if (!listeners.has(name)) listeners.set(name, new Set());
      listeners.get(name)!.add(listener as (payload: never) => void);
      return () => listeners.get(name)?.delete(listener as (payload: never) => void);
    },
    status: () => 'open',
    closedReason: () => null,
    onStatus: () => () => {},
    emit(name, payload) {
      for (const listener of listeners.get(name) ?? []) (listener as (p: typeof payload) => void)(payload);
    },
  };
}

const nextFrame = () => new Promise<number>((resolve) => requestAnimationFrame(resolve));

/**
 * Lets the page go idle before a measurement starts (twice an idle callback, a second at most), so the garbage of the
 * one before it (300,000 log lines) and of building its input is collected in idle time, not inside the figure.
 */
async function settle(): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => requestIdleCallback(() => resolve(), { timeout: 1000 }));
  await nextFrame();
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Records rAF deltas and long tasks until `stop()`. */
function recordFrames(): { stop(): FrameStats } {
  const deltas: number[] = [];
  let last: number | null = null;
  let running = true;
  const loop = (now: number) => {
    if (!running) return;
    if (last !== null) deltas.push(now - last);
    last = now;
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  const longTasks: number[] = [];
  let observer: PerformanceObserver | null = null;
  try {
    observer = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) longTasks.push(entry.duration);
    });
    observer.observe({ type: 'longtask', buffered: false });
  } catch {
    observer = null;
  }
  return {
    stop() {
      running = false;
      observer?.disconnect();
      const sorted = [...deltas].sort((a, b) => a - b);
      return {
        frames: deltas.length,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        max: sorted.at(-1) ?? 0,
        // Frames that took longer than one 60 Hz frame (vsync jitter allowed): each is at least one frame missed.
        slow: deltas.filter((d) => d > 18).length,
        longTasks: longTasks.length,
        longTaskMs: longTasks.reduce((a, b) => a + b, 0),
      };
    },
  };
}

let root: Root | null = null;
function mount(node: ReactNode): void {
  root?.unmount();
  const container = document.getElementById('root')!;
  root = createRoot(container);
  flushSync(() => root!.render(node));
}

// ---------- 1. a server log streaming 10,000 lines/s ----------

const LEVELS = ['\x1b[32mINFO\x1b[0m', '\x1b[32mINFO\x1b[0m', '\x1b[32mINFO\x1b[0m', '\x1b[33mWARNING\x1b[0m', '\x1b[1;31mERROR\x1b[0m'];

/** One engine-like log line; every fourth is plain, the others carry vLLM's and uvicorn's colours. */
function logLine(n: number): string {
  const level = LEVELS[n % LEVELS.length]!;
  switch (n % 4) {
    case 0:
      return `${level} 12-01 20:01:16 [loggers.py:123] Engine 000: Avg prompt throughput: ${(n % 9000) / 3} tokens/s, Avg generation throughput: 812.4 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU KV cache usage: 41.2%, Prefix cache hit rate: 12.0% #${n}`;
    case 1:
      return `${level}:     127.0.0.1:${40000 + (n % 20000)} - "POST /v1/chat/completions HTTP/1.1" 200 OK #${n}`;
    case 2:
      return `(APIServer pid=4242) ${level} 12-01 20:01:16 [scheduler.py:1560] Sequence group ${n} is preempted by PreemptionMode.RECOMPUTE \x1b[38;5;244mmode\x1b[0m #${n}`;
    default:
      return `[rank0]: step ${n}: decode batch 64, prefill 0, cuda graph hit #${n}`;
  }
}

function ServerLogPane({ serverId }: { serverId: string }) {
  const run = useAppStore((s) => s.servers[serverId]);
  return run ? <LogView buffer={run.log} title="Server log" label="Server log lines" /> : <p>waiting</p>;
}

async function logIngest({ linesPerSecond, seconds, intervalMs, panes }: IngestOptions): Promise<IngestResult> {
  const api = benchApi();
  const store: AppStore = createAppStore(api, { storage: null, prefersDark: false });
  syncStoreWithCore(api, store);
  const serverIds = Array.from({ length: panes }, (_, i) => `bench-server-${i}`);
  mount(
    <StoreProvider store={store}>
      <main style={{ padding: 16, display: 'grid', gap: 12 }}>
        {serverIds.map((id) => (
          <ServerLogPane key={id} serverId={id} />
        ))}
      </main>
    </StoreProvider>,
  );
  const perChunk = Math.round((linesPerSecond * intervalMs) / 1000);
  const chunks = Math.round((seconds * 1000) / intervalMs);
  const total = perChunk * chunks;
  let carry = '';
  let next = 0;
  let events = 0;
  /** 100 lines as one event, the last one cut short and finished by the next event, as streams arrive. */
  const emitChunk = (index: number) => {
    let text = carry;
    for (let i = 0; i < perChunk; i++) text += `${logLine(index * perChunk + i)}\n`;
    const cut = index === chunks - 1 ? text.length : text.length - 9;
    carry = text.slice(cut);
    for (const serverId of serverIds) api.emit('servers:log', { serverId, text: text.slice(0, cut) });
    events += serverIds.length;
  };
  await settle();
  const frames = recordFrames();
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(chunks, Math.floor((performance.now() - started) / intervalMs) + 1);
      while (next < due) emitChunk(next++);
      if (next >= chunks) return resolve();
      setTimeout(tick, Math.max(0, started + next * intervalMs - performance.now()));
    };
    tick();
  });
  const elapsed = (performance.now() - started) / 1000;
  await nextFrame();
  await nextFrame();
  const stats = frames.stop();
  const buffers = serverIds.map((id) => store.getState().servers[id]!.log);
  const held = buffers.reduce((n, b) => n + b.length, 0);
  const logs = [...document.querySelectorAll<HTMLElement>('[role="log"]')];
  return {
    panes,
    linesFed: total * panes,
    linesHeld: held,
    droppedByBuffer: buffers.reduce((n, b) => n + b.dropped, 0),
    lostLines: total * panes - held,
    events,
    seconds: elapsed,
    lastLineFed: stripAnsi(logLine(total - 1)),
    lastLinesShown: logs.map((log) => [...log.querySelectorAll('.log-line')].at(-1)?.textContent ?? ''),
    rowsInDom: document.querySelectorAll('[role="log"] .log-line').length,
    frames: stats,
  };
}

// ---------- 2. the results table of a study with 10,000 trials ----------

function benchProject(count: number): ProjectFile {
  const stages = Array.from({ length: 10 }, (_, s) => ({ id: `stage-${s}`, label: `Stage ${s}`, candidates: [{ id: 'c', label: 'candidate', config: {} }] }));
  const trials: Trial[] = Array.from({ length: count }, (_, i): Trial => {
    const stageId = i < 100 ? 'engine' : `stage-${i % 10}`;
    const failed = i % 37 === 0;
    return {
      id: `${stageId}/cand-${i}/sharegpt-c4/r1`,
      stageId,
      candidateId: `cand-${i}`,
      label: `--max-num-seqs ${32 + (i % 256)} · candidate ${i}`,
      engine: (['vllm', 'sglang', 'trtllm'] as const)[i % 3]!,
      version: '0.11.0',
      mode: 'env',
      config: { model: 'Qwen/Qwen3-8B', extraArgs: [], env: {} },
      serverKey: `key-${i}`,
      command: `vllm serve Qwen/Qwen3-8B --max-num-seqs ${32 + (i % 256)}`,
      workloadId: 'sharegpt-c4',
      repeat: 1,
      status: failed ? 'failed' : 'done',
      ...(failed
        ? { error: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB' }
        : {
            result: {
              id: `res-${i}`,
              kind: 'measured',
              status: 'ok',
              addedAt: '2026-01-01T00:00:00.000Z',
              title: `trial ${i}`,
              result: { schemaVersion: 1, metrics: { mean_ttft_ms: 40 + (i % 97), mean_tpot_ms: 7 + (i % 13) / 10, total_token_throughput: 900 + (i % 311), mean_latency_s: 1 + (i % 7) / 10 }, extra: {} },
            },
          }),
    } as Trial;
  });
  return {
    schemaVersion: PROJECT_SCHEMA_VERSION,
    study: {
      name: 'Bench: 10,000 trials',
      model: { id: 'Qwen/Qwen3-8B', variants: [] },
      hosts: [{ hostId: 'demo-lab' }],
      goal: { kind: 'throughput', slos: [], marginPct: 1, repeatBudget: 4 },
      engines: [{ engine: 'vllm', version: '0.11.0', mode: 'env', config: {} }],
      stages,
      workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4, backend: 'openai-chat' }, generalisation: [] },
      strategy: 'greedy',
      repeats: 1,
      gpusPerTrial: 1,
      clientVersion: '0.11.0',
      readinessTimeoutSeconds: 1800,
    },
    state: { status: 'done', trials, decisions: [] },
  } as ProjectFile;
}

async function resultsTable({ trials, scrollFrames }: { trials: number; scrollFrames: number }): Promise<TableResult> {
  const project = benchProject(trials);
  root?.unmount();
  root = null;
  await settle();
  const started = performance.now();
  mount(<ResultsTab project={project} />);
  const committed = performance.now();
  await nextFrame();
  const firstFrame = performance.now();
  const scroller = document.querySelector<HTMLElement>('.trials-scroll')!;
  const step = Math.ceil((scroller.scrollHeight - scroller.clientHeight) / scrollFrames);
  const frames = recordFrames();
  for (let i = 0; i < scrollFrames; i++) {
    scroller.scrollTop += step;
    await nextFrame();
  }
  const stats = frames.stop();
  return {
    trials,
    commitMs: committed - started,
    firstFrameMs: firstFrame - started,
    rowsInDom: document.querySelectorAll('[data-trial-id]').length,
    scrolledPx: scroller.scrollTop,
    frames: stats,
  };
}

// ---------- 3. a 2,000-point latency–throughput chart ----------

async function chart({ points }: { points: number }): Promise<ChartResult> {
  const perCurve = 200;
  const curves: ConcurrencyCurve[] = Array.from({ length: Math.ceil(points / perCurve) }, (_, c) => ({
    serverKey: `key-${c}`,
    label: `configuration ${c}`,
    points: Array.from({ length: perCurve }, (_, i) => ({ concurrency: i + 1, workloadId: `w-c${i + 1}`, throughput: 500 + i * 12 + c * 30, latency: 20 + i * 0.8 + c * 3 + (i % 7) })),
  }));
  const option = (theme: ChartTheme) =>
    curveOption(
      theme,
      { title: 'Mean TTFT vs throughput across concurrency', xName: 'Throughput (tok/s)', yName: 'Mean TTFT (ms)' },
      curves,
      (n) => `c=${n}`,
      (curve, i) => [curve.label, `concurrency ${curve.points[i]!.concurrency}`],
    );
  root?.unmount();
  root = null;
  await settle();
  const started = performance.now();
  mount(
    <main style={{ padding: 16, width: 960 }}>
      <EChart title="Mean TTFT vs throughput across concurrency" option={option} height={420} />
    </main>,
  );
  const committed = performance.now();
  await nextFrame();
  const firstFrame = performance.now();
  // EChart loads echarts and draws once its box is in view: wait for the frame in which the chart is painted (echarts
  // paints in its own animation frame, requested when the chart is made, so the frame after the one that found it).
  const box = document.querySelector<HTMLElement>('.compare-chart-canvas');
  if (!box) throw new Error('the chart has no box');
  for (let i = 0; !echarts.getInstanceByDom(box); i++) {
    if (i > 600) throw new Error('the chart was not drawn');
    await nextFrame();
  }
  await nextFrame();
  const drawn = performance.now();
  if (!box.querySelector('canvas')) throw new Error('the chart has no canvas');
  return { points: curves.reduce((n, c) => n + c.points.length, 0), commitMs: committed - started, firstFrameMs: firstFrame - started, drawnMs: drawn - started };
}

applyTheme('light');
window.servelabBench = { logIngest, resultsTable, chart };
