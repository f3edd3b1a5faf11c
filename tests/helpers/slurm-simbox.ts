// A Slurm test cluster whose compute nodes are simulated GPU boxes: the login node and the jobs find the simbox's
// commands on the login user's PATH (as startSimboxOverSsh arranges it), and every job runs on its node's own box
// (own GPUs, GPU memory and processes) through a per-node SERVELAB_SIMBOX_HOME that the TaskProlog exports.
//
// The login node has no GPU, as a real one: its shells find no nvidia-smi. The simbox's nvidia-smi lives outside
// bin/ (in node-bin/), which only jobs find: the TaskProlog puts it on the PATH of the job's own script, and the
// profile adds it back in a job's login shells (Debian's /etc/profile sets PATH anew) when the TaskProlog's
// SERVELAB_SIMBOX_NODE says the shell runs on a compute node.
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startSlurmCluster, GPUS_PER_NODE, type SlurmCluster, type SlurmClusterOptions } from './slurm';
import { startTestSshd, type TestSshd } from './sshd';
import { openTestSshBox } from './ssh-box';
import { installSimboxHome } from './simbox-home';
import { shellQuote } from '../../src/shared/shell-quote';
import type { SshBoxTransport } from '../../src/core/box/ssh-box-transport';

export interface SlurmSimboxLabOptions extends SlurmClusterOptions {
  gpu: 'h100' | 'a100' | 'h200';
  /** GPUs of each node's box: the cluster's GRES count per node (the default). */
  gpusPerNode?: number;
  timeScale: number;
}

export interface SlurmSimboxLab {
  cluster: SlurmCluster;
  sshd: TestSshd;
  /** The login node over SSH (no GPU of its own). */
  ssh: SshBoxTransport;
  /** Runs `simbox <args>` on the login node with `node`'s box; resolves with its stdout, rejects when it fails. */
  simbox(node: string, args: string): Promise<string>;
  /** The state folder of `node`'s box (its SERVELAB_SIMBOX_HOME inside jobs). */
  stateDir(node: string): string;
  /** Closes the connection, stops the cluster (and its jobs' processes), removes the boxes and stops sshd. */
  stop(): Promise<void>;
}

export async function startSlurmSimboxLab(options: SlurmSimboxLabOptions): Promise<SlurmSimboxLab> {
  const { gpu, gpusPerNode = GPUS_PER_NODE, timeScale, ...clusterOptions } = options;
  if (gpusPerNode !== GPUS_PER_NODE) throw new Error(`gpusPerNode ${gpusPerNode}: the test cluster's nodes have GRES gpu:${GPUS_PER_NODE}`);
  const sshd = await startTestSshd({ nvidiaSmi: false });
  let cluster: SlurmCluster | undefined;
  let closeLogin: (() => Promise<void>) | undefined;
  const nodesDir = join(sshd.homeDir, 'simbox-nodes');
  const nodeBin = join(sshd.homeDir, 'simbox', 'node-bin');
  const stateDir = (node: string) => join(nodesDir, node);
  try {
    await installSimboxHome(sshd, {
      timeScale,
      extraProfile: 'if [ -n "${SERVELAB_SIMBOX_NODE:-}" ]; then PATH="$HOME/simbox/node-bin:$PATH"; fi\n',
    });
    await mkdir(nodeBin, { recursive: true });
    await rename(join(sshd.homeDir, 'simbox', 'bin', 'nvidia-smi'), join(nodeBin, 'nvidia-smi'));
    await mkdir(nodesDir, { recursive: true });
    if (sshd.dedicatedUser) spawnSync('chown', ['-R', `${sshd.user}:`, join(sshd.homeDir, 'simbox'), nodesDir]);
    cluster = await startSlurmCluster({
      ...clusterOptions,
      taskPrologExports: {
        ...clusterOptions.taskPrologExports,
        // SLURMD_NODENAME is in the task's environment, which the TaskProlog runs with (slurmstepd sets it for every
        // task; the suite checks that each node's jobs see their own box).
        SERVELAB_SIMBOX_NODE: '$SLURMD_NODENAME',
        SERVELAB_SIMBOX_HOME: stateDir('$SLURMD_NODENAME'),
        PATH: `${nodeBin}:$PATH`,
      },
    });
    await cluster.addToProfile(sshd.homeDir);
    const login = await openTestSshBox(sshd, 'login');
    closeLogin = login.close;
    const ssh = login.box;
    const simbox = async (node: string, args: string) => {
      const result = await ssh.run(`SERVELAB_SIMBOX_HOME=${shellQuote(stateDir(node))} simbox ${args}\n`, { timeoutSeconds: 30 });
      if (result.code !== 0) throw new Error(`simbox ${args} on ${node} failed (${result.code}): ${result.stderr}`);
      return result.stdout;
    };
    for (const node of cluster.nodes) await simbox(node.name, `config --gpu ${gpu} --count ${gpusPerNode} --time-scale ${timeScale}`);
    const started = cluster;
    let stopped = false;
    return {
      cluster: started,
      sshd,
      ssh,
      simbox,
      stateDir,
      async stop() {
        if (stopped) return;
        stopped = true;
        await login.close();
        await started.stop();
        // A simulated server that escaped the cluster's stop ends with its box (resources/simbox/lib/box-watch.mjs).
        await rm(nodesDir, { recursive: true, force: true });
        await sshd.stop();
      },
    };
  } catch (error) {
    await closeLogin?.();
    await cluster?.stop();
    await rm(nodesDir, { recursive: true, force: true });
    await sshd.stop();
    throw error;
  }
}
