import { describe, it, expect } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KnownHostsStore } from './known-hosts';
import { keepsNoHostKeys, KEPT_IN_MEMORY, SessionKnownHosts } from './session-known-hosts';

// Two distinct ed25519 public key blobs (type string, then 32 key bytes).
const blob = (fill: number) => {
  const type = Buffer.from('ssh-ed25519');
  const key = Buffer.alloc(32, fill);
  const header = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return Buffer.concat([header(type), header(key)]);
};

describe('keepsNoHostKeys', () => {
  it('is true only for none or /dev/null alone', () => {
    expect(keepsNoHostKeys(['/dev/null'])).toBe(true);
    expect(keepsNoHostKeys([])).toBe(true);
    expect(keepsNoHostKeys(['/dev/null', '/home/me/.ssh/known_hosts'])).toBe(false);
    expect(keepsNoHostKeys(undefined)).toBe(false);
  });
});

describe('SessionKnownHosts', () => {
  it('keeps accepted keys per app file in memory, reads the global files, and reports a key that changed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servelab-session-kh-'));
    const global = join(dir, 'ssh_known_hosts');
    await writeFile(global, `listed ssh-ed25519 ${blob(3).toString('base64')}\n`);
    const base = new KnownHostsStore({ appFile: join(dir, 'app_known_hosts'), readOnlyFiles: [] });
    const view = new SessionKnownHosts(base, [global]);
    expect(await view.checkName('listed', 'ssh-ed25519', blob(3))).toEqual({ status: 'known' });
    expect((await view.checkName('spot', 'ssh-ed25519', blob(1))).status).toBe('unknown');
    await view.add({ host: 'spot', port: 22, keyType: 'ssh-ed25519', publicKey: blob(1).toString('base64') });
    // Another view of the same app file sees it; one of another app file does not.
    expect(await new SessionKnownHosts(base, []).checkName('spot', 'ssh-ed25519', blob(1))).toEqual({ status: 'known' });
    const other = new KnownHostsStore({ appFile: join(dir, 'other_known_hosts'), readOnlyFiles: [] });
    expect((await new SessionKnownHosts(other, []).checkName('spot', 'ssh-ed25519', blob(1))).status).toBe('unknown');
    const changed = await view.checkName('spot', 'ssh-ed25519', blob(2));
    expect(changed).toMatchObject({ status: 'changed', expected: [{ keyType: 'ssh-ed25519', file: KEPT_IN_MEMORY }] });
    await view.replace({ host: 'spot', port: 22, keyType: 'ssh-ed25519', publicKey: blob(2).toString('base64') });
    expect(await view.checkName('spot', 'ssh-ed25519', blob(2))).toEqual({ status: 'known' });
    expect(await view.knownKeyTypesNamed('spot')).toEqual(['ssh-ed25519']);
  });
});
