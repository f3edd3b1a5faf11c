// A real sshd whose test user has the simulated GPU box first on PATH, and a box transport to it: the set-up of
// every suite that runs engines, benchmarks or studies over SSH.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'ssh2';
import { expect } from 'vitest';
import { startTestSshd, type TestSshd } from './sshd';
import { installSimboxHome } from './simbox-home';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import type { SshTarget } from '../../src/core/ssh/ssh-target';
import { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { EngineInstaller } from '../../src/core/engines/engine-installer';
import { launchServer, type RunningServer } from '../../src/core/engines/server-launcher';

export interface SimboxOverSsh {
  sshd: TestSshd;
  box: SshBoxTransport;
  /** A scratch folder on this machine, removed by stop(). */
  scratch: string;
  /** Runs `simbox <args>` on the box and expects it to succeed. */
  simbox(args: string): Promise<void>;
  /** Ends every job's process group left on the box, closes the connection, stops sshd. */
  stop(): Promise<void>;
}

export async function startSimboxOverSsh(opts: { hostId?: string; timeScale?: number; gpu?: string; extraProfile?: string } = {}): Promise<SimboxOverSsh> {
  const sshd = await startTestSshd({ nvidiaSmi: false });
  const scratch = await mkdtemp(join(tmpdir(), 'servelab-simbox-ssh-'));
  await installSimboxHome(sshd, { timeScale: opts.timeScale, extraProfile: opts.extraProfile });

  const knownHosts = new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] });
  const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
  await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
  const target: SshTarget = { host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile };
  let client: Client | undefined;
  let opening: Promise<Client> | undefined;
  const box = new SshBoxTransport({
    hostId: opts.hostId ?? 'simbox-ssh',
    target,
    pool: {
      provider: () => async () => {
        opening ??= openSshClient(target, { knownHosts, timeoutSeconds: 10 }).then((c) => (client = c));
        return opening;
      },
      release: () => {},
    },
  });
  const simbox = async (args: string) => {
    const result = await box.run(`simbox ${args}\n`, { timeoutSeconds: 30 });
    expect(result.code, result.stderr).toBe(0);
  };
  await simbox(`config --gpu ${opts.gpu ?? 'h100'} --count 1`);

  return {
    sshd,
    box,
    scratch,
    simbox,
    async stop() {
      // A test that failed half-way may leave a server running: end every job's process group.
      const jobsDir = join(sshd.homeDir, '.servelab', 'jobs');
      for (const id of await readdir(jobsDir).catch(() => [] as string[])) {
        const pgid = Number((await readFile(join(jobsDir, id, 'pgid'), 'utf8').catch(() => '')).trim());
        if (Number.isInteger(pgid) && pgid > 1) {
          try {
            process.kill(-pgid, 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
      box.release();
      client?.end();
      await sshd.stop();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** vLLM 0.11.0 installed on the box and a Qwen3-8B server launched and ready: what benchmark suites measure against. */
export async function launchReadyVllm(box: SshBoxTransport): Promise<RunningServer> {
  const install = await new EngineInstaller(box).start('vllm', '0.11.0');
  expect((await install.done).ok).toBe(true);
  const server = await launchServer(box, { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-8B' } });
  await server.waitReady(120_000);
  return server;
}
