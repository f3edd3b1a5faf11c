import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOSTS_FILE_VERSION, HostStore } from './host-store';

const newHost = {
  kind: 'ssh' as const,
  label: 'h200',
  alias: null,
  address: 'gpu1.lab',
  port: 22,
  user: 'ubuntu',
  identityFile: '~/.ssh/id_ed25519',
  proxyJump: null,
  hasSavedPassword: false,
};

function tempFile(content?: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'servelab-hosts-')), 'hosts.json');
  if (content !== undefined) writeFileSync(path, content);
  return path;
}

describe('HostStore', () => {
  it('persists added, updated and removed hosts as versioned JSON', async () => {
    const path = tempFile();
    const store = await HostStore.open(path);
    const host = await store.add(newHost);
    await store.update(host.id, { port: 2222, proxyJump: 'bastion' });
    const reopened = await HostStore.open(path);
    expect(reopened.list()).toEqual([expect.objectContaining({ id: host.id, port: 2222, proxyJump: 'bastion' })]);
    expect(JSON.parse(readFileSync(path, 'utf8')).schemaVersion).toBe(HOSTS_FILE_VERSION);
    expect(await reopened.remove(host.id)).toBe(true);
    expect((await HostStore.open(path)).list()).toEqual([]);
  });

  it('loads a file written before hosts could be clusters unchanged, and keeps a cluster mark', async () => {
    const before = {
      schemaVersion: 3,
      hosts: [{ ...newHost, id: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' }],
      removedBuiltIns: [],
    };
    const text = JSON.stringify(before);
    const path = tempFile(text);
    const store = await HostStore.open(path);
    expect(store.problem).toBeNull();
    expect(store.list()).toEqual(before.hosts);
    expect(readFileSync(path, 'utf8')).toBe(text);
    await store.update('a', { scheduler: 'slurm' });
    expect((await HostStore.open(path)).get('a').scheduler).toBe('slurm');
  });

  it('names the field of a scheduler it does not know', async () => {
    const path = tempFile(JSON.stringify({ schemaVersion: 3, hosts: [{ ...newHost, id: 'a', scheduler: 'pbs', createdAt: 'x', updatedAt: 'x' }] }));
    expect((await HostStore.open(path)).problem).toMatch(/hosts\.0\.scheduler/);
  });

  it('keeps the hosts two stores (two processes) add to one file', async () => {
    const path = tempFile();
    const app = await HostStore.open(path);
    const cli = await HostStore.open(path);
    const a = await app.add({ ...newHost, label: 'a' });
    const b = await cli.add({ ...newHost, label: 'b' });
    await app.update(a.id, { port: 2200 });
    const c = await app.add({ ...newHost, label: 'c' });
    expect((await HostStore.open(path)).list().map((h) => h.label).sort()).toEqual(['a', 'b', 'c']);
    expect(app.list().map((h) => h.id).sort()).toEqual([a.id, b.id, c.id].sort());
    expect(await cli.remove(a.id)).toBe(true);
    expect((await HostStore.open(path)).list().map((h) => h.label).sort()).toEqual(['b', 'c']);
  });

  it('migrates a version 1 file, keeping a copy of the original', async () => {
    const v1 = {
      schemaVersion: 1,
      hosts: [
        { id: 'a', label: 'key box', address: 'k.lab', port: 22, user: 'u', auth: { method: 'key', identityFile: '~/.ssh/k' }, createdAt: '2026-01-01T00:00:00Z' },
        { id: 'b', label: 'pw box', address: 'p.lab', port: 2200, user: 'v', auth: { method: 'password', hasSavedPassword: true }, createdAt: '2026-01-02T00:00:00Z' },
      ],
    };
    const path = tempFile(JSON.stringify(v1));
    const store = await HostStore.open(path);
    expect(store.problem).toBeNull();
    expect(store.list()).toEqual([
      expect.objectContaining({ id: 'a', identityFile: '~/.ssh/k', hasSavedPassword: false, alias: null, proxyJump: null }),
      expect.objectContaining({ id: 'b', identityFile: null, hasSavedPassword: true, port: 2200 }),
    ]);
    expect(JSON.parse(readFileSync(`${path}.v1.bak`, 'utf8'))).toEqual(v1);
    expect(JSON.parse(readFileSync(path, 'utf8')).schemaVersion).toBe(HOSTS_FILE_VERSION);
    expect(store.list().every((h) => h.kind === 'ssh')).toBe(true);
  });

  it('migrates a version 2 file: every host becomes an ssh host, the original is kept', async () => {
    const v2 = {
      schemaVersion: 2,
      hosts: [{ ...newHost, kind: undefined, id: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z' }],
    };
    const path = tempFile(JSON.stringify(v2));
    const store = await HostStore.open(path);
    expect(store.problem).toBeNull();
    expect(store.list()).toEqual([{ ...newHost, kind: 'ssh', id: 'a', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z' }]);
    expect(JSON.parse(readFileSync(`${path}.v2.bak`, 'utf8'))).toEqual(JSON.parse(JSON.stringify(v2)));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ schemaVersion: 3, hosts: [{ id: 'a', kind: 'ssh' }], removedBuiltIns: [] });
  });

  it('adds a built-in host once, remembers that the user removed it, and restores it', async () => {
    const path = tempFile();
    const demo = { ...newHost, kind: 'demo' as const, id: 'demo-lab', label: 'Demo', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' };
    const store = await HostStore.open(path);
    expect(await store.ensureBuiltIn(demo)).toMatchObject({ id: 'demo-lab' });
    expect(await store.ensureBuiltIn({ ...demo, label: 'other' })).toMatchObject({ label: 'Demo' });
    expect(await store.remove('demo-lab')).toBe(true);
    const reopened = await HostStore.open(path);
    expect(reopened.isRemovedBuiltIn('demo-lab')).toBe(true);
    expect(await reopened.ensureBuiltIn(demo)).toBeNull();
    expect(reopened.list()).toEqual([]);
    expect(await reopened.restoreBuiltIn(demo)).toMatchObject({ id: 'demo-lab', kind: 'demo' });
    const again = await HostStore.open(path);
    expect(again.isRemovedBuiltIn('demo-lab')).toBe(false);
    expect(again.list().map((h) => h.id)).toEqual(['demo-lab']);
  });

  it('leaves a damaged file untouched, names the field, and refuses changes', async () => {
    const damaged = JSON.stringify({ schemaVersion: 2, hosts: [{ id: 'a', label: 'x', port: 'twenty-two' }] });
    const path = tempFile(damaged);
    const store = await HostStore.open(path);
    expect(store.problem).toMatch(/hosts\.0\.port/);
    expect(store.list()).toEqual([]);
    await expect(store.add(newHost)).rejects.toThrow(/cannot be changed until/);
    expect(readFileSync(path, 'utf8')).toBe(damaged);
  });

  it('refuses a file from a newer version by its version number', async () => {
    const path = tempFile(JSON.stringify({ schemaVersion: 99, hosts: [] }));
    const store = await HostStore.open(path);
    expect(store.problem).toMatch(/newer Servelab \(schemaVersion 99\)/);
    expect(existsSync(`${path}.v99.bak`)).toBe(false);
  });

  it('says so when the file is not JSON', async () => {
    const store = await HostStore.open(tempFile('{ nope'));
    expect(store.problem).toMatch(/not valid JSON/);
  });
});
