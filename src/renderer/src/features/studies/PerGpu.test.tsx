import { act, cleanup, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type Goal, type ProjectFile, type Trial } from '../../../../shared/study/study';
import { renderWithStore } from '../../testing/render';
import { makeTrial } from '../../testing/fixtures';
import { RecommendationCard } from './RecommendationCard';
import { ResultsTab } from './ResultsTab';

// jsdom has no canvas: the charts are stand-ins that show their title; the numbers are what is checked.
vi.mock('../../components/EChart', () => ({
  EChart: ({ title }: { title: string }) => <figure aria-label={title} />,
  useThemeMode: () => 'light',
}));

afterEach(cleanup);

/**
 * GPT-OSS-120B on H100 as the GPUStack performance lab printed it (total token throughput, ShareGPT, 1000 prompts:
 * https://github.com/gpustack/gpustack/blob/47277d79f4a5bae12a2d25e9ecbed2a2177a5f2d/docs/performance-lab/gpt-oss-120b/h100.md):
 * one GPU 6325.41 tok/s, TP2 16042.19, TP4 23759.49.
 */
const result = (total: number): ResultEntry => ({
  id: 'res-t-00000000',
  kind: 'measured',
  status: 'ok',
  addedAt: '2026-01-01T00:00:00.000Z',
  title: 'r',
  result: { schemaVersion: 1, metrics: { total_token_throughput: total }, extra: {} },
});
const trials: Trial[] = [
  makeTrial({ id: 'engine/vllm/sharegpt-1000/r1', candidateId: 'vllm', label: 'vLLM 0.10.2', workloadId: 'sharegpt-1000', serverKey: 'tp1', gpuCount: 1, result: result(6325.41) }),
  makeTrial({ id: 'parallelism/tp2/sharegpt-1000/r1', stageId: 'parallelism', candidateId: 'tp2', label: 'TP2', workloadId: 'sharegpt-1000', serverKey: 'tp2', gpuCount: 2, result: result(16042.19) }),
  makeTrial({ id: 'parallelism/tp4/sharegpt-1000/r1', stageId: 'parallelism', candidateId: 'tp4', label: 'TP4', workloadId: 'sharegpt-1000', serverKey: 'tp4', gpuCount: 4, result: result(23759.49) }),
];

function project(goal: Partial<Goal>, recommended: string): ProjectFile {
  return {
    schemaVersion: PROJECT_SCHEMA_VERSION,
    study: StudyDefinitionSchema.parse({
      name: 'GPT-OSS-120B throughput',
      model: { id: 'openai/gpt-oss-120b' },
      hosts: [{ hostId: 'demo-lab' }],
      goal: { kind: 'throughput', ...goal },
      engines: [{ engine: 'vllm', version: '0.10.2' }],
      stages: [{ id: 'parallelism', label: 'Parallelism', candidates: [{ id: 'tp2', label: 'TP2' }, { id: 'tp4', label: 'TP4' }] }],
      workloads: { primary: { id: 'sharegpt-1000', dataset: { kind: 'sharegpt' }, numPrompts: 1000 } },
    }),
    state: {
      status: 'done',
      trials,
      decisions: [],
      baselineTrialServerKey: 'tp1',
      recommendation: { engine: 'vllm', version: '0.10.2', mode: 'env', config: { model: 'openai/gpt-oss-120b', extraArgs: [], env: {} }, command: 'vllm serve openai/gpt-oss-120b', path: ['vllm', recommended], serverKey: recommended },
    },
  };
}

function cellOf(trialId: string, header: string): HTMLElement {
  const table = screen.getByRole('table', { name: 'Trials' });
  const column = within(table)
    .getAllByRole('columnheader')
    // A header reads its title and then its sort state; "Total tok/s" is not "Total tok/s per GPU".
    .findIndex((h) => (h.textContent ?? '').startsWith(header) && !(h.textContent ?? '').startsWith(`${header} per`));
  const row = table.querySelector(`[data-trial-id="${trialId}"]`) as HTMLElement;
  return within(row).getAllByRole('cell')[column]!;
}

describe('per-GPU numbers in the Results tab', { timeout: 20_000 }, () => {
  it('shows each trial’s GPUs and its total throughput per GPU beside the raw one', () => {
    renderWithStore(<ResultsTab project={project({}, 'tp4')} />);
    expect(cellOf('parallelism/tp4/sharegpt-1000/r1', 'GPUs').textContent).toBe('4');
    expect(cellOf('parallelism/tp4/sharegpt-1000/r1', 'Total tok/s').textContent).toBe('23759.49');
    expect(cellOf('parallelism/tp4/sharegpt-1000/r1', 'Total tok/s per GPU').textContent).toBe('5939.87');
    expect(cellOf('parallelism/tp2/sharegpt-1000/r1', 'Total tok/s per GPU').textContent).toBe('8021.10');
  });

  it('opens the charts per GPU for a study compared per GPU, per server otherwise', () => {
    renderWithStore(<ResultsTab project={project({ basis: 'per-gpu' }, 'tp2')} />);
    expect((screen.getByLabelText('Throughput') as HTMLSelectElement).value).toBe('total_token_throughput_per_gpu');
    expect(document.querySelector('.study-results')?.getAttribute('data-objective')).toBe('total_token_throughput_per_gpu');
    cleanup();
    renderWithStore(<ResultsTab project={project({}, 'tp4')} />);
    expect((screen.getByLabelText('Throughput') as HTMLSelectElement).value).toBe('total_token_throughput');
  });
});

describe('the recommendation card says what it was compared on', () => {
  it('per GPU, in the UI’s language', () => {
    const { store } = renderWithStore(<RecommendationCard project={project({ basis: 'per-gpu' }, 'tp2')} />);
    const basis = screen.getByTestId('recommendation-basis');
    expect(basis.textContent).toBe('Compared per GPU: each configuration by its total token throughput divided by the GPUs its server holds (1, 2 and 4 GPUs).');
    act(() => store.getState().setLocale('tr'));
    expect(screen.getByTestId('recommendation-basis').textContent).toBe(
      'GPU başına karşılaştırma: her yapılandırma, toplam token veriminin sunucusunun kullandığı GPU sayısına bölümüyle (1, 2 ve 4 GPU).',
    );
  });

  it('on a GPU budget, with the recommendation’s replicas', () => {
    renderWithStore(<RecommendationCard project={project({ basis: 'gpu-budget', gpuBudget: 4 }, 'tp2')} />);
    expect(screen.getByTestId('recommendation-basis').textContent).toContain('On the budget of 4 GPUs: 2 × this server, 2 GPUs each.');
  });

  it('per server, with both per GPU beside when the recommendation and the baseline differ in size', () => {
    renderWithStore(<RecommendationCard project={project({}, 'tp4')} />);
    expect(screen.getByTestId('recommendation-basis').textContent).toContain('The recommended server holds 4 GPUs and the baseline 1: per GPU, 5940 against 6325 tok/s/GPU (−6.1%).');
  });
});
