// kill -9 of `servelab run` at ten points of one study on the demo lab, each time restarted on the same project:
// no finished result is lost or measured again, and at the end no simulated server holds the simulated GPU.
// Servelab has no warm-up phase of its own: "warm-up" is vLLM's (torch.compile, CUDA graph capture and its warm-up
// run, which vLLM logs as "init engine (profile, create kv cache, warmup model)"), inside the runner's readiness wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, watch } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/repo';
import { ProjectFileSchema, type ProjectFile, type StudyDefinitionInput } from '../../src/shared/study/study';
import { DEMO_LAB_HOST_ID } from '../../src/shared/model/host';
import { demoLabPaths } from '../../src/core/box/demo-lab';
import { createCore } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { listServerRecords } from '../../src/core/engines/server-records';

let dir: string;
let jobsDir: string;
const path = () => join(dir, 'k.servelab');
const journalPath = () => join(dir, 'k.servelab-data', 'journal.jsonl');

/** One engine, a stage of two candidates and one more scenario: five servers' worth of phases in seconds. */
const study: StudyDefinitionInput = {
  name: 'Kill check',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: DEMO_LAB_HOST_ID }],
  demoLab: { gpu: 'h100', count: 1 },
  goal: { kind: 'latency' },
  engines: [{ engine: 'vllm', version: '0.11.0' }],
  stages: [
    {
      id: 'cuda-graph',
      label: 'CUDA graph max batch size',
      candidates: [
        { id: 'bs8', label: 'bs 8', config: { cudaGraphMaxBatchSize: 8 } },
        { id: 'bs16', label: 'bs 16', config: { cudaGraphMaxBatchSize: 16 } },
      ],
    },
  ],
  workloads: {
    primary: { id: 'random-small', dataset: { kind: 'random', inputLen: 256, outputLen: 64 }, numPrompts: 20, maxConcurrency: 4, seed: 42 },
    generalisation: [{ id: 'random-long', dataset: { kind: 'random', inputLen: 1024, outputLen: 64 }, numPrompts: 20, maxConcurrency: 4, seed: 42 }],
  },
};

interface JournalEvent {
  event: string;
  id?: string;
  status?: string;
  serverId?: string;
  runId?: string;
}

async function journal(): Promise<JournalEvent[]> {
  const text = await readFile(journalPath(), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as JournalEvent];
      } catch {
        return [];
      }
    });
}

interface BoxJob {
  id: string;
  command: string;
  kind: 'install' | 'prefetch' | 'server' | 'bench' | 'other';
  running: boolean;
  log: () => Promise<string>;
}

/** The jobs on the simulated box, from their folders (what a user would look at with ls). */
async function boxJobs(): Promise<BoxJob[]> {
  const ids = await readdir(jobsDir).catch(() => [] as string[]);
  const jobs: BoxJob[] = [];
  for (const id of ids) {
    const command = await readFile(join(jobsDir, id, 'command'), 'utf8').catch(() => '');
    const kind = /SERVELAB_PREFETCH/.test(command) ? 'prefetch' : /bench serve/.test(command) ? 'bench' : /\.servelab\/servers\/srv-/.test(command) ? 'server' : /pip|uv /.test(command) ? 'install' : 'other';
    jobs.push({ id, command, kind, running: existsSync(join(jobsDir, id, 'pid')) && !existsSync(join(jobsDir, id, 'exit')), log: () => readFile(join(jobsDir, id, 'log'), 'utf8').catch(() => '') });
  }
  return jobs;
}

const readProject = async (): Promise<ProjectFile> => ProjectFileSchema.parse(JSON.parse(await readFile(path(), 'utf8')));

interface Point {
  name: string;
  /** The simulated box's time scale for this run (wider windows where a phase is short). */
  timeScale: string;
  /** True once the run is at this point; checked every 10 ms (and on each new line of the CLI's output). */
  at: (ctx: { stderr: string; journal: JournalEvent[]; before: number }) => Promise<boolean>;
  /** Watches the project folder instead, for the short moment of a save. */
  onProjectSave?: boolean;
}

const since = (events: JournalEvent[], before: number) => events.slice(before);
const runningJob = async (kind: BoxJob['kind']) => (await boxJobs()).find((j) => j.kind === kind && j.running);
const serverLogHas = async (re: RegExp, not: RegExp) => {
  const server = await runningJob('server');
  if (!server) return false;
  const log = await server.log();
  return re.test(log) && !not.test(log);
};

const POINTS: Point[] = [
  { name: 'install', timeScale: '0.01', at: async () => (await runningJob('install')) !== undefined },
  { name: 'prefetch', timeScale: '0.01', at: async () => (await runningJob('prefetch')) !== undefined },
  {
    name: 'launch',
    timeScale: '0.01',
    at: async ({ journal: j, before }) => {
      const mine = since(j, before);
      return mine.some((e) => e.event === 'launching') && !mine.some((e) => e.event === 'server-launched');
    },
  },
  // Loading weights: the runner waits for readiness.
  { name: 'readiness', timeScale: '0.05', at: () => serverLogHas(/Starting to load model/, /Loading weights took/) },
  { name: 'warm-up', timeScale: '0.05', at: () => serverLogHas(/Model loading took/, /Supported_tasks/) },
  { name: 'measuring', timeScale: '0.01', at: async () => (await runningJob('bench'))?.log().then((l) => /Starting main benchmark run/.test(l)) ?? false },
  // The only trial of the engine stage's server is done: the runner is stopping that server.
  { name: 'stop', timeScale: '0.01', at: async ({ stderr }) => /\] done\s+engine\//.test(stderr) },
  // The engine stage decided, nothing of the next stage launched yet.
  { name: 'between trials', timeScale: '0.01', at: async ({ stderr }) => /→ engine: /.test(stderr) },
  // The project file is being written right after a stage trial's benchmark ended (its result being saved).
  {
    name: 'saving',
    timeScale: '0.01',
    onProjectSave: true,
    at: async ({ journal: j, before }) => {
      const measuring = since(j, before).findLast((e) => e.event === 'measuring' && e.id?.startsWith('cuda-graph/'));
      return measuring?.runId !== undefined && (await boxJobs()).some((b) => b.kind === 'bench' && !b.running && b.command.includes(measuring.runId as string));
    },
  },
  { name: 'generalisation', timeScale: '0.01', at: async ({ stderr }) => /\] done\s+generalisation\//.test(stderr) },
];

function cliEnv(timeScale: string): NodeJS.ProcessEnv {
  return { ...process.env, HOME: dir, SERVELAB_DATA_DIR: join(dir, 'data'), SERVELAB_SIMBOX_TIME_SCALE: timeScale };
}

/** Runs `servelab run` until the point is reached, then kill -9; resolves once the process is gone. */
async function runAndKill(point: Point): Promise<{ stderr: string }> {
  const before = (await journal()).length;
  const child = spawn(process.execPath, [cliPath, 'run', path()], { cwd: dir, env: cliEnv(point.timeScale) });
  let stderr = '';
  let killed = false;
  let checking = false;
  const kill = () => {
    if (killed) return;
    killed = true;
    child.kill('SIGKILL');
  };
  const check = async () => {
    if (killed || checking) return;
    checking = true;
    try {
      if (await point.at({ stderr, journal: await journal(), before })) {
        if (!point.onProjectSave) kill();
        else armed = true;
      }
    } finally {
      checking = false;
    }
  };
  let armed = false;
  const watcher = point.onProjectSave
    ? watch(dir, (_type, file) => {
        if (armed && typeof file === 'string' && /^\.k\.servelab\..*\.tmp$/.test(file)) kill();
      })
    : undefined;
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    void check();
  });
  child.stdout.resume();
  const timer = setInterval(() => void check(), 10);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(timer);
  watcher?.close();
  if (!killed) throw new Error(`servelab run ended (exit ${code}) before reaching "${point.name}":\n${stderr}`);
  return { stderr };
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('The CLI is not built: run `npm run build` (npm test does it first).');
  dir = await mkdtemp(join(tmpdir(), 'servelab-kill9-'));
  jobsDir = join(demoLabPaths(join(dir, 'data')).home, '.servelab', 'jobs');
  await writeFile(path(), JSON.stringify({ schemaVersion: 1, study: ProjectFileSchema.shape.study.parse(study), state: { status: 'draft', trials: [], decisions: [] } }));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('servelab run killed with SIGKILL at ten points of a study', () => {
  it('keeps every finished result, measures no finished trial again, and leaves no server on the GPU', async () => {
    /** Each trial finished at some kill: its result id and how much of the journal was written by then. */
    const finished = new Map<string, { resultId: string; journalLength: number; point: string }>();
    const log: string[] = [];
    for (const point of POINTS) {
      const { stderr } = await runAndKill(point);
      const atKill = await readProject();
      const events = await journal();
      log.push(`${point.name}: ${atKill.state.trials.filter((t) => t.status === 'done').length} done`);
      for (const t of atKill.state.trials) {
        if (t.status !== 'done' || finished.has(t.id)) continue;
        expect(t.result?.id, `${t.id} at ${point.name}`).toBeDefined();
        finished.set(t.id, { resultId: t.result!.id, journalLength: events.length, point: point.name });
      }
      // Evidence that the kill landed where it was meant to.
      const mine = events.slice(events.findLastIndex((e) => e.event === 'study-started'));
      if (point.name === 'launch') expect(mine.some((e) => e.event === 'server-launched'), stderr).toBe(false);
      if (point.name === 'stop') expect(mine.filter((e) => e.event === 'server-stopped'), stderr).toEqual([]);
      if (point.name === 'between trials') expect(mine.some((e) => e.event === 'launching' && mine.indexOf(e) > mine.findIndex((d) => d.event === 'decision')), stderr).toBe(false);
      expect(atKill.state.status, `${point.name}\n${stderr}`).toBe('running');
    }

    // The last run goes to the end.
    const last = spawn(process.execPath, [cliPath, 'run', path()], { cwd: dir, env: cliEnv('0.01') });
    let stderr = '';
    last.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    last.stdout.resume();
    expect(await new Promise((resolve) => last.on('close', resolve)), stderr).toBe(0);

    const after = await readProject();
    expect(after.state.status).toBe('done');
    // Every trial measured; none failed (a server left on the one GPU would make the next launch fail).
    expect(after.state.trials.filter((t) => t.status !== 'done').map((t) => `${t.id}: ${t.status} ${t.error ?? ''}`), log.join('\n')).toEqual([]);
    expect(finished.size, log.join('\n')).toBeGreaterThanOrEqual(3);
    const events = await journal();
    for (const [id, was] of finished) {
      expect(after.state.trials.find((t) => t.id === id)?.result?.id, `${id} (finished by ${was.point})`).toBe(was.resultId);
      const measuredAgain = events.slice(was.journalLength).filter((e) => e.event === 'measuring' && e.id === id);
      expect(measuredAgain, `${id} (finished by ${was.point}) was measured again`).toEqual([]);
    }
    // No temp file of a save cut short is left beside the project.
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    // Each trial is measured to a finish once in the journal.
    const done = events.filter((e) => e.event === 'trial' && e.status === 'done').map((e) => e.id);
    expect(new Set(done).size).toBe(done.length);

    // Nothing of any server is left on the box: no running record, no GPU process, no live job process group.
    const core = await createCore({ dataDir: join(dir, 'data'), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    try {
      const box = await core.box(DEMO_LAB_HOST_ID);
      try {
        expect((await listServerRecords(box)).filter((s) => s.running)).toEqual([]);
        const apps = await box.run('nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader\n', { timeoutSeconds: 30 });
        expect(apps.stdout.split('\n').filter((l) => l.includes(','))).toEqual([]);
        const groups = await box.run(
          `for d in "$HOME"/.servelab/jobs/*; do p=$(cat "$d/pgid" 2>/dev/null) || continue; kill -0 -- "-$p" 2>/dev/null && echo "$d"; done; :\n`,
          { timeoutSeconds: 30 },
        );
        expect(groups.stdout.trim()).toBe('');
      } finally {
        (box as unknown as { release(): void }).release();
      }
    } finally {
      await core.close();
    }
  }, 400_000);
});
