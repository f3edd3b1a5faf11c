// The engines and servers calls through the core's dispatcher (so every result and event is checked against the
// contract), on the demo lab.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { DEMO_LAB_HOST_ID } from '../../src/shared/model/host';
import { EVENTS, type EventMessage } from '../../src/shared/contract';

let dataDir: string;
let core: Core;
const events: EventMessage[] = [];

function waitForEvent(test: (m: EventMessage) => boolean, timeoutMs = 30_000): Promise<EventMessage> {
  return new Promise((resolve, reject) => {
    const found = events.find(test);
    if (found) return resolve(found);
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no such event within ${timeoutMs} ms; got ${events.map((e) => e.name).join(', ')}`));
    }, timeoutMs);
    const off = core.events.subscribe((m) => {
      if (!test(m)) return;
      clearTimeout(timer);
      off();
      resolve(m);
    });
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'servelab-engine-core-'));
  core = await createCore({ dataDir, simboxBinDir: resolveSimboxBinDir(), userKnownHostsFiles: [] });
  core.events.subscribe((m) => {
    // Every event must match its contract schema.
    expect(EVENTS[m.name].safeParse(m.payload).success, JSON.stringify(m)).toBe(true);
    events.push(m);
  });
});

afterAll(async () => {
  await core?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('engines and servers calls', () => {
  it('installs with progress events, lists, launches to ready, stops clean', async () => {
    const { jobId } = (await core.call('engines:install', { hostId: DEMO_LAB_HOST_ID, engine: 'sglang', version: '0.5.3.post3' })) as { jobId: string };
    const done = await waitForEvent((m) => m.name === 'engines:done' && m.payload.jobId === jobId);
    expect(done.payload).toMatchObject({ ok: true, skipped: false });
    expect(events.some((m) => m.name === 'engines:progress' && m.payload.jobId === jobId && m.payload.phase === 'installing')).toBe(true);

    const listed = (await core.call('engines:list', { hostId: DEMO_LAB_HOST_ID })) as { engine: string; version: string }[];
    expect(listed.map((e) => `${e.engine}@${e.version}`)).toEqual(['sglang@0.5.3.post3']);

    const launched = (await core.call('servers:launch', {
      hostId: DEMO_LAB_HOST_ID,
      engine: 'sglang',
      version: '0.5.3.post3',
      config: { model: 'Qwen/Qwen3-0.6B' },
    })) as { serverId: string; port: number };
    await waitForEvent((m) => m.name === 'servers:state' && m.payload.serverId === launched.serverId && m.payload.state === 'ready');
    expect(events.some((m) => m.name === 'servers:log' && m.payload.serverId === launched.serverId && m.payload.text.includes('fired up'))).toBe(true);
    expect(await core.call('servers:list', {})).toEqual([expect.objectContaining({ serverId: launched.serverId, state: 'ready', port: launched.port })]);

    expect(await core.call('servers:stop', { serverId: launched.serverId })).toEqual({ portClosed: true, gpuMemoryReleased: true, leftovers: [] });
    expect(await core.call('servers:list', {})).toEqual([]);
  }, 60_000);

  it('rejects a bad version and an unknown server through the contract', async () => {
    await expect(core.call('engines:install', { hostId: DEMO_LAB_HOST_ID, engine: 'vllm', version: '1.0; rm -rf ~' })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(core.call('servers:stop', { serverId: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('lists servers recorded on the box and stops one an earlier session launched', async () => {
    const launched = (await core.call('servers:launch', {
      hostId: DEMO_LAB_HOST_ID,
      engine: 'sglang',
      version: '0.5.3.post3',
      config: { model: 'Qwen/Qwen3-0.6B' },
    })) as { serverId: string; port: number };
    await waitForEvent((m) => m.name === 'servers:state' && m.payload.serverId === launched.serverId && m.payload.state === 'ready');
    // A second core on the same data folder stands for the app started again: it did not launch this server.
    const later = await createCore({ dataDir, simboxBinDir: resolveSimboxBinDir(), userKnownHostsFiles: [] });
    try {
      const onBox = (await later.call('servers:onBox', { hostId: DEMO_LAB_HOST_ID })) as { serverId: string; running: boolean; inSession: boolean; model?: string }[];
      expect(onBox.find((s) => s.serverId === launched.serverId)).toMatchObject({ running: true, inSession: false, model: 'Qwen/Qwen3-0.6B' });
      // The first test's server was stopped: it is listed as not running.
      expect(onBox.filter((s) => s.serverId !== launched.serverId).every((s) => !s.running)).toBe(true);
      await expect(later.call('servers:stop', { serverId: launched.serverId })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/name its host/) });
      expect(await later.call('servers:stop', { serverId: launched.serverId, hostId: DEMO_LAB_HOST_ID })).toEqual({ portClosed: true, gpuMemoryReleased: true, leftovers: [] });
      const after = (await later.call('servers:onBox', { hostId: DEMO_LAB_HOST_ID })) as { serverId: string; running: boolean }[];
      expect(after.find((s) => s.serverId === launched.serverId)?.running).toBe(false);
    } finally {
      await later.close();
    }
    await core.call('servers:stop', { serverId: launched.serverId }).catch(() => {});
  }, 60_000);

  it('servers:stop of a record from before a reboot signals nothing, and servers:onBox lists it as not running', async () => {
    // The pgid in the record's job folder now belongs to an unrelated process of the same user.
    const victim = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    victim.unref();
    const victimPid = victim.pid as number;
    const home = join(dataDir, 'demo-lab', 'home');
    const jobId = '20200101T000000000Z-0badbee2';
    const jobDir = join(home, '.servelab', 'jobs', jobId);
    const serverId = 'srv-stale-0badbee2';
    await mkdir(jobDir, { recursive: true, mode: 0o700 });
    await writeFile(join(jobDir, 'boot'), 'an-earlier-boot\n');
    await writeFile(join(jobDir, 'pgid'), `${victimPid}\n`);
    await mkdir(join(home, '.servelab', 'servers', serverId), { recursive: true, mode: 0o700 });
    await writeFile(
      join(home, '.servelab', 'servers', serverId, 'server.json'),
      `${JSON.stringify({ serverId, hostId: DEMO_LAB_HOST_ID, engine: 'vllm', version: '0.11.0', port: 1, jobId, jobDir, command: 'vllm serve', startedAt: '2020-01-01T00:00:00.000Z', mode: 'env' })}\n`,
    );
    try {
      const onBox = (await core.call('servers:onBox', { hostId: DEMO_LAB_HOST_ID })) as { serverId: string; running: boolean }[];
      expect(onBox.find((s) => s.serverId === serverId)?.running).toBe(false);
      await core.call('servers:stop', { serverId, hostId: DEMO_LAB_HOST_ID }).catch(() => {});
      await new Promise((r) => setTimeout(r, 300));
      expect(() => process.kill(victimPid, 0)).not.toThrow();
    } finally {
      try {
        process.kill(victimPid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }, 60_000);
});
