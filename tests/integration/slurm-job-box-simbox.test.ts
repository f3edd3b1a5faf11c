// An engine server through a Slurm batch job's box (src/core/cluster/job-box.ts): the one-node test cluster whose node
// is a simulated GPU box (tests/helpers/slurm-simbox.ts); vLLM installed from the login node (shared HOME) is
// launched, waited for and stopped by the same launcher a plain box uses, inside the job, on the GPU Slurm gave it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitAgentJob, waitForAgent } from '../../src/core/cluster/job-box';
import { EngineInstaller } from '../../src/core/engines/engine-installer';
import { launchServer } from '../../src/core/engines/server-launcher';
import { slurmUnavailable, TEST_GPU_TYPE } from '../helpers/slurm';
import { startSlurmSimboxLab, type SlurmSimboxLab } from '../helpers/slurm-simbox';

const options = { nodes: 1, accounting: false } as const;
const unavailable = slurmUnavailable(options);
if (unavailable) process.stderr.write(`[slurm-job-box-simbox] skipped: ${unavailable}\n`);

describe.skipIf(unavailable !== null)('an engine server in a Slurm job, through its box', () => {
  let lab: SlurmSimboxLab;

  beforeAll(async () => {
    lab = await startSlurmSimboxLab({ ...options, gpu: 'a100', timeScale: 0.01 });
  }, 120_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('launches vLLM on the job\'s GPU, waits until it is ready, answers, and stops it clean', async () => {
    const installed = await new EngineInstaller(lab.ssh).install('vllm', '0.11.0', { mode: 'env' });
    expect(installed.ok, installed.message).toBe(true);
    const job = await submitAgentJob(lab.ssh, { name: 'servelab-server', gpus: { type: TEST_GPU_TYPE, count: 1 }, timeLimitMinutes: 10 });
    const started = await waitForAgent(lab.ssh, job, { hostId: 'cluster', pollMs: 300 });
    if (started.kind !== 'started') throw new Error(`the agent job ended: ${JSON.stringify(started.state)}\n${lab.cluster.logs()}`);
    const box = started.box;
    try {
      expect(started.gpus).toEqual(['0']);
      let log = '';
      const states: string[] = [];
      const server = await launchServer(box, {
        engine: 'vllm',
        version: '0.11.0',
        config: { model: 'Qwen/Qwen3-0.6B', gpuMemoryFraction: 0.5 },
        gpus: started.gpus,
        onLog: (text) => (log += text),
        onState: (state) => states.push(state),
      });
      try {
        await server.waitReady(60_000);
        expect(log).toContain('Application startup complete.');
        const models = await box.httpRequest(server.port, { path: '/v1/models', timeoutMs: 5_000 });
        expect(models.status).toBe(200);
        expect((JSON.parse(models.body) as { data: { id: string }[] }).data[0]?.id).toBe('Qwen/Qwen3-0.6B');
        // The server runs inside the Slurm job, on its node's simulated box.
        const where = await box.run('nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -c "^[0-9]"; echo "job=$SLURM_JOB_ID"', { timeoutSeconds: 30 });
        expect(where.stdout).toContain(`1\njob=${job.jobId}\n`);
      } catch (error) {
        await server.stop();
        throw error;
      }
      const report = await server.stop();
      expect(report).toMatchObject({ portClosed: true, gpuMemoryReleased: true, leftovers: [] });
      expect(states).toEqual(['ready', 'stopping', 'stopped']);
    } finally {
      const state = await box.finish();
      expect(state.phase).toBe('ended');
    }
  }, 180_000);
});
