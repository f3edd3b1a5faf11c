// An SSH box transport to a test sshd, trusting its host key, as the app would hold one after adding the host.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { SshConnectionPool } from '../../src/core/ssh/connection-pool';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import type { TestSshd } from './sshd';

export interface TestSshBox {
  box: SshBoxTransport;
  /** Releases the transport, closes the connection and removes the known_hosts folder. */
  close(): Promise<void>;
}

export async function openTestSshBox(sshd: TestSshd, hostId: string): Promise<TestSshBox> {
  const scratch = await mkdtemp(join(tmpdir(), 'servelab-ssh-box-'));
  const knownHosts = new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] });
  const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
  await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
  const pool = new SshConnectionPool({ knownHosts, timeoutSeconds: 10 });
  const box = new SshBoxTransport({ hostId, pool, target: { host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile } });
  return {
    box,
    async close() {
      box.release();
      await pool.closeAll();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
