// The built-in demo lab: the simulated GPU box run through the local transport, present on first start,
// removable and restorable, and added to hosts files written by earlier versions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { DEMO_LAB_LABEL } from '../../src/core/box/demo-lab';
import type { EventMessage } from '../../src/shared/contract';
import { DEMO_LAB_HOST_ID, type Host, type HostStateEvent } from '../../src/shared/model/host';
import { InventorySchema } from '../../src/shared/model/inventory';
import { repoRoot } from '../helpers/repo';

let scratch: string;
const simboxBinDir = resolveSimboxBinDir();

function ok<T>(envelope: { ok: boolean; data?: unknown; error?: { code: string; message: string } }): T {
  if (!envelope.ok) throw new Error(`${envelope.error!.code}: ${envelope.error!.message}`);
  return envelope.data as T;
}

async function newCore(dataDir: string, withSimbox = true): Promise<{ core: Core; events: EventMessage[] }> {
  const core = await createCore({ dataDir, userKnownHostsFiles: [], env: { HOME: scratch, USER: 'tester' }, simboxBinDir: withSimbox ? simboxBinDir : null });
  const events: EventMessage[] = [];
  core.events.subscribe((e) => events.push(e));
  return { core, events };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'servelab-demo-lab-'));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the demo lab', () => {
  it('is found in the repository from the sources', () => {
    expect(simboxBinDir).toBe(join(repoRoot, 'resources', 'simbox', 'bin'));
  });

  it('is there on first start and inventories as one simulated H100, set up on first use', { timeout: 60_000 }, async () => {
    const dataDir = await mkdtemp(join(scratch, 'fresh-'));
    const { core, events } = await newCore(dataDir);
    try {
      const hosts = ok<Host[]>(await core.dispatch('hosts:list', {}));
      expect(hosts).toEqual([expect.objectContaining({ id: DEMO_LAB_HOST_ID, kind: 'demo', label: DEMO_LAB_LABEL })]);
      expect(JSON.parse(readFileSync(join(dataDir, 'hosts.json'), 'utf8'))).toMatchObject({ schemaVersion: 3, hosts: [{ id: DEMO_LAB_HOST_ID }] });
      expect(existsSync(join(dataDir, 'demo-lab', 'simbox', 'simbox.json'))).toBe(false);

      const started = Date.now();
      const inventory = InventorySchema.parse(ok(await core.dispatch('hosts:inventory', { hostId: DEMO_LAB_HOST_ID })));
      console.log(`demo lab: first inventory (with setup) took ${Date.now() - started} ms`);
      expect(inventory).toMatchObject({ hostId: DEMO_LAB_HOST_ID, simulated: true, gpuStatus: 'ok', driverVersion: '580.159.04', cudaVersion: '13.0' });
      expect(inventory.gpus).toHaveLength(1);
      expect(inventory.gpus[0]).toMatchObject({ index: 0, name: 'NVIDIA H100 80GB HBM3', memoryTotalMiB: 81559, computeCapability: '9.0' });
      expect(inventory.disk.path).toBe(join(dataDir, 'demo-lab', 'home'));
      expect(JSON.parse(readFileSync(join(dataDir, 'demo-lab', 'simbox', 'simbox.json'), 'utf8'))).toMatchObject({ gpu: 'h100', count: 1 });
      expect(events.some((e) => e.name === 'hosts:state' && e.payload.hostId === DEMO_LAB_HOST_ID && e.payload.state === 'failed')).toBe(false);
    } finally {
      await core.close();
    }
  });

  it('keeps its own configuration after the first use', { timeout: 60_000 }, async () => {
    const dataDir = await mkdtemp(join(scratch, 'configured-'));
    const { core } = await newCore(dataDir);
    try {
      const box = await core.box(DEMO_LAB_HOST_ID);
      try {
        expect(box.kind).toBe('local');
        expect((await box.run('simbox config --count 2 >/dev/null && nvidia-smi -L', { timeoutSeconds: 30 })).stdout).toMatch(/^GPU 1: NVIDIA H100 80GB HBM3/m);
      } finally {
        box.release();
      }
      const inventory = InventorySchema.parse(ok(await core.dispatch('hosts:inventory', { hostId: DEMO_LAB_HOST_ID })));
      expect(inventory.gpus).toHaveLength(2);
    } finally {
      await core.close();
    }
  });

  it('connects at once, logs that it is local and simulated, and has no host key', async () => {
    const { core, events } = await newCore(await mkdtemp(join(scratch, 'connect-')));
    try {
      expect(ok<HostStateEvent[]>(await core.dispatch('hosts:states', {}))).toEqual([{ hostId: DEMO_LAB_HOST_ID, state: 'idle', held: false }]);
      expect(ok<HostStateEvent>(await core.dispatch('hosts:connect', { hostId: DEMO_LAB_HOST_ID }))).toEqual({ hostId: DEMO_LAB_HOST_ID, state: 'ready', held: true });
      expect(events).toContainEqual({ name: 'hosts:state', payload: { hostId: DEMO_LAB_HOST_ID, state: 'ready', held: true } });
      const log = ok<{ entries: { message: string }[] }>(await core.dispatch('hosts:connectionLog', { hostId: DEMO_LAB_HOST_ID }));
      const text = log.entries.map((e) => e.message).join('\n');
      expect(text).toMatch(/simulated/);
      expect(text).toMatch(/local/);
      expect(text).toMatch(/no SSH/);
      const fingerprint = `SHA256:${'A'.repeat(43)}`;
      expect(await core.dispatch('hosts:acceptHostKey', { hostId: DEMO_LAB_HOST_ID, fingerprint })).toMatchObject({ ok: false, error: { code: 'NOT_SUPPORTED' } });
      expect(await core.dispatch('hosts:replaceHostKey', { hostId: DEMO_LAB_HOST_ID, fingerprint })).toMatchObject({ ok: false, error: { code: 'NOT_SUPPORTED' } });
      expect(ok<HostStateEvent>(await core.dispatch('hosts:disconnect', { hostId: DEMO_LAB_HOST_ID }))).toEqual({ hostId: DEMO_LAB_HOST_ID, state: 'idle', held: false });
    } finally {
      await core.close();
    }
  });

  it('can be renamed but has no SSH settings to edit', async () => {
    const { core } = await newCore(await mkdtemp(join(scratch, 'edit-')));
    try {
      expect(ok<Host>(await core.dispatch('hosts:update', { hostId: DEMO_LAB_HOST_ID, label: 'My demo' }))).toMatchObject({ label: 'My demo', kind: 'demo' });
      expect(await core.dispatch('hosts:update', { hostId: DEMO_LAB_HOST_ID, address: 'gpu-1', port: 22 })).toMatchObject({
        ok: false,
        error: { code: 'BAD_INPUT', issues: [{ path: 'address' }, { path: 'port' }] },
      });
    } finally {
      await core.close();
    }
  });

  it('stays removed across restarts until restored', async () => {
    const dataDir = await mkdtemp(join(scratch, 'remove-'));
    const first = await newCore(dataDir);
    try {
      expect(ok<{ removed: boolean }>(await first.core.dispatch('hosts:remove', { hostId: DEMO_LAB_HOST_ID })).removed).toBe(true);
      expect(ok<Host[]>(await first.core.dispatch('hosts:list', {}))).toEqual([]);
      expect(first.events).toContainEqual({ name: 'hosts:changed', payload: { hosts: [] } });
    } finally {
      await first.core.close();
    }
    const second = await newCore(dataDir);
    try {
      expect(ok<Host[]>(await second.core.dispatch('hosts:list', {}))).toEqual([]);
      expect(await second.core.dispatch('hosts:inventory', { hostId: DEMO_LAB_HOST_ID })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
      const restored = ok<Host>(await second.core.dispatch('hosts:restoreDemoLab', {}));
      expect(restored).toMatchObject({ id: DEMO_LAB_HOST_ID, kind: 'demo', label: DEMO_LAB_LABEL });
      expect(ok<Host[]>(await second.core.dispatch('hosts:list', {}))).toEqual([restored]);
      expect(second.events.some((e) => e.name === 'hosts:changed' && e.payload.hosts.some((h) => h.id === DEMO_LAB_HOST_ID))).toBe(true);
      // Restoring what is there changes nothing.
      expect(ok<Host>(await second.core.dispatch('hosts:restoreDemoLab', {}))).toEqual(restored);
    } finally {
      await second.core.close();
    }
    const third = await newCore(dataDir);
    try {
      expect(ok<Host[]>(await third.core.dispatch('hosts:list', {})).map((h) => h.id)).toEqual([DEMO_LAB_HOST_ID]);
    } finally {
      await third.core.close();
    }
  });

  it('joins the hosts of a version 2 file, which migrates to version 3 with a backup', async () => {
    const dataDir = await mkdtemp(join(scratch, 'v2-'));
    const v2 = {
      schemaVersion: 2,
      hosts: [
        {
          id: 'a1',
          label: 'h200 box',
          alias: null,
          address: 'gpu-1.lab',
          port: 22,
          user: 'ml',
          identityFile: '~/.ssh/id_ed25519',
          proxyJump: 'bastion',
          hasSavedPassword: false,
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-02T00:00:00.000Z',
        },
      ],
    };
    await writeFile(join(dataDir, 'hosts.json'), JSON.stringify(v2));
    const { core } = await newCore(dataDir);
    try {
      const hosts = ok<Host[]>(await core.dispatch('hosts:list', {}));
      expect(hosts).toEqual([{ ...v2.hosts[0], kind: 'ssh' }, expect.objectContaining({ id: DEMO_LAB_HOST_ID, kind: 'demo' })]);
      expect(JSON.parse(await readFile(join(dataDir, 'hosts.json.v2.bak'), 'utf8'))).toEqual(v2);
      expect(JSON.parse(await readFile(join(dataDir, 'hosts.json'), 'utf8'))).toMatchObject({ schemaVersion: 3, hosts: [{ id: 'a1', kind: 'ssh' }, { id: DEMO_LAB_HOST_ID }] });
    } finally {
      await core.close();
    }
  });

  it('is not offered by a core without the simulated box', async () => {
    const { core } = await newCore(await mkdtemp(join(scratch, 'no-simbox-')), false);
    try {
      expect(ok<Host[]>(await core.dispatch('hosts:list', {}))).toEqual([]);
      expect(await core.dispatch('hosts:restoreDemoLab', {})).toMatchObject({ ok: false, error: { code: 'NOT_SUPPORTED' } });
    } finally {
      await core.close();
    }
  });
});

describe('the demo box for engines and benchmarks', () => {
  it('runs detached jobs in its own HOME with the simulated tools on PATH', { timeout: 60_000 }, async () => {
    const dataDir = await mkdtemp(join(scratch, 'jobs-'));
    const { core } = await newCore(dataDir);
    try {
      const box = await core.box(DEMO_LAB_HOST_ID);
      const handle = await box.jobs().start({ command: ['sh', '-c', 'echo "home=$HOME"; nvidia-smi -L; exit 3'], label: 'demo job' });
      expect(handle.remoteDir).toBe(join(dataDir, 'demo-lab', 'home', '.servelab', 'jobs', handle.id));
      let text = '';
      expect(await handle.stream((chunk) => (text += chunk))).toBe(3);
      expect(text).toContain(`home=${join(dataDir, 'demo-lab', 'home')}\n`);
      expect(text).toMatch(/^GPU 0: NVIDIA H100 80GB HBM3 \(UUID: GPU-[0-9a-f-]+\)$/m);
      expect(text).toContain('SERVELAB-SIMULATED');
      expect((await core.jobRegistry()).get(handle.id)).toMatchObject({ hostId: DEMO_LAB_HOST_ID, state: 'exited', exitCode: 3, label: 'demo job' });
      box.release();
      await expect(box.run('true', { timeoutSeconds: 5 })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    } finally {
      await core.close();
    }
  });
});
