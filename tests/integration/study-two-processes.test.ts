// Two real `servelab run` processes on one data folder: runs of two projects keep every job record of both in
// jobs.json, and a second run of the same project refuses, naming the first, instead of stopping its servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/repo';
import { ProjectFileSchema, type StudyDefinitionInput } from '../../src/shared/study/study';
import { DEMO_LAB_HOST_ID } from '../../src/shared/model/host';
import { demoLabPaths } from '../../src/core/box/demo-lab';

let dir: string;
let env: NodeJS.ProcessEnv;

/** One engine, no stage: the engine trial and the generalisation pass on one server each. */
function study(name: string, gpu: string, numPrompts = 10): StudyDefinitionInput {
  return {
    name,
    model: { id: 'Qwen/Qwen3-8B' },
    hosts: [{ hostId: DEMO_LAB_HOST_ID, gpus: [gpu] }],
    demoLab: { gpu: 'h100', count: 2 },
    goal: { kind: 'latency' },
    engines: [{ engine: 'vllm', version: '0.11.0' }],
    stages: [],
    workloads: { primary: { id: 'random-small', dataset: { kind: 'random', inputLen: 256, outputLen: 64 }, numPrompts, maxConcurrency: 4, seed: 42 } },
  };
}

async function writeProject(path: string, definition: StudyDefinitionInput): Promise<void> {
  await writeFile(path, JSON.stringify({ schemaVersion: 1, study: ProjectFileSchema.shape.study.parse(definition), state: { status: 'draft', trials: [], decisions: [] } }));
}

interface Run {
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  exited: Promise<number | null>;
}

function startRun(path: string): Run {
  const child = spawn(process.execPath, [cliPath, 'run', path], { cwd: dir, env });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('The CLI is not built: run `npm run build` (npm test does it first).');
  dir = await mkdtemp(join(tmpdir(), 'servelab-two-runs-'));
  env = { ...process.env, HOME: dir, SERVELAB_DATA_DIR: join(dir, 'data'), SERVELAB_SIMBOX_TIME_SCALE: '0.005' };
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('two servelab run processes on one data folder', () => {
  it('runs of two projects keep every job of both in jobs.json', async () => {
    await writeProject(join(dir, 'a.servelab'), study('A', '0'));
    await writeProject(join(dir, 'b.servelab'), study('B', '1'));
    const a = startRun(join(dir, 'a.servelab'));
    const b = startRun(join(dir, 'b.servelab'));
    const [codeA, codeB] = await Promise.all([a.exited, b.exited]);
    expect(codeA, a.stderr()).toBe(0);
    expect(codeB, b.stderr()).toBe(0);
    // Every job folder on the box is a job one of the two processes started through the registry.
    const onBox = (await readdir(join(demoLabPaths(join(dir, 'data')).home, '.servelab', 'jobs'))).sort();
    const registry = JSON.parse(await readFile(join(dir, 'data', 'jobs.json'), 'utf8')) as { jobs: { id: string }[] };
    expect(onBox.length).toBeGreaterThanOrEqual(8);
    expect(registry.jobs.map((j) => j.id).sort()).toEqual(onBox);
  }, 300_000);

  it('a second run of a running project refuses, naming the first, and leaves its servers alone', async () => {
    const path = join(dir, 'same.servelab');
    // Long enough that the first run is still measuring when the second starts.
    await writeProject(path, study('Same', '0', 40));
    const first = startRun(path);
    // The first run has a server up (its trial is running on it).
    await until('the first run to launch its server', () => /running\s+engine\//.test(first.stderr()));
    const second = startRun(path);
    const code = await Promise.race([second.exited, first.exited.then(() => 'first ended' as const)]);
    expect(code, `second:\n${second.stderr()}\nfirst:\n${first.stderr()}`).toBe(1);
    expect(second.stderr()).toMatch(new RegExp(`is already being run by servelab run \\(pid ${first.child.pid}, since \\d{4}-\\d\\d-\\d\\dT[^)]*\\)`));
    expect(second.stderr()).not.toMatch(/Stopping server/);
    // A symlink to the project is the same project (and its data folder is the one beside the real file).
    await symlink(path, join(dir, 'link.servelab'));
    const viaLink = startRun(join(dir, 'link.servelab'));
    expect(await viaLink.exited, viaLink.stderr()).toBe(1);
    expect(viaLink.stderr()).toMatch(/is already being run by servelab run/);
    // The first run was not disturbed: it finishes with every trial measured.
    expect(await first.exited, first.stderr()).toBe(0);
    const after = ProjectFileSchema.parse(JSON.parse(await readFile(path, 'utf8')));
    expect(after.state.status).toBe('done');
    expect(after.state.trials.filter((t) => t.status !== 'done' && t.status !== 'rejected')).toEqual([]);
  }, 300_000);
});
