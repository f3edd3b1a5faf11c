// A Slurm test cluster with its login node: a real sshd whose user's profile points the Slurm clients at the cluster,
// and an SSH box transport to it, as the app holds one for a host it added.
import { startSlurmCluster, type SlurmCluster, type SlurmClusterOptions } from './slurm';
import { startTestSshd, type TestSshd } from './sshd';
import { openTestSshBox } from './ssh-box';
import type { SshBoxTransport } from '../../src/core/box/ssh-box-transport';

export interface SlurmLoginLab {
  cluster: SlurmCluster;
  sshd: TestSshd;
  /** The login node over SSH. */
  ssh: SshBoxTransport;
  /** Closes the connection and stops the cluster and sshd. */
  stop(): Promise<void>;
}

export async function startSlurmLoginLab(options: SlurmClusterOptions): Promise<SlurmLoginLab> {
  // One after the other, so that whichever started is stopped when the next fails.
  const sshd = await startTestSshd({ nvidiaSmi: false });
  let cluster: SlurmCluster | undefined;
  try {
    cluster = await startSlurmCluster(options);
    await cluster.addToProfile(sshd.homeDir);
    const login = await openTestSshBox(sshd, 'login');
    const started = cluster;
    return {
      cluster: started,
      sshd,
      ssh: login.box,
      async stop() {
        await login.close();
        await Promise.all([started.stop(), sshd.stop()]);
      },
    };
  } catch (error) {
    await Promise.all([cluster?.stop(), sshd.stop()]);
    throw error;
  }
}
