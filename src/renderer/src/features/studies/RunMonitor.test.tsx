import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EChartsCoreOption } from 'echarts/core';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type ProjectFile, type StudyState, type Trial } from '../../../../shared/study/study';
import type { GpuMemorySample } from '../../../../shared/study/gpu-memory';
import { syncStoreWithCore, useAppStore } from '../../store';
import { createFakeApi, type FakeApi } from '../../testing/fake-api';
import { renderWithStore } from '../../testing/render';
import type { ChartTheme } from '../../components/EChart';
import { RunMonitor } from './RunMonitor';
import { setLocale } from '../../i18n';
import { makeTrial } from '../../testing/fixtures';

// jsdom has no canvas: the chart is a stand-in that keeps the option it was given, which is what is checked.
const charts = vi.hoisted(() => new Map<string, (theme: ChartTheme) => EChartsCoreOption>());
vi.mock('../../components/EChart', () => ({
  EChart: ({ title, option }: { title: string; option: (theme: ChartTheme) => EChartsCoreOption }) => {
    charts.set(title, option);
    return <figure aria-label={title} />;
  },
}));

afterEach(() => {
  cleanup();
  charts.clear();
});

const PATH = '/data/studies/monitor.servelab';
const THEME: ChartTheme = { mode: 'light', text: '#111', muted: '#555', border: '#ddd', background: '#fff', better: '#070', worse: '#a00', palette: ['#00f'] };
const STUDY = StudyDefinitionSchema.parse({
  name: 'Monitor',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: 'demo-lab' }],
  goal: { kind: 'latency' },
  engines: [{ engine: 'vllm', version: '0.11.0' }, { engine: 'sglang', version: '0.5.3.post3' }],
  workloads: { primary: { id: 'c4', dataset: { kind: 'random', inputLen: 128, outputLen: 16 }, numPrompts: 10, maxConcurrency: 4 } },
});
const T0 = Date.parse('2026-02-01T10:00:00.000Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

const trial = (over: Partial<Trial> & Pick<Trial, 'id' | 'label'>): Trial => makeTrial({ serverKey: `key-${over.id}`, workloadId: 'c4', status: 'planned', ...over });

const VLLM = trial({ id: 'engine/vllm/c4/r1', label: 'vLLM 0.11.0', status: 'done', hostId: 'demo-lab', gpus: ['0'], serverId: 'srv-a', startedAt: at(0), finishedAt: at(40) });
const SGLANG = trial({ id: 'engine/sglang/c4/r1', label: 'SGLang 0.5.3.post3', engine: 'sglang', status: 'running', hostId: 'demo-lab', gpus: ['0'], serverId: 'srv-b', startedAt: at(40) });

function file(state: Partial<StudyState>): ProjectFile {
  return { schemaVersion: PROJECT_SCHEMA_VERSION, study: STUDY, state: { status: 'running', startedAt: at(0), trials: [VLLM, SGLANG], decisions: [], ...state } };
}

function api(project: ProjectFile, gpu: GpuMemorySample[] = []): FakeApi {
  return createFakeApi({
    'studies:open': () => project,
    'studies:gpuMemory': () => gpu,
    'studies:trialLogs': ({ trialId }) =>
      trialId === VLLM.id ? { server: 'INFO vllm loading\nINFO Application startup complete.\n', bench: '============ Serving Benchmark Result ============\nSuccessful requests: 10\n', truncated: true } : { server: null, bench: null, truncated: false },
  });
}

/** The open study's monitor, as the Studies page shows it; for a live study, once the core has said it runs. */
function Monitor({ live }: { live: boolean }) {
  const study = useAppStore((s) => s.openStudy);
  return study && (!live || study.live) ? <RunMonitor study={study} /> : null;
}

/** The monitor of the project opened from the fake core, with the store following its events. */
async function renderMonitor(fake: FakeApi, { live }: { live: boolean }) {
  const rendered = renderWithStore(<Monitor live={live} />, fake);
  await act(async () => {
    syncStoreWithCore(fake, rendered.store);
    await rendered.store.getState().openStudyProject(PATH);
    // A run under way in the core says so with its next state.
    if (live) fake.emit('studies:state', { path: PATH, state: rendered.store.getState().openStudy!.project.state });
  });
  return rendered;
}

const serverPane = () => screen.getByRole('log', { name: 'Server log lines' });
const benchPane = () => screen.getByRole('log', { name: 'Benchmark output lines' });
/** The lines a pane draws, one per row. */
const linesIn = (pane: HTMLElement) => [...pane.querySelectorAll('.log-line')].map((row) => row.textContent).join('\n');

describe('RunMonitor trial logs', () => {
  it('follows the newest running trial and puts tagged lines in its panes, untagged ones in the study log', async () => {
    const fake = api(file({}));
    await renderMonitor(fake, { live: true });
    expect(screen.getByRole('heading', { name: 'Logs of SGLang 0.5.3.post3' })).toBeTruthy();
    expect(screen.getByText('Following the newest running trial.')).toBeTruthy();
    act(() => {
      fake.emit('studies:log', { path: PATH, text: 'sglang: Uvicorn running\n', source: 'server', serverId: 'srv-b' });
      fake.emit('studies:log', { path: PATH, text: 'vllm: stale line\n', source: 'server', serverId: 'srv-a' });
      fake.emit('studies:log', { path: PATH, text: 'Starting main benchmark run...\n', source: 'bench', serverId: 'srv-b', trialId: SGLANG.id });
      fake.emit('studies:log', { path: PATH, text: 'Installing vllm 0.11.0\n', source: 'study' });
      fake.emit('studies:log', { path: PATH, text: 'Prefetching Qwen/Qwen3-8B\n' });
    });
    expect(serverPane().textContent).toBe('sglang: Uvicorn running');
    expect(benchPane().textContent).toBe('Starting main benchmark run...');
    const studyLog = screen.getByRole('log', { name: 'Study log lines' }).textContent;
    expect(studyLog).toContain('Installing vllm 0.11.0');
    expect(studyLog).toContain('Prefetching Qwen/Qwen3-8B');
    expect(studyLog).not.toContain('Uvicorn');
    expect(studyLog).not.toContain('benchmark run');
    // A running trial streams: nothing is read from the project for it.
    expect(fake.calls.some((c) => c.name === 'studies:trialLogs')).toBe(false);
  });

  it('switches the panes to a trial chosen in the list, loads a finished one from the project, and follows again on request', async () => {
    const fake = api(file({}));
    await renderMonitor(fake, { live: true });
    act(() => {
      fake.emit('studies:log', { path: PATH, text: 'sglang line\n', source: 'server', serverId: 'srv-b' });
    });
    const row = screen.getByRole('button', { name: /^Done\s*vLLM 0\.11\.0/, pressed: false });
    await act(async () => {
      fireEvent.click(row);
    });
    expect(screen.getByRole('button', { name: /^Done\s*vLLM 0\.11\.0/ }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('heading', { name: 'Logs of vLLM 0.11.0' })).toBeTruthy();
    expect(fake.calls.filter((c) => c.name === 'studies:trialLogs').map((c) => c.input)).toEqual([{ path: PATH, trialId: VLLM.id }]);
    expect(linesIn(serverPane())).toBe('INFO vllm loading\nINFO Application startup complete.');
    expect(benchPane().textContent).toContain('Successful requests: 10');
    expect(screen.getByText('These logs are long: the last part of each is shown.')).toBeTruthy();

    // Lines of the other server keep arriving without showing here; selecting again does not read the files again.
    act(() => {
      fake.emit('studies:log', { path: PATH, text: 'sglang second line\n', source: 'server', serverId: 'srv-b' });
    });
    expect(serverPane().textContent).not.toContain('sglang');

    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Follow the running trial' }));
    });
    expect(screen.getByRole('heading', { name: 'Logs of SGLang 0.5.3.post3' })).toBeTruthy();
    expect(linesIn(serverPane())).toBe('sglang line\nsglang second line');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: /^Done\s*vLLM 0\.11\.0/, pressed: false }));
    });
    expect(fake.calls.filter((c) => c.name === 'studies:trialLogs')).toHaveLength(1);
  });

  it('selects a trial from its bar on the timeline, a focusable button', async () => {
    const fake = api(file({}));
    await renderMonitor(fake, { live: true });
    const timeline = screen.getByRole('figure', { name: 'Trials over time, one row per GPU' });
    const bar = within(timeline).getByRole('button', { name: 'Show the logs of vLLM 0.11.0' });
    expect(bar.getAttribute('aria-pressed')).toBe('false');
    expect(within(timeline).getByRole('button', { name: 'Show the logs of SGLang 0.5.3.post3' }).getAttribute('aria-pressed')).toBe('true');
    // A native button in the tab order: Enter and Space activate it like a click.
    expect(bar.tagName).toBe('BUTTON');
    bar.focus();
    expect(document.activeElement).toBe(bar);
    await act(async () => {
      fireEvent.click(bar);
    });
    expect(bar.getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByRole('heading', { name: 'Logs of vLLM 0.11.0' })).toBeTruthy();
    expect(benchPane().textContent).toContain('Serving Benchmark Result');
  });

  it('draws one row per GPU and each server’s bar across the rows of all its GPUs, labelled with its layout', async () => {
    const tp = (n: number) => ({ model: 'Qwen/Qwen3-8B', extraArgs: [], env: {}, tensorParallelSize: n });
    const big = trial({ id: 'grid/tp8/c4/r1', label: 'TP8', status: 'done', config: tp(8), gpuCount: 8, hostId: 'demo-lab', gpus: ['0', '1', '2', '3', '4', '5', '6', '7'], serverId: 's8', startedAt: at(0), finishedAt: at(30) });
    const four = trial({ id: 'grid/tp4/c4/r1', label: 'TP4', status: 'running', config: tp(4), gpuCount: 4, hostId: 'demo-lab', gpus: ['0', '1', '2', '3'], serverId: 's4', startedAt: at(31) });
    const two = trial({ id: 'grid/tp2/c4/r1', label: 'TP2', status: 'done', config: tp(2), gpuCount: 2, hostId: 'demo-lab', gpus: ['4', '5'], serverId: 's2', startedAt: at(31), finishedAt: at(50) });
    await renderMonitor(api(file({ trials: [big, four, two] })), { live: true });
    const timeline = screen.getByRole('figure', { name: 'Trials over time, one row per GPU' });
    const lanes = within(within(timeline).getByRole('list', { name: 'GPUs' })).getAllByRole('listitem');
    expect(lanes.map((lane) => lane.textContent)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7'].map((g) => `demo-lab · GPU ${g}`));
    // The GPU is its own part of the row's name, kept whole when a long host name is cut short; the full name is the title.
    expect(lanes.map((lane) => lane.querySelector('.study-timeline-gpu')?.textContent)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7'].map((g) => ` · GPU ${g}`));
    expect(lanes[7]!.title).toBe('demo-lab · GPU 7');
    const bar = (name: string) => within(timeline).getByRole('listitem', { name });
    // Eight rows: the TP8 bar covers them all, TP4 the top half, TP2 the two rows of GPUs 4 and 5.
    expect(bar('TP8: Done · TP8 · 8 GPUs').style).toMatchObject({ top: '0%', height: '100%' });
    expect(bar('TP4: Running · TP4 · 4 GPUs').style).toMatchObject({ top: '0%', height: '50%' });
    expect(bar('TP2: Done · TP2 · 2 GPUs').style).toMatchObject({ top: '50%', height: '25%' });
    expect(bar('TP2: Done · TP2 · 2 GPUs').textContent).toBe('TP2 · 2 GPUs');
    expect(within(timeline).getByRole('button', { name: 'Show the logs of TP4' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('shows the logs of the last trial of a finished study opened from disk', async () => {
    const fake = api(file({ status: 'done', trials: [VLLM, { ...SGLANG, status: 'done', startedAt: at(-10), finishedAt: at(30) }] }));
    await renderMonitor(fake, { live: false });
    expect(screen.getByRole('heading', { name: 'Logs of vLLM 0.11.0' })).toBeTruthy();
    expect(serverPane().textContent).toContain('Application startup complete.');
  });
});

describe('RunMonitor stages', () => {
  it('counts a trial refused before launch as settled, said apart, so a finished stage does not read as unfinished', async () => {
    const refused = trial({ id: 'engine/trtllm/c4/r1', label: 'TensorRT-LLM 1.2.0rc1', engine: 'trtllm', status: 'rejected', rejectReason: 'needs sm ≥ 8.9 for block-scaled FP8' });
    const fake = api(file({ status: 'done', trials: [VLLM, { ...SGLANG, status: 'done', finishedAt: at(80) }, refused] }));
    await renderMonitor(fake, { live: false });
    const stage = screen.getByRole('region', { name: 'Engine selection' });
    expect(within(stage).getByText('2 of 2 finished, 1 refused')).toBeTruthy();
  });
});

describe('RunMonitor GPU memory', () => {
  it('charts the samples of earlier runs and those streaming in, one chart per host', async () => {
    const stored = [{ hostId: 'demo-lab', at: at(0), gpus: [{ index: 0, usedMiB: 0, totalMiB: 81559 }] }];
    const fake = api(file({}), stored);
    await renderMonitor(fake, { live: true });
    const title = 'GPU memory · demo-lab · GPU 0';
    expect(screen.getByRole('figure', { name: title })).toBeTruthy();
    act(() => {
      fake.emit('studies:gpu', { path: PATH, hostId: 'demo-lab', at: at(2), gpus: [{ index: 0, usedMiB: 73864, totalMiB: 81559 }] });
      fake.emit('studies:gpu', { path: '/other.servelab', hostId: 'demo-lab', at: at(3), gpus: [{ index: 0, usedMiB: 1, totalMiB: 81559 }] });
    });
    const option = charts.get(title)!(THEME) as { series: { name: string; data: [number, number][] }[]; yAxis: { max: number } };
    expect(option.series.map((s) => s.name)).toEqual(['GPU 0', 'Total memory']);
    expect(option.series[0]!.data).toEqual([
      [T0, 0],
      [T0 + 2000, 73864],
    ]);
    expect(option.yAxis.max).toBe(81559);
  });

  it('says there is no sample yet instead of an empty chart', async () => {
    await renderMonitor(api(file({ status: 'draft', trials: [] })), { live: false });
    expect(screen.getByText(/No GPU memory sample yet/)).toBeTruthy();
    expect(charts.size).toBe(0);
  });
});

describe('RunMonitor refusals and failures', () => {
  const REFUSED = trial({
    id: 'engine/trtllm/c4/r1',
    label: 'TensorRT-LLM 1.2.0rc1',
    engine: 'trtllm',
    version: '1.2.0rc1',
    status: 'rejected',
    refusal: { code: 'fp8-block-scaling-sm', model: 'Qwen/Qwen3-8B-FP8', gpus: [{ name: 'NVIDIA A100-SXM4-80GB', computeCapability: '8.0' }] },
    rejectReason: 'the stored English reason',
  });
  // The log line as SGLang printed it: https://github.com/sgl-project/sglang/issues/4547
  const FAILED = trial({
    id: 'engine/sglang/c4/r1',
    label: 'SGLang 0.5.3.post3',
    engine: 'sglang',
    status: 'failed',
    failure: { code: 'not-ready', death: { class: 'oom', evidence: 'RuntimeError: CUDA error: out of memory' } },
    error: 'server did not become ready: oom — RuntimeError: CUDA error: out of memory',
  });

  it('words them from their codes in the app’s language, quoting the engine’s own line', async () => {
    const details = () => [...document.querySelectorAll('.study-trial-detail')].map((d) => d.textContent);
    const fake = api(file({ status: 'done', trials: [VLLM, REFUSED, FAILED] }));
    await renderMonitor(fake, { live: false });
    expect(details()).toEqual([
      'TensorRT-LLM cannot run the block-scaled FP8 checkpoint Qwen/Qwen3-8B-FP8 on NVIDIA A100-SXM4-80GB (sm 8.0): its FP8 block scaling GEMM needs sm 8.9 or newer (it fails with "Unsupported SM version for FP8 block scaling GEMM")',
      'server did not become ready: oom — RuntimeError: CUDA error: out of memory',
    ]);
    cleanup();
    // The language chosen before the project opens.
    const again = api(file({ status: 'done', trials: [VLLM, REFUSED, FAILED] }));
    const { store } = renderWithStore(<Monitor live={false} />, again);
    try {
      await act(async () => {
        store.getState().setLocale('tr');
        syncStoreWithCore(again, store);
        await store.getState().openStudyProject(PATH);
      });
      expect(details()).toEqual([
        'TensorRT-LLM, blok ölçekli FP8 checkpoint Qwen/Qwen3-8B-FP8 modelini şu GPU’larda çalıştıramaz: NVIDIA A100-SXM4-80GB (sm 8.0). FP8 blok ölçekleme GEMM’i sm 8.9 ya da daha yenisini ister ("Unsupported SM version for FP8 block scaling GEMM" hatasıyla durur)',
        'sunucu hazır hâle gelmedi: oom — RuntimeError: CUDA error: out of memory',
      ]);
    } finally {
      setLocale('en');
    }
  });
});

describe('RunMonitor trial names', () => {
  it('names the trials the planner adds by their role in the app’s language, in the list, on the timeline and over the logs', async () => {
    const RECOMMENDED = trial({ id: 'generalisation/recommended/c4/r1', label: 'Recommended: SGLang 0.5.3.post3', stageId: 'generalisation', candidateId: 'recommended', engine: 'sglang', status: 'done', hostId: 'demo-lab', gpus: ['0'], serverId: 'srv-c', startedAt: at(80), finishedAt: at(90) });
    const fake = api(file({ status: 'done', trials: [VLLM, RECOMMENDED] }));
    const { store } = renderWithStore(<Monitor live={false} />, fake);
    try {
      await act(async () => {
        store.getState().setLocale('tr');
        syncStoreWithCore(fake, store);
        await store.getState().openStudyProject(PATH);
      });
      expect([...document.querySelectorAll('.study-trial-label')].map((l) => l.textContent)).toEqual(['vLLM 0.11.0', 'Önerilen: SGLang 0.5.3.post3']);
      expect(screen.getByRole('heading', { name: /Önerilen: SGLang 0\.5\.3\.post3/ })).toBeTruthy();
      expect(document.body.textContent).not.toContain('Recommended:');
    } finally {
      setLocale('en');
    }
  });
});

describe('RunMonitor on a Slurm cluster', () => {
  // States, reasons and nodes as squeue printed them on the test cluster (tests/fixtures/slurm/jobs/observe-*.out).
  it("shows each trial's batch job: a running one's node, a pending one's state and Slurm's reason", async () => {
    const running = { ...VLLM, status: 'running' as const, finishedAt: undefined, slurmJob: { jobId: '1', state: 'RUNNING', node: 'gpu1' } };
    const waiting = { ...SGLANG, status: 'planned' as const, startedAt: undefined, hostId: undefined, gpus: undefined, serverId: undefined, slurmJob: { jobId: '5', state: 'PENDING', reason: 'Resources' } };
    await renderMonitor(api(file({ trials: [running, waiting] })), { live: true });
    expect(within(screen.getByRole('button', { name: /^Running\s*vLLM 0\.11\.0/ })).getByText('Slurm job 1 on gpu1')).toBeTruthy();
    expect(within(screen.getByRole('button', { name: /^Planned\s*SGLang 0\.5\.3\.post3/ })).getByText('Slurm job 5: PENDING — Resources')).toBeTruthy();
  });
});
