import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_SCHEMA_VERSION, ProjectFileSchema, StudyDefinitionSchema } from '../../shared/study/study';
import { runRun, trialDetail } from './run';
import { GPT_OSS_TPS, gptOssStudy, runAsPublished } from '../../../tests/helpers/parallel-studies';

describe('servelab run of a project from elsewhere', () => {
  it('refuses without a terminal, naming what it runs and the flag that accepts it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servelab-run-trust-'));
    const study = StudyDefinitionSchema.parse({
      name: 's',
      model: { id: 'Qwen/Qwen3-8B' },
      hosts: [{ hostId: 'demo-lab' }],
      goal: { kind: 'latency' },
      engines: [{ engine: 'vllm', version: '0.11.0', config: { env: { NCCL_DEBUG: 'INFO' } } }],
      workloads: { primary: { id: 'w', dataset: { kind: 'sharegpt' }, numPrompts: 10, maxConcurrency: 1 } },
    });
    const path = join(dir, 'shared.servelab');
    await writeFile(path, JSON.stringify(ProjectFileSchema.parse({ schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { status: 'draft', trials: [], decisions: [] } })));
    let stderr = '';
    const io = { stdout: () => {}, stderr: (t: string) => void (stderr += t), env: {}, cwd: dir };
    const code = await runRun([path, '--data-dir', join(dir, 'data')], io, { signal: new AbortController().signal });
    expect(code).toBe(1);
    expect(stderr).toContain('  - vllm 0.11.0: env NCCL_DEBUG="INFO"\n');
    expect(stderr).toContain('run again with --trust to accept them');
  });
});

describe("a trial's progress line", () => {
  // GPT-OSS-120B's published TP2 run (tests/helpers/parallel-studies.ts): 16042.19 tok/s on two GPUs.
  const tp2 = (goal: object) => {
    const project = runAsPublished(gptOssStudy(goal), GPT_OSS_TPS);
    const study = project.study;
    return { study, trial: project.state.trials.find((t) => t.candidateId === 'tp2' && t.status === 'done')! };
  };

  it('says the measured number and its GPUs, and the number the decision compares off the server basis', () => {
    const server = tp2({});
    expect(trialDetail(server.study, server.trial)).toBe(' total token throughput 16042.2 tok/s on 2 GPUs');
    const budget = tp2({ basis: 'gpu-budget', gpuBudget: 8 });
    expect(trialDetail(budget.study, budget.trial)).toBe(' total token throughput 16042.2 tok/s on 2 GPUs; total token throughput on 8 GPUs 64168.8 tok/s');
    const perGpu = tp2({ basis: 'per-gpu' });
    expect(trialDetail(perGpu.study, perGpu.trial)).toMatch(/^ total token throughput 16042\.2 tok\/s on 2 GPUs; total token throughput per GPU 8021\.1 /);
  });

  it("says a cluster trial's Slurm job: pending with Slurm's reason, then the node it runs on", () => {
    const { study, trial } = tp2({});
    const waiting = { ...trial, status: 'planned' as const, result: undefined, hostId: undefined, gpus: undefined };
    // State and reason as the test cluster's squeue gave them (tests/fixtures/slurm/jobs).
    expect(trialDetail(study, { ...waiting, slurmJob: { jobId: '7', state: 'PENDING', reason: 'Resources' } })).toBe(' in Slurm job 7: PENDING (Resources)');
    expect(trialDetail(study, { ...waiting, status: 'running', gpus: ['1'], slurmJob: { jobId: '7', state: 'RUNNING', node: 'gpu2' } })).toBe(' in Slurm job 7 on gpu2 GPU 1');
  });
});
