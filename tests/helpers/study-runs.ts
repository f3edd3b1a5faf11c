// The example studies and what every end-to-end run of one must show: shared by the demo-lab and SSH suites.
import { afterAll, beforeAll, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { EVENTS, type EventMessage } from '../../src/shared/contract';
import { ProjectFileSchema, type StudyDefinition, type StudyState, type Trial } from '../../src/shared/study/study';
import { REFERENCE_CANDIDATE_ID } from '../../src/shared/study/study-loop';
import { repoRoot } from './repo';

export const EXAMPLES = {
  latency: {
    file: 'qwen3-8b-latency-h100.servelab',
    gpu: 'h100',
    recommended:
      'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
  },
  throughput: {
    file: 'qwen3-32b-throughput-a100.servelab',
    gpu: 'a100',
    recommended: 'trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill',
  },
  moe: {
    file: 'gpt-oss-120b-moe-h100x8.servelab',
    gpu: 'h100',
    recommended: 'vllm serve openai/gpt-oss-120b --tensor-parallel-size 2 --max-model-len 32768 --async-scheduling',
  },
} as const;

export type Example = (typeof EXAMPLES)[keyof typeof EXAMPLES];

/** The example's study definition, as the app copies it. */
export function exampleStudy(example: Example): StudyDefinition {
  return ProjectFileSchema.parse(JSON.parse(readFileSync(join(repoRoot, 'examples', example.file), 'utf8'))).study;
}

/**
 * A scratch folder for a study suite and the simulated box's time scale while it runs (restored after): `dir` is
 * filled before the suite's tests.
 */
export function useStudyScratch(prefix: string, timeScale: string): { dir: string } {
  const scratch = { dir: '' };
  const saved = process.env.SERVELAB_SIMBOX_TIME_SCALE;
  beforeAll(async () => {
    scratch.dir = await mkdtemp(join(tmpdir(), prefix));
    process.env.SERVELAB_SIMBOX_TIME_SCALE = timeScale;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.SERVELAB_SIMBOX_TIME_SCALE;
    else process.env.SERVELAB_SIMBOX_TIME_SCALE = saved;
    if (scratch.dir) await rm(scratch.dir, { recursive: true, force: true });
  });
  return scratch;
}

/**
 * A core on the demo lab for one suite, its data in `<scratch>/<dataName>`: every event it sends is checked against
 * its contract schema and kept in `events`. The core is made before the suite's tests and closed after them.
 */
export function useDemoLabCore(scratch: { dir: string }, dataName: string): { core: Core; events: EventMessage[] } {
  const lab = { core: undefined as unknown as Core, events: [] as EventMessage[] };
  beforeAll(async () => {
    lab.core = await createCore({ dataDir: join(scratch.dir, dataName), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    lab.core.events.subscribe((e) => {
      expect(EVENTS[e.name].safeParse(e.payload).success, e.name).toBe(true);
      lab.events.push(e);
    });
  });
  afterAll(() => lab.core?.close());
  return lab;
}

/** Runs the project through studies:run and waits for its final state from the events. */
export async function runThroughCore(core: Core, events: EventMessage[], path: string): Promise<StudyState> {
  expect(await core.call('studies:run', { path })).toEqual({ started: true });
  const deadline = Date.now() + 8 * 60_000;
  for (;;) {
    const last = events.filter((e) => e.name === 'studies:state' && e.payload.path === path).at(-1);
    const state = last?.payload as { state: StudyState } | undefined;
    if (state && ['done', 'failed', 'cancelled'].includes(state.state.status)) return state.state;
    if (Date.now() > deadline) throw new Error(`the study did not finish: ${JSON.stringify(state?.state.status)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Launches per pass: the stages, then the generalisation pass (which revisits the baseline and the recommendation). */
export function launchesAndConfigs(trials: Trial[]): { launches: number; configs: number } {
  const ran = trials.filter((t) => t.serverId !== undefined);
  const pass = (t: Trial) => (t.stageId === 'generalisation' ? 'g' : 's');
  return { launches: new Set(ran.map((t) => t.serverId)).size, configs: new Set(ran.map((t) => `${pass(t)}:${t.serverKey}`)).size };
}

export async function checkOutcome(core: Core, path: string, state: StudyState, example: Example, scratch: string): Promise<void> {
  expect(state.status, state.message).toBe('done');
  expect(state.recommendation?.command).toBe(example.recommended);
  const { launches, configs } = launchesAndConfigs(state.trials);
  // One launch per configuration and pass, plus one for each later run asked for by an undecided comparison (the
  // best so far's runs inside a later stage are all such runs).
  const again = (t: Trial) => t.repeat > 1 || t.candidateId === REFERENCE_CANDIDATE_ID;
  const repeatLaunches = new Set(state.trials.filter((t) => again(t) && t.serverId !== undefined).map((t) => t.serverId)).size;
  expect(launches).toBeGreaterThanOrEqual(configs);
  expect(launches).toBeLessThanOrEqual(configs + repeatLaunches);
  expect(state.trials.filter((t) => t.status === 'running' || t.status === 'planned')).toEqual([]);
  // The file on disk is the same state, valid against the schema.
  const onDisk = ProjectFileSchema.parse(JSON.parse(await readFile(path, 'utf8')));
  expect(onDisk.state.recommendation?.command).toBe(example.recommended);

  const md = ((await core.call('studies:report', { path, format: 'md' })) as { text: string }).text;
  expect(md).toContain(example.recommended);
  const csvPath = join(scratch, `${example.file}.csv`);
  await core.call('studies:export', { path, format: 'csv', out: csvPath });
  const csv = await readFile(csvPath, 'utf8');
  expect(csv.split('\r\n').filter((l) => l !== '').length).toBe(state.trials.length + 1);
  const htmlPath = join(scratch, `${example.file}.html`);
  await core.call('studies:export', { path, format: 'html', out: htmlPath });
  const html = await readFile(htmlPath, 'utf8');
  expect(html).toContain('<svg');
  expect(html).not.toMatch(/<script\s+src|<link[^>]+href="http/);
}

