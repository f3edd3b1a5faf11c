import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallOutput } from '../../../../shared/contract';
import { estimatePlan, planEngineStage } from '../../../../shared/study/planner';
import { KNOWN_GPUS, clusterPlanContext, slurmJobName } from '../../../../shared/study/slurm-plan';
import { StudyDefinitionSchema } from '../../../../shared/study/study';
import { TWO_NODE_CLUSTER } from '../../testing/fixtures';
import { draftFromDefinition } from '../../study-draft/draft';
import { ReviewStep } from './ReviewStep';

// The wizard's plan preview of a study on the test cluster (tests/fixtures/slurm): the batch jobs it will submit.

afterEach(cleanup);

const STUDY = StudyDefinitionSchema.parse({
  name: 'Qwen3-8B on hpc',
  model: { id: 'Qwen/Qwen3-8B', variants: [] },
  hosts: [{ hostId: 'host-1', slurm: { partition: 'short', gpuType: 'fake', gpu: KNOWN_GPUS.h100, gpusPerNode: 2, maxQueuedJobs: 2 } }],
  goal: { kind: 'latency' },
  engines: [{ engine: 'vllm', version: '0.11.0' }],
  workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 } },
});

function planOf(): CallOutput<'studies:plan'> {
  const ctx = clusterPlanContext('host-1', STUDY.hosts[0]!.slurm!);
  const trials = planEngineStage(STUDY, ctx);
  return { trials, estimate: estimatePlan(STUDY, trials, ctx), gpus: ctx.gpus };
}

function renderReview(clusterKnown: boolean) {
  const plan = planOf();
  const json = JSON.stringify(STUDY);
  render(
    <ReviewStep
      draft={draftFromDefinition(STUDY)}
      change={() => undefined}
      error={() => undefined}
      definition={STUDY}
      issues={[]}
      hostLabel={(id) => (id === 'host-1' ? 'hpc-login' : id)}
      path="/data/studies/hpc.servelab"
      onPathChange={() => undefined}
      canChooseFile={false}
      onChooseFile={() => undefined}
      plan={{ status: 'ready', plan, json }}
      currentJson={json}
      onSaveDraft={() => undefined}
      onCreate={() => undefined}
      onGoToStep={() => undefined}
      clusterOf={(hostId) => (clusterKnown && hostId === 'host-1' ? TWO_NODE_CLUSTER : undefined)}
    />,
  );
  return plan;
}

describe('the plan preview of a cluster study', () => {
  it('lists the Slurm jobs it will submit in the partition the study names, and says where they go', () => {
    const plan = renderReview(true);
    const table = within(screen.getByRole('region', { name: 'Plan' })).getByRole('table', { name: 'Slurm jobs the study submits' });
    const cells = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => [...row.querySelectorAll('th, td')].map((c) => c.textContent));
    expect(cells).toEqual([[`vLLM 0.11.0${slurmJobName(STUDY.name, plan.trials[0]!.serverKey)}`, 'gpu:fake:1', 'short', expect.stringMatching(/^0:\d\d · from the estimate$/), '1', '1', expect.any(String)]]);
    // The summary says where the jobs go.
    expect(screen.getByText('hpc-login: Slurm jobs in partition short, account the default, QOS the default; nodes of 2 × NVIDIA H100 80GB HBM3 (gpu:fake)')).toBeTruthy();
  });
});
