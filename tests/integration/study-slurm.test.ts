// The example throughput study on a real two-node Slurm test cluster behind a real sshd login node, through a whole
// core as the app drives it: each server configuration is one batch job whose agent runs the simulated engine and
// `vllm bench serve` on its compute node (tests/helpers/slurm-simbox.ts). The same recommendation as on the demo lab,
// trials on both nodes, every job gone from the queue at the end; then a cancel that leaves no job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { MemorySecretStore } from '../../src/core/secrets/secret-store';
import type { EventMessage } from '../../src/shared/contract';
import type { Host } from '../../src/shared/model/host';
import { ProjectFileSchema, type ProjectFile, type StudyState } from '../../src/shared/study/study';
import { KNOWN_GPUS, slurmJobName, slurmJobPrefix } from '../../src/shared/study/slurm-plan';
import { newMailboxDir, submitAgentJob } from '../../src/core/cluster/job-box';
import { clusterNodePlace } from '../../src/shared/study/gpu-memory';
import { DatasetStore, SHAREGPT_FILE } from '../../src/core/bench/dataset-store';
import { cliPath, repoRoot } from '../helpers/repo';
import { slurmUnavailable, TEST_GPU_TYPE } from '../helpers/slurm';
import { startSlurmSimboxLab, type SlurmSimboxLab } from '../helpers/slurm-simbox';
import { EXAMPLES } from '../helpers/study-runs';

const options = { nodes: 2, accounting: false } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[study-slurm] skipped: ${unavailable}\n`);

describe.skipIf(unavailable !== null)('studies on a two-node Slurm cluster through its login node', () => {
  let lab: SlurmSimboxLab;
  let scratch: string;
  let core: Core;
  let hostId: string;
  const events: EventMessage[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'servelab-study-slurm-'));
    lab = await startSlurmSimboxLab({ ...options, gpu: 'a100', gpusPerNode: 2, timeScale: 0.01 });
    core = await createCore({
      dataDir: join(scratch, 'data'),
      secrets: new MemorySecretStore(),
      userKnownHostsFiles: [],
      sshConfigPath: join(scratch, 'no-ssh-config'),
      env: { HOME: scratch, USER: 'tester', PATH: process.env.PATH ?? '/usr/bin:/bin' },
      connectTimeoutSeconds: 10,
      simboxBinDir: null,
    });
    core.events.subscribe((e) => events.push(e));
    const host = (await core.call('hosts:add', { address: '127.0.0.1', port: lab.sshd.port, user: lab.sshd.user, identityFile: lab.sshd.identityFile, label: 'test cluster', scheduler: 'slurm' })) as Host;
    hostId = host.id;
    await core.call('hosts:acceptHostKey', { hostId, fingerprint: lab.sshd.hostKeyFingerprint }).catch(async () => {
      await core.call('hosts:connect', { hostId }).catch(() => {});
      await core.call('hosts:acceptHostKey', { hostId, fingerprint: lab.sshd.hostKeyFingerprint });
    });
    await core.call('hosts:cluster', { hostId });
    // The cluster has no internet: ShareGPT is uploaded into the shared cache, as a user would.
    const local = join(scratch, 'sharegpt.json');
    const made = spawnSync(process.execPath, [join(repoRoot, 'resources/simbox/bin/simbox'), 'make-sharegpt', local, '--count', '1000'], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    await new DatasetStore(lab.ssh).upload(local, SHAREGPT_FILE);
  }, 120_000);
  afterAll(async () => {
    await core?.close();
    await lab?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  const exampleName = ProjectFileSchema.parse(JSON.parse(readFileSync(join(repoRoot, 'examples', EXAMPLES.throughput.file), 'utf8'))).study.name;

  const slurm = { gpuType: TEST_GPU_TYPE, gpu: KNOWN_GPUS.a100, gpusPerNode: 2, maxQueuedJobs: 4 };

  async function project(name: string, edit: (study: Record<string, unknown>) => Record<string, unknown> = (s) => s): Promise<string> {
    const source = ProjectFileSchema.parse(JSON.parse(await readFile(join(repoRoot, 'examples', EXAMPLES.throughput.file), 'utf8')));
    const { demoLab: _demo, ...study } = source.study;
    const path = join(scratch, `${name}.servelab`);
    await writeFile(path, JSON.stringify({ ...source, study: edit({ ...study, hosts: [{ hostId, slurm }] }) }));
    return path;
  }

  async function finalState(path: string, timeoutMs: number): Promise<StudyState> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const last = events.filter((e) => e.name === 'studies:state' && (e.payload as { path: string }).path === path).at(-1);
      const state = (last?.payload as { state: StudyState } | undefined)?.state;
      if (state && ['done', 'failed', 'cancelled'].includes(state.status)) return state;
      if (Date.now() > deadline) throw new Error(`the study did not finish: ${state?.status}\n${lab.cluster.logs().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** The study's jobs Slurm still lists (every job of a study starts with its name's prefix). */
  const queued = (studyName = exampleName) =>
    lab.cluster
      .client('squeue', ['-h', '-o', '%i %T %r %j'])
      .stdout.split('\n')
      .filter((line) => line.split(' ')[3]?.startsWith(slurmJobPrefix(studyName)))
      .join('\n');

  // The throughput study holds at most three of the cluster's four GPUs, so the time-limit study runs beside it.
  it.concurrent('runs the example throughput study as one job per configuration and recommends what the demo lab does', async () => {
    const path = await project('throughput', (study) => ({ ...study, hosts: [{ hostId, slurm: { ...slurm, maxQueuedJobs: 3 } }] }));
    expect(await core.call('studies:run', { path })).toEqual({ started: true });
    const state = await finalState(path, 10 * 60_000);
    expect(state.status, state.message).toBe('done');
    expect(state.recommendation?.command).toBe(EXAMPLES.throughput.recommended);
    // The AWQ checkpoint fails inside its job as on the demo lab, with the engine's own words.
    expect(state.trials.find((t) => t.stageId === 'quantization' && t.candidateId === 'awq')).toMatchObject({ status: 'failed', error: expect.stringContaining("KeyError: 'weight'") });
    const ran = state.trials.filter((t) => t.status === 'done');
    expect(ran.length).toBeGreaterThan(0);
    for (const t of ran) expect(t.slurmJob?.jobId, t.id).toMatch(/^\d+$/);
    // The jobs' nodes: both compute nodes took trials.
    expect(new Set(ran.map((t) => t.slurmJob?.node))).toEqual(new Set(lab.cluster.nodes.map((n) => n.name)));
    // One job per server configuration and pass.
    const jobsByKey = new Map<string, Set<string>>();
    for (const t of ran) jobsByKey.set(t.serverKey, (jobsByKey.get(t.serverKey) ?? new Set()).add(t.slurmJob!.jobId));
    for (const [key, jobs] of jobsByKey) expect(jobs.size, key).toBeLessThanOrEqual(2);
    const journal = await readFile(join(scratch, 'throughput.servelab-data', 'journal.jsonl'), 'utf8');
    const submitted = journal.split('\n').filter((l) => l.includes('"slurm-job-submitted"'));
    // Each node's GPU memory was sampled through the jobs running there.
    const samples = (await readFile(join(scratch, 'throughput.servelab-data', 'gpu-memory.jsonl'), 'utf8')).split('\n').filter((l) => l.startsWith('{'));
    const places = new Set(samples.map((l) => (JSON.parse(l) as { hostId: string }).hostId));
    for (const node of lab.cluster.nodes) expect(places).toContain(clusterNodePlace(hostId, node.name));
    const withJob = state.trials.filter((t) => t.slurmJob);
    expect(submitted.length, JSON.stringify(withJob.map((t) => [t.id, t.status, t.slurmJob?.jobId, t.error]))).toBe(new Set(withJob.map((t) => t.slurmJob!.jobId)).size);
    expect(queued()).toBe('');
  }, 12 * 60_000);

  it.concurrent('a job its time limit ends fails its trials as TIMEOUT', async () => {
    // One request at a time, 2048 tokens each: about eight minutes on the simulated A100 at its time scale, far past
    // the one-minute limit (Slurm looks at limits about every 30 s).
    const name = 'Time limit check';
    const path = await project('timeout', ({ translations: _t, ...study }) => ({
      ...study,
      name,
      // A model of its own: the throughput study prefetches Qwen3-32B into the shared cache at the same time.
      model: { id: 'Qwen/Qwen3-8B', precision: 'bf16', variants: [] },
      engines: [(study.engines as unknown[])[0]],
      stages: [],
      workloads: { primary: { id: 'long-answers', dataset: { kind: 'random', inputLen: 1024, outputLen: 2048 }, numPrompts: 1000, maxConcurrency: 1, seed: 42 }, generalisation: [] },
      hosts: [{ hostId, slurm: { ...slurm, maxQueuedJobs: 1, timeLimitMinutes: 1 } }],
    }));
    expect(await core.call('studies:run', { path })).toEqual({ started: true });
    const state = await finalState(path, 5 * 60_000);
    const trial = state.trials.find((t) => t.slurmJob);
    expect(trial?.status).toBe('failed');
    expect(trial?.failure, trial?.error).toMatchObject({ code: 'job-ended', state: 'TIMEOUT' });
    expect(queued(name)).toBe('');
  }, 6 * 60_000);

  const journalOf = async (name: string): Promise<Record<string, unknown>[]> =>
    (await readFile(join(scratch, `${name}.servelab-data`, 'journal.jsonl'), 'utf8').catch(() => ''))
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const readProject = async (name: string): Promise<ProjectFile> => ProjectFileSchema.parse(JSON.parse(await readFile(join(scratch, `${name}.servelab`), 'utf8')));

  /** `servelab run` of the project in its own process, with this suite's data folder (hosts, accepted host keys). */
  function cliRun(path: string) {
    const child = spawn(process.execPath, [cliPath, 'run', path], { cwd: scratch, env: { ...process.env, HOME: scratch, SERVELAB_DATA_DIR: join(scratch, 'data') } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exit, stderr: () => stderr };
  }

  it('after a kill -9 of the app mid-study, a restart re-attaches to the running job and loses no finished result', async () => {
    // vLLM alone, then the max-batched-tokens stage: three jobs, two of them at once.
    const path = await project('kill', ({ translations: _t, ...study }) => ({
      ...study,
      engines: [(study.engines as unknown[])[0]],
      stages: (study.stages as { id: string }[]).filter((stage) => stage.id === 'max-batched-tokens'),
      workloads: { primary: (study.workloads as { primary: object }).primary, generalisation: [] },
    }));
    const first = cliRun(path);
    // Killed while a trial is measured inside a job, after at least one trial finished.
    const deadline = Date.now() + 5 * 60_000;
    let running: string | undefined;
    for (;;) {
      const journal = await journalOf('kill');
      const measuring = journal.findLast((e) => e.event === 'measuring');
      const settled = new Set(journal.filter((e) => e.event === 'trial' && (e.status === 'done' || e.status === 'failed')).map((e) => e.id));
      running = journal.findLast((e) => e.event === 'slurm-job-running')?.jobId as string | undefined;
      if (measuring && !settled.has(measuring.id) && settled.size >= 1 && running) break;
      if (Date.now() > deadline) throw new Error(`never measuring inside a job: ${first.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    first.child.kill('SIGKILL');
    await first.exit;
    const before = await readProject('kill');
    const finished = before.state.trials.filter((t) => t.status === 'done').map((t) => [t.id, t.result?.id]);
    expect(finished.length).toBeGreaterThan(0);
    // The app is gone; its job still runs on the cluster.
    const inFlight = before.state.trials.find((t) => t.status === 'running' && t.slurmJob)?.slurmJob?.jobId;
    expect(inFlight).toMatch(/^\d+$/);
    expect(queued()).toContain(`${inFlight} `);
    // Edge case made by hand: a job the killed run submitted without living to record its id (killed between sbatch
    // and its journal line) leaves only its mailbox in the journal, and the job in the queue.
    const unrecordedDir = newMailboxDir();
    await appendFile(join(scratch, 'kill.servelab-data', 'journal.jsonl'), `${JSON.stringify({ at: new Date().toISOString(), event: 'slurm-job-submitting', dir: unrecordedDir, serverKey: 'unrecorded' })}\n`);
    const unrecorded = await submitAgentJob(lab.ssh, { name: slurmJobName(exampleName, 'unrecorded'), dir: unrecordedDir, timeLimitMinutes: 10 });
    expect(queued()).toContain(`${unrecorded.jobId} `);

    const second = cliRun(path);
    expect(await second.exit, second.stderr()).toBe(0);
    const after = await readProject('kill');
    expect(after.state.status, after.state.message).toBe('done');
    expect(after.state.recommendation?.command).toMatch(/^vllm serve Qwen\/Qwen3-32B /);
    for (const [id, resultId] of finished) expect(after.state.trials.find((t) => t.id === id)?.result?.id, id).toBe(resultId);
    const journal = await journalOf('kill');
    expect(journal.some((e) => e.event === 'slurm-job-adopted' && e.jobId === inFlight)).toBe(true);
    expect(journal.find((e) => e.event === 'slurm-job-unrecorded' && e.dir === unrecordedDir)?.jobId).toBe(unrecorded.jobId);
    // The trials that were in flight ran again in the same job.
    const again = after.state.trials.filter((t) => t.slurmJob?.jobId === inFlight && t.status === 'done');
    expect(again.length).toBeGreaterThan(0);
    expect(queued(), JSON.stringify({ before: before.state.trials.map((t) => [t.id, t.status, t.slurmJob]), after: after.state.trials.map((t) => [t.id, t.status, t.slurmJob?.jobId]), journal: journal.filter((e) => String(e.event).startsWith('slurm') || String(e.text).includes('Slurm')), stderr: second.stderr().slice(0, 3000) })).toBe('');
  }, 12 * 60_000);

  it('cancel leaves no job of the study in the queue', async () => {
    const path = await project('cancel');
    expect(await core.call('studies:run', { path })).toEqual({ started: true });
    const deadline = Date.now() + 3 * 60_000;
    while (!(await journalOf('cancel')).some((e) => e.event === 'slurm-job-running')) {
      if (Date.now() > deadline) throw new Error('no job ran');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(queued()).not.toBe('');
    await core.call('studies:cancel', { path });
    const state = await finalState(path, 2 * 60_000);
    expect(state.status).toBe('cancelled');
    expect(queued()).toBe('');
    // Nor a mailbox on the shared storage, of this study or the ones before it (let go, timed out, re-attached).
    const mailboxes = join(lab.sshd.homeDir, '.servelab', 'slurm');
    const left = readdirSync(mailboxes).map((dir) => {
      const read = (file: string) => (existsSync(join(mailboxes, dir, file)) ? readFileSync(join(mailboxes, dir, file), 'utf8').trim() : null);
      return { dir, files: readdirSync(join(mailboxes, dir)), ended: read('ended'), ready: read('ready') };
    });
    const journals = await Promise.all(['throughput', 'timeout', 'kill', 'cancel'].map((name) => journalOf(name).catch(() => [])));
    expect(left, JSON.stringify(journals.flat().filter((e) => left.some((l) => JSON.stringify(e).includes(l.dir))))).toEqual([]);
  }, 6 * 60_000);

});
