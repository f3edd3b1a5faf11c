import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from './create-core';
import { resolveSimboxBinDir } from './box/simbox-path';
import { DEMO_LAB_HOST_ID } from '../shared/model/host';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-core-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('createCore with a damaged jobs.json', () => {
  it('reports it in app:info, keeps a copy, and boxes still work', async () => {
    const dataDir = join(dir, 'data');
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, 'jobs.json'), '{"version":1,"jobs":[');
    const core = await createCore({ dataDir, userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    try {
      const info = (await core.call('app:info', {})) as { problems: string[] };
      expect(info.problems).toEqual([expect.stringMatching(/^The job registry .*jobs\.json was damaged \(.*JSON.*\); it was kept as .*jobs\.json\.damaged-/)]);
      expect((await readdir(dataDir)).filter((f) => f.startsWith('jobs.json.damaged-'))).toHaveLength(1);
      const box = await core.box(DEMO_LAB_HOST_ID);
      try {
        expect((await box.run('echo ok\n', { timeoutSeconds: 30 })).stdout).toBe('ok\n');
      } finally {
        (box as unknown as { release(): void }).release();
      }
    } finally {
      await core.close();
    }
  }, 60_000);
});

describe('a Slurm cluster host', () => {
  it('is no box: nothing is installed, launched or benchmarked on its login node', async () => {
    const core = await createCore({ dataDir: join(dir, 'data'), userKnownHostsFiles: [] });
    try {
      const host = (await core.call('hosts:add', { label: 'cluster', address: '127.0.0.1', port: 22, user: 'me', scheduler: 'slurm' })) as { id: string };
      await expect(core.box(host.id)).rejects.toMatchObject({ code: 'NOT_SUPPORTED', message: expect.stringMatching(/^cluster is a Slurm cluster's login node: .*never on the login node itself\.$/) });
      await expect(core.call('engines:list', { hostId: host.id })).rejects.toMatchObject({ code: 'NOT_SUPPORTED' });
    } finally {
      await core.close();
    }
  });
});
