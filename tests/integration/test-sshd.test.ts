import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { startTestSshd } from '../helpers/sshd';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { collectInventoryOverSsh } from '../../src/core/inventory/collect-over-ssh';
import { ServelabError } from '../../src/shared/contract';

describe('the test sshd helper', () => {
  it('starts without nvidia-smi when asked, and stop() cleans up everything, twice over', async () => {
    const sshd = await startTestSshd({ nvidiaSmi: false });
    const publicKey = readFileSync(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8').split(' ')[1] as string;
    expect(execFileSync('ssh-keygen', ['-lf', join(sshd.dir, 'ssh_host_ed25519_key.pub')], { encoding: 'utf8' })).toContain(sshd.hostKeyFingerprint);
    const knownHosts = new KnownHostsStore({ appFile: join(sshd.dir, 'client_known_hosts'), readOnlyFiles: [] });
    await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
    const target = { host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile };

    const bare = await collectInventoryOverSsh(target, { knownHosts, timeoutSeconds: 10 });
    expect(bare.gpuStatus).toBe('no-nvidia-smi');
    await sshd.installNvidiaSmi();
    expect((await collectInventoryOverSsh(target, { knownHosts, timeoutSeconds: 10 })).gpuStatus).toBe('ok');

    // Keep a client key outside the helper's folder to show afterwards that nothing listens any more.
    const keep = await mkdtemp(join(tmpdir(), 'servelab-keep-'));
    await copyFile(sshd.identityFile, join(keep, 'id'));
    await copyFile(knownHosts.writableFile, join(keep, 'known_hosts'));

    await sshd.stop();
    await sshd.stop();
    expect(existsSync(sshd.dir)).toBe(false);
    if (sshd.dedicatedUser) expect(readFileSync('/etc/passwd', 'utf8')).not.toContain(`${sshd.user}:`);
    try {
      const after = new KnownHostsStore({ appFile: join(keep, 'known_hosts'), readOnlyFiles: [] });
      const error = await collectInventoryOverSsh({ ...target, identityFile: join(keep, 'id') }, { knownHosts: after, timeoutSeconds: 5 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServelabError);
      expect((error as ServelabError).code).toBe('CONNECT_FAILED');
    } finally {
      await rm(keep, { recursive: true, force: true });
    }
  });
});
