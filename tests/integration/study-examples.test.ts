// The two example studies end to end through the core's calls, on the demo lab and over a real sshd with the
// simulated box: each reaches METHOD.md's recommendation, writes its report and CSV, and launches each distinct
// server config once per pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/main/core/core';
import { resolveSimboxBinDir } from '../../src/main/box/simbox-path';
import { EVENTS, type EventMessage } from '../../src/shared/contract';
import { ProjectFileSchema, type StudyState, type Trial } from '../../src/shared/study/study';
import { DatasetStore, SHAREGPT_FILE } from '../../src/main/bench/dataset-store';
import { repoRoot } from '../helpers/repo';
import { startSimboxOverSsh, type SimboxOverSsh } from '../helpers/simbox-ssh';

const EXAMPLES = {
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
} as const;

let scratch: string;
const savedScale = process.env.SERVELAB_SIMBOX_TIME_SCALE;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'servelab-study-'));
  // The demo's own time scale: much smaller ones let this machine's CPU load leak into the simulated timings.
  process.env.SERVELAB_SIMBOX_TIME_SCALE = '0.01';
});

afterAll(async () => {
  if (savedScale === undefined) delete process.env.SERVELAB_SIMBOX_TIME_SCALE;
  else process.env.SERVELAB_SIMBOX_TIME_SCALE = savedScale;
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Runs the project through studies:run and waits for its final state from the events. */
async function runThroughCore(core: Core, events: EventMessage[], path: string): Promise<StudyState> {
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
function launchesAndConfigs(trials: Trial[]): { launches: number; configs: number } {
  const ran = trials.filter((t) => t.serverId !== undefined);
  const pass = (t: Trial) => (t.stageId === 'generalisation' ? 'g' : 's');
  return { launches: new Set(ran.map((t) => t.serverId)).size, configs: new Set(ran.map((t) => `${pass(t)}:${t.serverKey}`)).size };
}

async function checkOutcome(core: Core, path: string, state: StudyState, example: (typeof EXAMPLES)[keyof typeof EXAMPLES]): Promise<void> {
  expect(state.status, state.message).toBe('done');
  expect(state.recommendation?.command).toBe(example.recommended);
  const { launches, configs } = launchesAndConfigs(state.trials);
  expect(launches).toBe(configs);
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

describe('the example studies on the demo lab', () => {
  let core: Core;
  const events: EventMessage[] = [];
  beforeAll(async () => {
    core = await createCore({ dataDir: join(scratch, 'demo-data'), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    core.events.subscribe((e) => {
      expect(EVENTS[e.name].safeParse(e.payload).success, e.name).toBe(true);
      events.push(e);
    });
  });
  afterAll(() => core?.close());

  it('lists the examples shipped with the app', async () => {
    const examples = (await core.call('studies:examples', {})) as { name: string; path: string }[];
    expect(examples.map((e) => e.path.split('/').at(-1)).sort()).toEqual([EXAMPLES.throughput.file, EXAMPLES.latency.file].sort());
  });

  it('Study A (Qwen3-8B latency, H100): SGLang FP8 + EAGLE3, the report and CSV', async () => {
    const path = join(scratch, 'latency-demo.servelab');
    await core.call('studies:fromExample', { path, example: EXAMPLES.latency.file });
    const plan = (await core.call('studies:plan', { path })) as { trials: Trial[]; estimate: { gpuSeconds: number; launches: number } };
    expect(plan.trials.map((t) => t.engine)).toEqual(['vllm', 'sglang', 'trtllm']);
    expect(plan.estimate.gpuSeconds).toBeGreaterThan(0);
    const state = await runThroughCore(core, events, path);
    await checkOutcome(core, path, state, EXAMPLES.latency);
    expect(state.decisions.find((d) => d.stageId === 'engine')?.reason).toMatch(/^SGLang 0\.5\.3\.post3 is best/);
    // Measured trials land in the results library too.
    expect(((await core.call('results:list', {})) as unknown[]).length).toBeGreaterThanOrEqual(state.trials.filter((t) => t.status === 'done').length);
  }, 600_000);

  it('Study B (Qwen3-32B throughput, A100): TensorRT-LLM, FP8 refused before launch, AWQ failure recorded, regression flagged', async () => {
    const path = join(scratch, 'throughput-demo.servelab');
    await core.call('studies:fromExample', { path, example: EXAMPLES.throughput.file });
    const state = await runThroughCore(core, events, path);
    await checkOutcome(core, path, state, EXAMPLES.throughput);
    const fp8 = state.trials.find((t) => t.stageId === 'quantization' && t.candidateId === 'fp8');
    expect(fp8).toMatchObject({ status: 'rejected', rejectReason: expect.stringMatching(/sm 8\.0/) });
    expect(fp8?.serverId).toBeUndefined();
    expect(state.trials.find((t) => t.stageId === 'quantization' && t.candidateId === 'awq')).toMatchObject({ status: 'failed', error: expect.stringContaining("KeyError: 'weight'") });
    const md = ((await core.call('studies:report', { path, format: 'md' })) as { text: string }).text;
    expect(md).toMatch(/REGRESSION −\d+\.\d%/);
  }, 600_000);
});

describe('the example studies over SSH with the simulated box', () => {
  let lab: SimboxOverSsh;
  let core: Core;
  let hostId: string;
  const events: EventMessage[] = [];
  beforeAll(async () => {
    lab = await startSimboxOverSsh({ hostId: 'study-ssh', timeScale: 0.01 });
    core = await createCore({ dataDir: join(scratch, 'ssh-data'), userKnownHostsFiles: [], simboxBinDir: null });
    core.events.subscribe((e) => events.push(e));
    ({ id: hostId } = (await core.call('hosts:add', { address: '127.0.0.1', port: lab.sshd.port, user: lab.sshd.user, identityFile: lab.sshd.identityFile })) as { id: string });
    await core.call('hosts:acceptHostKey', { hostId, fingerprint: lab.sshd.hostKeyFingerprint }).catch(async () => {
      await core.call('hosts:connect', { hostId }).catch(() => {});
      await core.call('hosts:acceptHostKey', { hostId, fingerprint: lab.sshd.hostKeyFingerprint });
    });
    // The box has no internet: ShareGPT is uploaded into its cache, as a user would with `bench fetch-sharegpt --file`.
    const local = join(scratch, 'sharegpt.json');
    const made = await import('node:child_process').then((cp) =>
      cp.spawnSync(process.execPath, [join(repoRoot, 'resources/simbox/bin/simbox'), 'make-sharegpt', local, '--count', '1000'], { encoding: 'utf8' }),
    );
    expect(made.status, made.stderr).toBe(0);
    await new DatasetStore(lab.box).upload(local, SHAREGPT_FILE);
  }, 60_000);
  afterAll(async () => {
    await core?.close();
    await lab?.stop();
  });

  for (const [name, example] of Object.entries(EXAMPLES)) {
    it(`${name}: the same recommendation over SSH`, async () => {
      await lab.simbox(`config --gpu ${example.gpu} --count 1`);
      const source = ProjectFileSchema.parse(JSON.parse(await readFile(join(repoRoot, 'examples', example.file), 'utf8')));
      const { demoLab: _demo, ...study } = source.study;
      const path = join(scratch, `${name}-ssh.servelab`);
      await writeFile(path, JSON.stringify({ ...source, study: { ...study, hosts: [{ hostId }] } }));
      const state = await runThroughCore(core, events, path);
      await checkOutcome(core, path, state, example);
      expect(state.trials.find((t) => t.status === 'done')?.result?.result.provenance).toMatchObject({ simulated: true, gpu: { count: 1 } });
    }, 600_000);
  }
});

