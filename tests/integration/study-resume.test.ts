// A study killed with kill -9 mid-run resumes from its project file without running a finished trial twice; an
// engine that crashes mid-benchmark is a recorded result and the study goes on. On the demo lab, through the real CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/repo';
import { ProjectFileSchema, type ProjectFile, type StudyDefinitionInput } from '../../src/shared/study/study';
import { createCore } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { StudyProject } from '../../src/core/study/project-store';
import { runStudy } from '../../src/core/study/study-runner';
import { listServerRecords } from '../../src/core/engines/server-records';
import { DEMO_LAB_HOST_ID } from '../../src/shared/model/host';
import { trialProblemWords } from '../../src/shared/study/report/problem-words';
import { reportText } from '../../src/shared/study/report/text';

let dir: string;
let env: NodeJS.ProcessEnv;

/** Small enough to run in seconds, long enough to be killed in the middle: two engines, one stage of three. */
const study: StudyDefinitionInput = {
  name: 'Resume check',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: DEMO_LAB_HOST_ID }],
  demoLab: { gpu: 'h100', count: 1 },
  goal: { kind: 'latency' },
  engines: [
    { engine: 'vllm', version: '0.11.0' },
    { engine: 'sglang', version: '0.5.3.post3' },
  ],
  stages: [
    {
      id: 'cuda-graph',
      label: 'CUDA graph max batch size',
      candidates: [
        { id: 'bs8', label: 'bs 8', config: { cudaGraphMaxBatchSize: 8 } },
        { id: 'bs16', label: 'bs 16', config: { cudaGraphMaxBatchSize: 16 } },
        { id: 'bs32', label: 'bs 32', config: { cudaGraphMaxBatchSize: 32 } },
      ],
    },
  ],
  workloads: { primary: { id: 'random-small', dataset: { kind: 'random', inputLen: 256, outputLen: 64 }, numPrompts: 60, maxConcurrency: 4, seed: 42 } },
};

function readProject(path: string): Promise<ProjectFile> {
  return readFile(path, 'utf8').then((t) => ProjectFileSchema.parse(JSON.parse(t)));
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('The CLI is not built: run `npm run build` (npm test does it first).');
  dir = await mkdtemp(join(tmpdir(), 'servelab-resume-'));
  env = { ...process.env, HOME: dir, SERVELAB_DATA_DIR: join(dir, 'data'), SERVELAB_SIMBOX_TIME_SCALE: '0.002' };
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('servelab run, killed and resumed', () => {
  it('keeps every finished trial, cleans up the interrupted one, and runs nothing finished twice', async () => {
    const path = join(dir, 'resume.servelab');
    await StudyProject.create(path, study);

    // First run: killed with SIGKILL (no chance to clean up) once two trials have finished.
    const first = spawn(process.execPath, [cliPath, 'run', path], { cwd: dir, env });
    let stderr = '';
    const killed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 240_000);
      first.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if ((stderr.match(/^\[\s*\d+\/\d+\s*\] done /gm) ?? []).length >= 2 && !first.killed) {
          first.kill('SIGKILL');
          clearTimeout(timer);
          resolve(true);
        }
      });
      first.on('close', () => resolve(false));
    });
    expect(killed, stderr).toBe(true);
    await new Promise((r) => first.on('close', r));
    const atKill = await readProject(path);
    const doneAtKill = atKill.state.trials.filter((t) => t.status === 'done');
    expect(doneAtKill.length).toBeGreaterThanOrEqual(2);
    expect(atKill.state.status).toBe('running');

    // A record the project's earlier run left before the box rebooted: its pgid now names an unrelated process of
    // the same user. Resuming must not signal it.
    const victim = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    victim.unref();
    const victimPid = victim.pid as number;
    const boxHome = join(dir, 'data', 'demo-lab', 'home');
    const staleJob = join(boxHome, '.servelab', 'jobs', '20200101T000000000Z-0badbeef');
    const staleServer = 'srv-stale-0badbeef';
    await mkdir(staleJob, { recursive: true, mode: 0o700 });
    await writeFile(join(staleJob, 'boot'), 'an-earlier-boot\n');
    await writeFile(join(staleJob, 'pgid'), `${victimPid}\n`);
    await writeFile(join(staleJob, 'pid'), `${victimPid}\n`);
    await mkdir(join(boxHome, '.servelab', 'servers', staleServer), { recursive: true, mode: 0o700 });
    await writeFile(
      join(boxHome, '.servelab', 'servers', staleServer, 'server.json'),
      `${JSON.stringify({ serverId: staleServer, hostId: DEMO_LAB_HOST_ID, engine: 'vllm', version: '0.11.0', port: 1, jobId: '20200101T000000000Z-0badbeef', jobDir: staleJob, command: 'vllm serve', startedAt: '2020-01-01T00:00:00.000Z', mode: 'env', owner: path })}\n`,
    );

    // Second run: the same command resumes and completes.
    const second = spawn(process.execPath, [cliPath, 'run', path], { cwd: dir, env });
    let out = '';
    let err = '';
    second.stdout.on('data', (d: Buffer) => (out += d.toString()));
    second.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => second.on('close', resolve));
    expect(code, err).toBe(0);
    expect(out).toMatch(/^Recommended \(/m);
    let victimAlive = true;
    try {
      process.kill(victimPid, 0);
    } catch {
      victimAlive = false;
    }
    if (victimAlive) process.kill(victimPid, 'SIGKILL');
    expect(victimAlive, 'the resume signalled a process group from before the reboot').toBe(true);

    const after = await readProject(path);
    expect(after.state.status).toBe('done');
    // Finished trials are the very same results, not re-measured.
    for (const t of doneAtKill) {
      const now = after.state.trials.find((x) => x.id === t.id)!;
      expect(now.result?.id).toBe(t.result?.id);
      expect(now.finishedAt).toBe(t.finishedAt);
    }
    // The journal shows each trial finishing once.
    const journal = (await readFile(join(dir, 'resume.servelab-data', 'journal.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; id?: string; status?: string });
    const finished = journal.filter((e) => e.event === 'trial' && e.status === 'done').map((e) => e.id);
    expect(new Set(finished).size).toBe(finished.length);
    expect(journal.some((e) => e.event === 'resumed')).toBe(true);

    // No server is left running on the box.
    const core = await createCore({ dataDir: join(dir, 'data'), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    try {
      const box = await core.box(DEMO_LAB_HOST_ID);
      try {
        expect((await listServerRecords(box)).filter((s) => s.running)).toEqual([]);
      } finally {
        (box as unknown as { release(): void }).release();
      }
    } finally {
      await core.close();
    }
  }, 600_000);
});

describe('an engine crash mid-study', () => {
  it('is recorded with its cause and the study goes on to a recommendation', async () => {
    const path = join(dir, 'crash.servelab');
    await writeFile(path, JSON.stringify({ schemaVersion: 1, study: ProjectFileSchema.shape.study.parse(study), state: { status: 'draft', trials: [], decisions: [] } }));
    const saved = process.env.SERVELAB_SIMBOX_TIME_SCALE;
    process.env.SERVELAB_SIMBOX_TIME_SCALE = '0.002';
    const core = await createCore({ dataDir: join(dir, 'crash-data'), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    try {
      const box = await core.box(DEMO_LAB_HOST_ID);
      const release = () => (box as unknown as { release(): void }).release();
      // The first server dies after 30 requests: the fault is read when a server comes up, so it is switched off
      // once the first benchmark has started, and later servers run normally.
      const on = await box.run('simbox fault crash-after on 30\n', { timeoutSeconds: 30 });
      expect(on.code, on.stderr).toBe(0);
      let switchedOff: Promise<unknown> | undefined;
      const state = await runStudy(await StudyProject.open(path), core.studyDeps(), {
        onEvent: (e) => {
          if (e.kind === 'log' && e.text.includes('Starting initial single prompt test run') && !switchedOff) {
            switchedOff = box.run('simbox fault crash-after off\n', { timeoutSeconds: 30 });
          }
        },
      });
      await switchedOff;
      release();
      expect(state.status, state.message).toBe('done');
      const crashed = state.trials.filter((t) => t.status === 'failed');
      expect(crashed).toHaveLength(1);
      expect(crashed[0]!.error).toMatch(/the server died: RuntimeError: CUDA error: an illegal memory access was encountered$/);
      // Stored as facts too, so a Turkish report words the runner's part and quotes the engine's line.
      expect(crashed[0]!.failure).toMatchObject({ death: { evidence: 'RuntimeError: CUDA error: an illegal memory access was encountered' } });
      expect(trialProblemWords(crashed[0]!, reportText('tr'))).toMatch(/— sunucu kapandı: RuntimeError: CUDA error: an illegal memory access was encountered$/);
      expect(state.recommendation?.command).toMatch(/^(vllm serve|python3 -m sglang\.launch_server)/);
    } finally {
      if (saved === undefined) delete process.env.SERVELAB_SIMBOX_TIME_SCALE;
      else process.env.SERVELAB_SIMBOX_TIME_SCALE = saved;
      await core.close();
    }
  }, 600_000);
});
