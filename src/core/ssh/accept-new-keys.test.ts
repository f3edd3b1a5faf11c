import { describe, it, expect, afterEach } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { ServelabError } from '../../shared/contract';
import { hostKeyName, hostKeyPlace, KnownHostsStore } from './known-hosts';
import { acceptingNewKeys } from './accept-new-keys';

function ed25519Base64(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const str = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return Buffer.concat([str(Buffer.from('ssh-ed25519')), str(raw)]).toString('base64');
}

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('acceptingNewKeys (the CLI --accept-new)', () => {
  it('stores a HostKeyAlias host under the alias, without the port, and connects again', async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-accept-'));
    const store = new KnownHostsStore({ appFile: join(dir, 'known_hosts'), readOnlyFiles: [] });
    const publicKey = ed25519Base64();
    let calls = 0;
    const names: string[] = [];
    const result = await acceptingNewKeys({ host: '10.0.0.5', port: 2222, user: 'u' }, store, { acceptNew: true, onAccepted: (_key, name) => names.push(name) }, async () => {
      calls++;
      if (calls === 1) {
        throw new ServelabError('HOST_KEY_UNKNOWN', 'unknown', {
          details: { host: '10.0.0.5', port: 2222, keyType: 'ssh-ed25519', publicKey, fingerprint: 'SHA256:x', hostKeyAlias: 'gpu-alias' },
        });
      }
      return 'connected';
    });
    expect(result).toBe('connected');
    expect(names).toEqual(['gpu-alias']);
    expect(await readFile(join(dir, 'known_hosts'), 'utf8')).toBe(`gpu-alias ssh-ed25519 ${publicKey}\n`);
  });

  it('names the place a key is stored, and the name it has there', () => {
    expect(hostKeyPlace({ host: 'h', port: 2222 })).toEqual({ host: 'h', port: 2222 });
    expect(hostKeyPlace({ host: 'h', port: 2222, hostKeyAlias: 'a' })).toEqual({ host: 'a', port: 22 });
    expect(hostKeyName({ host: 'H', port: 2222 })).toBe('[h]:2222');
    expect(hostKeyName({ host: 'h', port: 22 })).toBe('h');
    // ssh lowercases the alias and ignores the port (ssh.c, sshconnect.c at V_9_2_P1).
    expect(hostKeyName({ host: 'h', port: 2222, hostKeyAlias: 'GPU-Alias' })).toBe('gpu-alias');
  });

  it('refuses a HostKeyAlias that known_hosts cannot hold, naming it, and stores nothing', async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-accept-'));
    const store = new KnownHostsStore({ appFile: join(dir, 'known_hosts'), readOnlyFiles: [] });
    const unknown = new ServelabError('HOST_KEY_UNKNOWN', 'unknown', {
      details: { host: 'h', port: 22, keyType: 'ssh-ed25519', publicKey: ed25519Base64(), fingerprint: 'SHA256:x', hostKeyAlias: 'gpu box/1' },
    });
    const error = await acceptingNewKeys({ host: 'h', port: 22, user: 'u' }, store, { acceptNew: true }, () => Promise.reject(unknown)).catch((e: unknown) => e as ServelabError);
    expect(error).toBeInstanceOf(ServelabError);
    expect(error.code).toBe('BAD_INPUT');
    expect(error.message).toContain('HostKeyAlias "gpu box/1"');
    expect(error.issues).toEqual([{ path: 'hostKeyAlias', message: expect.any(String) as string }]);
    await expect(readFile(join(dir, 'known_hosts'), 'utf8')).rejects.toThrow();
  });
});
