// An install left running by a killed process (its job outlives it on the box) is followed by the next install of
// the same engine, never raced by a second install into the same environment. On the demo lab.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { demoLabPaths } from '../../src/core/box/demo-lab';
import { EngineInstaller, installScript } from '../../src/core/engines/engine-installer';
import { boxFacts, inLoginEnv } from '../../src/core/engines/engine-box';
import { getAdapter } from '../../src/shared/engines';
import { DEMO_LAB_HOST_ID } from '../../src/shared/model/host';

let dir: string;
let core: Core;
const savedScale = process.env.SERVELAB_SIMBOX_TIME_SCALE;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-install-resume-'));
  process.env.SERVELAB_SIMBOX_TIME_SCALE = '0.01';
  core = await createCore({ dataDir: join(dir, 'data'), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
});

afterAll(async () => {
  await core?.close();
  if (savedScale === undefined) delete process.env.SERVELAB_SIMBOX_TIME_SCALE;
  else process.env.SERVELAB_SIMBOX_TIME_SCALE = savedScale;
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('an install interrupted by a killed process', () => {
  it('is followed to its end by the next install of that engine instead of a second install racing it', async () => {
    const box = await core.box(DEMO_LAB_HOST_ID);
    try {
      // The first process starts the install and dies: nobody follows its job.
      const orphan = await new EngineInstaller(box).start('vllm', '0.11.0');
      expect(orphan.jobId).not.toBeNull();
      const lines: string[] = [];
      const next = await new EngineInstaller(box).install('vllm', '0.11.0', { onProgress: (p) => p.line && lines.push(p.line) });
      expect(next, next.message).toMatchObject({ ok: true, skipped: false, jobId: orphan.jobId });
      expect(lines.join('\n')).toMatch(/already being installed .* following it/);
      const jobs = join(demoLabPaths(join(dir, 'data')).home, '.servelab', 'jobs');
      const installs = [];
      for (const id of await readdir(jobs)) if ((await readFile(join(jobs, id, 'command'), 'utf8')).includes('creating the environment')) installs.push(id);
      expect(installs).toEqual([orphan.jobId]);
      expect(await new EngineInstaller(box).install('vllm', '0.11.0')).toMatchObject({ ok: true, skipped: true });
      // The first process's own follower settles too (it would otherwise outlive the box it uses).
      expect(await orphan.done).toMatchObject({ ok: true });
    } finally {
      (box as unknown as { release(): void }).release();
    }
  }, 120_000);

  it('two install jobs of one environment at once (two processes that each found none running): one waits, both end ok', async () => {
    const box = await core.box(DEMO_LAB_HOST_ID);
    try {
      const facts = await boxFacts(box);
      const dir = `${facts.home}/.servelab/engines/sglang-0.5.5.post1`;
      const spec = getAdapter('sglang').installSpec('0.5.5.post1');
      const job = () => box.jobs().start({ command: inLoginEnv(facts, ['sh', '-c', installScript(dir, spec, facts.hasUv ? 'uv' : 'pip', '0.5.5.post1')]), label: 'install' });
      const [a, b] = await Promise.all([job(), job()]);
      const logs = ['', ''];
      const codes = await Promise.all([a.stream((t) => (logs[0] += t)), b.stream((t) => (logs[1] += t))]);
      expect(codes, logs.join('\n----\n')).toEqual([0, 0]);
      expect(logs.join('\n')).toMatch(/another install into .* is running; waiting for it/);
      expect(logs.join('\n')).toMatch(/the other install left .* ready/);
      expect(await new EngineInstaller(box).install('sglang', '0.5.5.post1')).toMatchObject({ ok: true, skipped: false });
    } finally {
      (box as unknown as { release(): void }).release();
    }
  }, 120_000);
});
