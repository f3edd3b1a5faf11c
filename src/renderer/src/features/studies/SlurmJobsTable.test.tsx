import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { estimatePlan, planGrid } from '../../../../shared/study/planner';
import { KNOWN_GPUS, clusterPlanContext, jobTimeLimitMinutes, slurmJobName } from '../../../../shared/study/slurm-plan';
import { StudyDefinitionSchema, type StudyDefinitionInput } from '../../../../shared/study/study';
import { TWO_NODE_CLUSTER } from '../../testing/fixtures';
import { formatHoursMinutes } from '../hosts/format';
import { slurmJobText } from './study-format';
import { SlurmJobsTable } from './SlurmJobsTable';

// The jobs a cluster study's plan submits, on the two-node capture's partitions (tests/fixtures/slurm): debug is the
// default and UNLIMITED, short has MaxTime 1:00; nodes have `gpu:fake:2`.

afterEach(cleanup);

function study(slurm: NonNullable<StudyDefinitionInput['hosts'][number]['slurm']>) {
  return StudyDefinitionSchema.parse({
    name: 'Qwen3-8B on the cluster',
    model: { id: 'Qwen/Qwen3-8B', variants: [] },
    hosts: [{ hostId: 'host-1', slurm }],
    goal: { kind: 'latency' },
    engines: [
      { engine: 'vllm', version: '0.11.0' },
      { engine: 'sglang', version: '0.5.3.post3' },
    ],
    workloads: {
      primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 },
      generalisation: [{ id: 'sharegpt-c1', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 1 }],
    },
    strategy: 'grid',
  });
}

function plan(s: ReturnType<typeof study>) {
  const ctx = clusterPlanContext('host-1', s.hosts[0]!.slurm!);
  const trials = planGrid(s, ctx);
  return { trials, estimate: estimatePlan(s, trials, ctx) };
}

const rows = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => [...row.querySelectorAll('th, td')].map((c) => c.textContent));

describe('SlurmJobsTable', () => {
  it('lists one job per configuration with its name, GRES, where it queues, time limit and trials', () => {
    const s = study({ gpuType: 'fake', gpu: KNOWN_GPUS.a100, gpusPerNode: 2, maxQueuedJobs: 3 });
    const { trials, estimate } = plan(s);
    render(<SlurmJobsTable study={s} trials={trials} estimate={estimate} cluster={TWO_NODE_CLUSTER} />);
    const region = screen.getByRole('region', { name: 'Slurm jobs' });
    expect(within(region).getByText('One batch job per server configuration, with all of its trials; at most 3 of the study in the queue at once.')).toBeTruthy();
    const table = within(region).getByRole('table', { name: 'Slurm jobs the study submits' });
    expect(within(region).getByText('Every job: account default, QOS default.')).toBeTruthy();
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Job', 'GRES', 'Partition', 'Time limit (h:mm)', 'Trials', 'Workloads', 'Estimate']);
    const keys = [...new Set(trials.map((t) => t.serverKey))];
    expect(keys).toHaveLength(2);
    expect(rows(table)).toEqual(
      keys.map((key) => {
        const own = trials.filter((t) => t.serverKey === key);
        const time = formatHoursMinutes(jobTimeLimitMinutes({}, estimate.perServerSeconds[key]!));
        return [`${own[0]!.label}${slurmJobName(s.name, key)}`, 'gpu:fake:1', 'default', `${time} · from the estimate`, String(own.length), String(new Set(own.map((t) => t.workloadId)).size), expect.stringMatching(/min|s$/)];
      }),
    );
  });

  it("says where the partition's MaxTime lowered the study's own limit, and names the account and QOS", () => {
    const s = study({ partition: 'short', account: 'teaching', qos: 'normal', gpuType: 'fake', gpu: KNOWN_GPUS.a100, gpusPerNode: 2, timeLimitMinutes: 90, maxQueuedJobs: 2 });
    const { trials, estimate } = plan(s);
    render(<SlurmJobsTable study={s} trials={trials} estimate={estimate} cluster={TWO_NODE_CLUSTER} />);
    expect(screen.getByText('Every job: account teaching, QOS normal.')).toBeTruthy();
    const [first] = rows(screen.getByRole('table', { name: 'Slurm jobs the study submits' }));
    expect(first!.slice(1, 4)).toEqual(['gpu:fake:1', 'short', "1:00 · the partition's limit"]);
  });

  it('keeps the limit uncapped without a cluster read, and shows nothing for a study of plain boxes', () => {
    const s = study({ partition: 'short', gpuType: 'fake', gpu: KNOWN_GPUS.a100, gpusPerNode: 2, timeLimitMinutes: 90, maxQueuedJobs: 2 });
    const { trials, estimate } = plan(s);
    const { unmount } = render(<SlurmJobsTable study={s} trials={trials} estimate={estimate} />);
    expect(rows(screen.getByRole('table'))[0]![3]).toBe('1:30');
    unmount();
    const plain = StudyDefinitionSchema.parse({ ...s, hosts: [{ hostId: 'box' }] });
    const { container } = render(<SlurmJobsTable study={plain} trials={trials} estimate={estimate} />);
    expect(container.innerHTML).toBe('');
  });
});

describe('slurmJobText', () => {
  // States and reasons as squeue printed them on the test cluster (tests/fixtures/slurm/jobs/observe-*.out).
  it("says a pending job's state and Slurm's reason, a running job's node, an ended job's state", () => {
    expect(slurmJobText({ jobId: '5', state: 'PENDING', reason: 'Resources' })).toBe('Slurm job 5: PENDING — Resources');
    expect(slurmJobText({ jobId: '1', state: 'RUNNING', node: 'gpu1' })).toBe('Slurm job 1 on gpu1');
    expect(slurmJobText({ jobId: '2', state: 'COMPLETED', node: 'node1' })).toBe('Slurm job 2: COMPLETED');
    expect(slurmJobText({ jobId: '7' })).toBe('Slurm job 7');
  });
});
