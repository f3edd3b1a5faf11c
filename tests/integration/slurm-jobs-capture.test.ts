// Makes the job captures in tests/fixtures/slurm/jobs/ from the real Slurm test cluster (see the README there): the
// stdout of the job scripts (src/core/cluster/slurm-job-scripts.ts) run by `sh -l -s` on the login node. It runs only
// when asked, since it rewrites the fixtures:  SERVELAB_CAPTURE_SLURM=1 npx vitest run tests/integration/slurm-jobs-capture.test.ts
import { afterAll, describe, expect, it } from 'vitest';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBoxTransport } from '../../src/core/box/local-box-transport';
import { batchScript, observeScript, submitScript } from '../../src/core/cluster/slurm-job-scripts';
import { SlurmJobSpecSchema, type SlurmJobSpec } from '../../src/shared/model/slurm-job';
import { slurmUnavailable, startSlurmCluster, type SlurmCluster } from '../helpers/slurm';
import { repoRoot } from '../helpers/repo';

const FIXTURES = join(repoRoot, 'tests', 'fixtures', 'slurm', 'jobs');
const asked = process.env.SERVELAB_CAPTURE_SLURM === '1';
const unavailable = slurmUnavailable({ nodes: 2, accounting: true });

describe.runIf(asked && unavailable === null)('job captures from the Slurm test cluster', () => {
  const clusters: SlurmCluster[] = [];
  const scratches: string[] = [];
  afterAll(async () => {
    await Promise.all(clusters.map((cluster) => cluster.stop()));
    await Promise.all(scratches.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  async function setUp(nodes: 1 | 2, accounting: boolean) {
    const cluster = await startSlurmCluster({ nodes, accounting });
    clusters.push(cluster);
    const scratch = await mkdtemp(join(tmpdir(), 'servelab-slurm-jobs-capture-'));
    scratches.push(scratch);
    await mkdir(join(scratch, 'home'));
    const box = new LocalBoxTransport({ hostId: 'capture', home: join(scratch, 'home'), env: cluster.env });
    const spec = (name: string, script: string, more: Partial<SlurmJobSpec> = {}) =>
      SlurmJobSpecSchema.parse({ name, script, timeLimitMinutes: 10, outputPath: join(scratch, 'out', `${name}.out`), workDir: join(scratch, 'work'), ...more });
    const submit = async (s: ReturnType<typeof spec>, file?: string) => {
      const result = await box.run(submitScript(s), { timeoutSeconds: 60, stdin: batchScript(s) });
      expect(result.code, result.stderr).toBe(0);
      if (file) await writeFile(join(FIXTURES, file), result.stdout);
      const id = /^(\d+)$/m.exec(result.stdout)?.[1];
      expect(id, result.stdout).toBeDefined();
      return id as string;
    };
    const observe = async (ids: string[], file: string) => {
      const result = await box.run(observeScript(ids), { timeoutSeconds: 120 });
      expect(result.code, result.stderr).toBe(0);
      await writeFile(join(FIXTURES, file), result.stdout);
      return result.stdout;
    };
    const waitUntil = async (what: string, check: () => boolean, timeoutMs = 150_000) => {
      const until = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > until) throw new Error(`${what}: ${cluster.client('squeue', ['-o', '%i %T %r %N']).stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };
    const stateOf = (id: string) => /JobState=(\S+)/.exec(cluster.client('scontrol', ['-o', 'show', 'job', id]).stdout)?.[1];
    return { cluster, box, spec, submit, observe, waitUntil, stateOf };
  }

  it('one node without accounting: queue, ends, cancel and time limit (scontrol)', async () => {
    const { cluster, spec, submit, observe, waitUntil, stateOf } = await setUp(1, false);
    await mkdir(FIXTURES, { recursive: true });
    // The time limit first: Slurm looks at limits about every 30 s, so it ends 60 to 90 s after its start.
    const timeout = await submit(spec('limit', 'sleep 300', { timeLimitMinutes: 1 }));
    const gpu = await submit(spec('gpu', 'echo "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES nodes=$SLURM_JOB_NODELIST"', { gpus: { type: 'fake', count: 1 } }), 'sbatch-one-node.out');
    const failing = await submit(spec('failing', 'exit 3'));
    await waitUntil('the short jobs did not end', () => stateOf(gpu) === 'COMPLETED' && stateOf(failing) === 'FAILED');
    // 'limit' holds one of the node's two CPUs: one more runs, the next two wait.
    const running = await submit(spec('running', 'sleep 300'));
    await waitUntil('the running job did not start', () => stateOf(running) === 'RUNNING');
    const waiting = await submit(spec('waiting', 'sleep 300', { cpusPerTask: 2 }));
    const behind = await submit(spec('behind', 'sleep 300', { cpusPerTask: 2 }));
    const cancelled = await submit(spec('cancelled', 'sleep 300', { cpusPerTask: 2 }));
    await waitUntil('the waiting jobs were not looked at', () => /Reason=Resources/.test(cluster.client('scontrol', ['-o', 'show', 'job', waiting]).stdout));
    cluster.client('scancel', [cancelled]);
    await waitUntil('the cancelled job did not end', () => stateOf(cancelled) === 'CANCELLED');
    await observe([gpu, failing, running, waiting, behind, cancelled, '999999'], 'observe-one-node.out');
    cluster.client('scancel', [running, waiting, behind]);
    await waitUntil('the time limit did not end the job', () => stateOf(timeout) === 'TIMEOUT');
    await observe([timeout], 'observe-one-node-timeout.out');
  }, 240_000);

  it('two nodes with accounting: placement, then sacct once slurmctld forgot the jobs', async () => {
    const { cluster, spec, submit, observe, waitUntil, stateOf } = await setUp(2, true);
    // Jobs leave slurmctld's memory 2 s after they end instead of 300 s, so sacct has to answer.
    await appendFile(cluster.slurmConf, 'MinJobAge=2\n');
    expect(cluster.client('scontrol', ['reconfigure']).code).toBe(0);
    const whole = (name: string) => spec(name, 'sleep 300', { gpus: { type: 'fake', count: 2 } });
    const first = await submit(whole('first'));
    const second = await submit(whole('second'));
    const third = await submit(whole('third'));
    await waitUntil('two jobs did not start', () => stateOf(first) === 'RUNNING' && stateOf(second) === 'RUNNING');
    await observe([first, second, third], 'observe-two-nodes-running.out');
    const done = await submit(spec('done', 'true'));
    const failing = await submit(spec('failing', 'exit 3'));
    cluster.client('scancel', [first, second, third]);
    await waitUntil('the jobs were not forgotten by slurmctld', () => [first, second, third, done, failing].every((id) => stateOf(id) === undefined));
    await observe([first, second, third, done, failing, '999999'], 'observe-two-nodes-sacct.out');
  }, 240_000);

  it('node failure: a running job on a node set DOWN', async () => {
    const { cluster, spec, submit, observe, waitUntil, stateOf } = await setUp(2, false);
    const job = await submit(spec('on-node', 'sleep 300'));
    await waitUntil('the job did not start', () => stateOf(job) === 'RUNNING');
    const node = / NodeList=(\S+)/.exec(cluster.client('scontrol', ['-o', 'show', 'job', job]).stdout)?.[1] as string;
    expect(cluster.client('scontrol', ['update', `NodeName=${node}`, 'State=DOWN', 'Reason=test']).stderr).toBe('');
    await waitUntil('the job did not end', () => stateOf(job) === 'NODE_FAIL');
    await observe([job], 'observe-two-nodes-node-fail.out');
  }, 120_000);
});
