// A user and key chosen by a `Match` block are the ones the real connection logs in with, on both ways of
// resolving a host (ssh -G and the built-in reader): sshd's own log names the user and the key's fingerprint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../../src/core/create-core';
import { MemorySecretStore } from '../../src/core/secrets/secret-store';
import { startTestSshd, type TestSshd } from '../helpers/sshd';

let sshd: TestSshd;
let home: string;
let decoyKey: string;

function fingerprint(keyFile: string): string {
  const out = spawnSync('ssh-keygen', ['-lf', keyFile], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(out.stderr);
  return out.stdout.split(' ')[1] as string;
}

beforeAll(async () => {
  sshd = await startTestSshd();
  home = await mkdtemp(join(tmpdir(), 'servelab-match-home-'));
  await mkdir(join(home, '.ssh'), { mode: 0o700 });
  // A key the server does not know: what the Host block alone would log in with.
  decoyKey = join(home, '.ssh', 'id_decoy');
  const keygen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', decoyKey], { encoding: 'utf8' });
  if (keygen.status !== 0) throw new Error(keygen.stderr);
  await writeFile(
    join(home, '.ssh', 'config'),
    [
      'Host gpu-box',
      '  HostName 127.0.0.1',
      `  Port ${sshd.port}`,
      // First value wins: this Match comes before the Host block below, so its User and IdentityFile are the ones
      // that apply, but only when its every criterion holds: `host` is the HostName set above, the exec runs
      // through the user's shell with the Port set above, as ssh runs it.
      `Match originalhost gpu-box,gpu-box-alt host 127.0.0.1 exec "test %p = ${sshd.port}"`,
      `  User ${sshd.user}`,
      `  IdentityFile ${sshd.identityFile}`,
      '  IdentitiesOnly yes',
      'Match originalhost !gpu-box',
      '  User someone-else',
      'Host gpu-box',
      '  User nobody-here',
      `  IdentityFile ${decoyKey}`,
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await sshd?.stop();
  await rm(home, { recursive: true, force: true });
});

describe.each(['ssh', 'built-in'] as const)('a Match block resolved by %s', (resolver) => {
  it('decides the user and the key sshd sees', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'servelab-match-data-'));
    const core = await createCore({
      dataDir,
      secrets: new MemorySecretStore(),
      userKnownHostsFiles: [],
      sshConfigPath: join(home, '.ssh', 'config'),
      env: { HOME: home, USER: 'tester', PATH: process.env.PATH ?? '/usr/bin:/bin', SERVELAB_SSH_RESOLVER: resolver },
      connectTimeoutSeconds: 10,
    });
    try {
      const added = await core.dispatch('hosts:add', { alias: 'gpu-box' });
      if (!added.ok) throw new Error(added.error.message);
      const hostId = (added.data as { id: string }).id;
      const resolved = await core.dispatch('hosts:resolve', { hostId });
      if (!resolved.ok) throw new Error(resolved.error.message);
      expect(resolved.data).toMatchObject({ user: sshd.user, identityFiles: [sshd.identityFile, decoyKey], identitiesOnly: true, source: resolver === 'ssh' ? 'ssh -G' : 'built-in' });

      // The first connection meets an unknown host key; accepting it is the user's explicit decision.
      const first = await core.dispatch('hosts:connect', { hostId });
      if (!first.ok && first.error.code === 'HOST_KEY_UNKNOWN') {
        const key = first.error.details as { host: string; port: number; keyType: string; publicKey: string; fingerprint: string };
        const accepted = await core.dispatch('hosts:acceptHostKey', { hostId, fingerprint: key.fingerprint });
        if (!accepted.ok) throw new Error(accepted.error.message);
        const again = await core.dispatch('hosts:connect', { hostId });
        if (!again.ok) throw new Error(again.error.message);
      } else if (!first.ok) {
        throw new Error(first.error.message);
      }
      const accepted = new RegExp(`Accepted publickey for ${sshd.user} from 127\\.0\\.0\\.1 port \\d+ ssh2: ED25519 ${fingerprint(sshd.identityFile).replace(/[+/]/g, (c) => `\\${c}`)}`);
      expect(sshd.log()).toMatch(accepted);
      expect(sshd.log()).not.toContain('nobody-here');
      expect(sshd.log()).not.toContain(fingerprint(decoyKey));
    } finally {
      await core.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
