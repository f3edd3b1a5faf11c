// The two-node Slurm test cluster with a simulated GPU box per compute node (tests/helpers/slurm-simbox.ts): jobs see
// their node's GPUs, Slurm hands 1-GPU jobs different CUDA_VISIBLE_DEVICES, and an engine installed from the login node
// serves inside a job on one node's GPUs only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/shared/shell-quote';
import { EngineInstaller } from '../../src/core/engines/engine-installer';
import { slurmUnavailable, TEST_GPU_TYPE } from '../helpers/slurm';
import { startSlurmSimboxLab, type SlurmSimboxLab } from '../helpers/slurm-simbox';

const options = { nodes: 2, accounting: false } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[slurm-simbox-lab] skipped: ${unavailable}\n`);

// GPU name and memory of the simulated A100 (resources/simbox/README.md, "GPUs").
const A100 = 'NVIDIA A100-SXM4-80GB';

describe.skipIf(unavailable !== null)('Slurm cluster whose nodes are simulated GPU boxes', () => {
  let lab: SlurmSimboxLab;

  const run = async (script: string) => {
    const result = await lab.ssh.run(script, { timeoutSeconds: 60 });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    return result.stdout;
  };
  /** Submits `script` as a batch job of the login user; returns its id. */
  const sbatch = async (args: string, script: string) => {
    const out = await run(`mkdir -p "$HOME/out" && sbatch --parsable ${args} -o "$HOME/out/%j.out" --wrap ${shellQuote(script)}\n`);
    // The last line: the login profile may print before it.
    return (out.trim().split('\n').pop() as string).split(';')[0] as string;
  };
  /** The job's output once it has a line matching `until`, or without `until` once the job has left the queue. */
  const output = async (jobId: string, until?: RegExp, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const text = await run(`cat "$HOME/out/${jobId}.out" 2>/dev/null; echo "--queue $(squeue -h -j ${jobId} -o %T 2>/dev/null)"\n`);
      const [body, queue] = text.split(/^--queue /m) as [string, string];
      if (until ? until.test(body) : queue.trim() === '') return body;
      if (Date.now() > deadline) throw new Error(`job ${jobId} did not ${until ? `print ${until}` : 'end'} within ${timeoutMs / 1000} s: ${body}\n${lab.cluster.logs()}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };

  beforeAll(async () => {
    lab = await startSlurmSimboxLab({ ...options, gpu: 'a100', timeScale: 0.01 });
  }, 120_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('the login node has the simbox commands but no GPU', async () => {
    const out = await run('command -v python3; command -v nvidia-smi || echo "no nvidia-smi"; echo "box=$SERVELAB_SIMBOX_HOME"\n');
    expect(out).toContain(`${lab.sshd.homeDir}/simbox/bin/python3`);
    expect(out).toContain('no nvidia-smi');
    expect(out).toContain(`box=${lab.sshd.homeDir}/.servelab-simbox`);
  });

  it("a batch job on each node sees its node's simulated GPUs, also through sh -l", async () => {
    const script = [
      'echo "box=$SERVELAB_SIMBOX_HOME"',
      'echo "cvd=$CUDA_VISIBLE_DEVICES"',
      'nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader',
      `sh -l -c 'echo "login-box=$SERVELAB_SIMBOX_HOME"; command -v nvidia-smi; command -v python3'`,
    ].join('\n');
    const ids = await Promise.all(lab.cluster.nodes.map((node) => sbatch(`-w ${node.name} --gres=gpu:${TEST_GPU_TYPE}:1`, script)));
    for (const [i, node] of lab.cluster.nodes.entries()) {
      const out = await output(ids[i] as string);
      expect(out, out).toContain(`box=${lab.stateDir(node.name)}\n`);
      expect(out).toContain(`login-box=${lab.stateDir(node.name)}\n`);
      // Slurm gives the job the first GPU of its node; without a device cgroup (TaskPlugin=task/none) the value is the
      // number in the gres.conf File= name, and nvidia-smi (NVML ignores CUDA_VISIBLE_DEVICES) lists every GPU.
      expect(out).toContain('cvd=0\n');
      expect(out).toContain(`0, ${A100}, 81920 MiB\n1, ${A100}, 81920 MiB\n`);
      // In the login shell the simbox's bin/ comes first, and nvidia-smi is still found.
      expect(out).toContain(`${lab.sshd.homeDir}/simbox/node-bin/nvidia-smi\n${lab.sshd.homeDir}/simbox/bin/python3\n`);
    }
  }, 60_000);

  it('two 1-GPU jobs on one node get different CUDA_VISIBLE_DEVICES', async () => {
    const hold = `echo "cvd=$CUDA_VISIBLE_DEVICES"; while [ ! -e "$HOME/release-$SLURM_JOB_ID" ]; do sleep 0.2; done`;
    const ids = [await sbatch(`-w gpu1 --gres=gpu:${TEST_GPU_TYPE}:1`, hold), await sbatch(`-w gpu1 --gres=gpu:${TEST_GPU_TYPE}:1`, hold)];
    // Both print while the other still holds its GPU: they run at once.
    const seen = await Promise.all(ids.map((id) => output(id, /^cvd=/m)));
    await run(ids.map((id) => `touch "$HOME/release-${id}"\n`).join(''));
    expect(seen.map((out) => /^cvd=(.*)$/m.exec(out)?.[1]).sort()).toEqual(['0', '1']);
  }, 60_000);

  it("an engine installed from the login node serves in a job, on that node's GPU only", async () => {
    const installed = await new EngineInstaller(lab.ssh).install('vllm', '0.11.0', { mode: 'env' });
    expect(installed.ok, installed.message).toBe(true);
    const envDir = installed.env?.dir as string;
    // A job holds one GPU of gpu1, so the server's job gets the other.
    const holder = await sbatch(`-w gpu1 --gres=gpu:${TEST_GPU_TYPE}:1`, `echo "cvd=$CUDA_VISIBLE_DEVICES"; while [ ! -e "$HOME/release-$SLURM_JOB_ID" ]; do sleep 0.2; done`);
    const held = /^cvd=(\d)$/m.exec(await output(holder, /^cvd=/m))?.[1];
    const port = 8000;
    const serve = [
      'set -u',
      `echo "cvd=$CUDA_VISIBLE_DEVICES"`,
      `${envDir}/bin/vllm serve Qwen/Qwen3-0.6B --port ${port} > "$HOME/out/vllm-$SLURM_JOB_ID.log" 2>&1 &`,
      'server=$!',
      'ready=no',
      `for i in $(seq 1 300); do if curl -sf http://127.0.0.1:${port}/v1/models >/dev/null; then ready=yes; break; fi; kill -0 $server 2>/dev/null || break; sleep 0.2; done`,
      'echo "ready=$ready"',
      'nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits',
      `echo "apps=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -c '^[0-9]')"`,
      'echo "--"',
      'while [ ! -e "$HOME/release-$SLURM_JOB_ID" ]; do sleep 0.2; done',
      'kill $server; wait $server',
    ].join('\n');
    const server = await sbatch(`-w gpu1 --gres=gpu:${TEST_GPU_TYPE}:1`, `sh -l -c ${shellQuote(serve)}`);
    try {
      const out = await output(server, /^--$/m, 90_000);
      const log = await run(`cat "$HOME/out/vllm-${server}.log" 2>/dev/null || :\n`);
      expect(out, log).toContain('ready=yes');
      const cvd = /^cvd=(\d)$/m.exec(out)?.[1];
      expect([held, cvd]).toEqual(['0', '1']);
      const used = new Map([...out.matchAll(/^(\d), (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
      expect(used.get(cvd as string)).toBeGreaterThan(10_000);
      expect(used.get(held as string)).toBe(0);
      expect(out).toContain('apps=1\n');
      // The other node's box: no memory in use, no process.
      const other = await sbatch('-w gpu2', `nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits; echo "apps=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -c '^[0-9]')"`);
      const otherOut = await output(other);
      expect(otherOut).toContain('0, 0\n1, 0\n');
      expect(otherOut).toContain('apps=0\n');
    } finally {
      await run(`touch "$HOME/release-${server}" "$HOME/release-${holder}"\n`);
    }
    await output(server);
    // The server's record left gpu1's box with it.
    expect(await lab.simbox('gpu1', 'status --json')).not.toContain('"pid"');
  }, 150_000);
});
