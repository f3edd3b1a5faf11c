import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { buildReportModel } from '../../../../shared/study/report/model';
import { PROJECT_SCHEMA_VERSION, type ProjectFile, type Trial } from '../../../../shared/study/study';
import { formatMetric } from '../../components/metric-text';
import { ROW_HEIGHT, ResultsTab } from './ResultsTab';
import { makeTrial } from '../../testing/fixtures';

// jsdom has no canvas: the charts are stand-ins that show their title; the numbers are what is checked.
vi.mock('../../components/EChart', () => ({
  EChart: ({ title }: { title: string }) => <figure aria-label={title} />,
  useThemeMode: () => 'light',
}));

afterEach(cleanup);

function result(metrics: Record<string, number>): ResultEntry {
  return { id: 'res-t-00000000', kind: 'measured', status: 'ok', addedAt: '2026-01-01T00:00:00.000Z', title: 'r', result: { schemaVersion: 1, metrics, extra: {} } };
}

const trial = (id: string, over: Partial<Trial> = {}): Trial => makeTrial({ id, command: `vllm serve Qwen/Qwen3-8B # ${id}`, ...over });

function project(trials: Trial[], state: Partial<ProjectFile['state']> = {}): ProjectFile {
  return {
    schemaVersion: PROJECT_SCHEMA_VERSION,
    study: {
      name: 'Qwen3-8B latency',
      model: { id: 'Qwen/Qwen3-8B', variants: [] },
      hosts: [{ hostId: 'demo-lab' }],
      goal: { kind: 'latency', slos: [], marginPct: 1, repeatBudget: 4 },
      engines: [{ engine: 'vllm', version: '0.11.0', mode: 'env', config: {} }],
      stages: [{ id: 'kv', label: 'KV cache dtype', candidates: [{ id: 'fp8', label: 'FP8 KV cache', config: {} }] }],
      workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4, backend: 'openai-chat' }, generalisation: [] },
      strategy: 'greedy',
      repeats: 1,
      gpusPerTrial: 1,
      clientVersion: '0.11.0',
      readinessTimeoutSeconds: 1800,
    },
    state: { status: 'done', trials, decisions: [], ...state },
  };
}

const BASE = trial('vllm-defaults', { label: 'vLLM defaults', result: result({ mean_ttft_ms: 100, total_token_throughput: 1000, mean_tpot_ms: 8 }) });
const FP8 = trial('kv/fp8', {
  stageId: 'kv',
  label: 'FP8 KV cache',
  serverKey: 'fp8',
  config: { model: 'Qwen/Qwen3-8B', kvCacheDtype: 'fp8', extraArgs: [], env: { VLLM_SECRET_KNOB: 'hunter2' } },
  result: result({ mean_ttft_ms: 80, total_token_throughput: 900, mean_tpot_ms: 8.02 }),
});
const FAILED = trial('kv/bad', { stageId: 'kv', label: 'Too much memory', status: 'failed', error: 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB' });
const REJECTED = trial('kv/nope', { stageId: 'kv', label: 'FP8 on A100', status: 'rejected', rejectReason: 'needs sm ≥ 8.9 for FP8' });

function comparisonCell(metric: RegExp, column: number) {
  const table = screen.getByRole('table', { name: 'Comparison' });
  const row = within(table).getByRole('rowheader', { name: metric }).closest('tr')!;
  return within(row).getAllByRole('cell')[column]!;
}

// jsdom renders the table, the comparison and its tables slowly when other suites share the machine.
describe('ResultsTab', { timeout: 20_000 }, () => {
  it('compares two selected trials: deltas against the study baseline, judged by each metric’s direction, in words', () => {
    render(<ResultsTab project={project([FP8, BASE, FAILED, REJECTED], { baselineTrialServerKey: 'vllm-defaults' })} />);
    const compare = screen.getByRole('button', { name: 'Compare (0)' });
    expect((compare as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole('checkbox', { name: 'Select FP8 KV cache · sharegpt-c4 · 1' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select vLLM defaults · sharegpt-c4 · 1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Compare (2)' }));

    // Columns in study order; the baseline defaults to the study's, wherever it sits.
    const view = screen.getByRole('region', { name: 'Comparison' });
    expect((within(view).getByLabelText('Baseline') as HTMLSelectElement).value).toBe('vllm-defaults');

    // FP8 is the first column (trials keep the project's order), the baseline the second.
    const ttft = comparisonCell(/^Mean TTFT \(ms\)$/, 0);
    expect(ttft.textContent).toContain('80.00');
    expect(ttft.textContent).toContain('−20.00 (−20.0%) better');
    const throughput = comparisonCell(/^Total token throughput \(tok\/s\)$/, 0);
    expect(throughput.textContent).toContain('−100.00 (−10.0%) worse');
    // 0.25 % is within the noise threshold
    expect(comparisonCell(/^Mean TPOT \(ms\)$/, 0).textContent).toContain('same');
    // the baseline: its number and its one run, no delta
    expect(comparisonCell(/^Mean TTFT \(ms\)$/, 1).textContent).toBe('100.00runs: 1');

    // The settings that differ, env by name only
    const diff = within(view).getByRole('table', { name: 'Settings that differ' });
    expect(within(diff).getByRole('rowheader', { name: 'kvCacheDtype' })).toBeTruthy();
    expect(within(diff).getByRole('rowheader', { name: 'env.VLLM_SECRET_KNOB' })).toBeTruthy();
    expect(view.textContent).not.toContain('hunter2');

    // Another baseline turns the verdicts round.
    fireEvent.change(within(view).getByLabelText('Baseline'), { target: { value: 'kv/fp8' } });
    expect(comparisonCell(/^Mean TTFT \(ms\)$/, 1).textContent).toContain('+20.00 (+25.0%) worse');
    expect(comparisonCell(/^Total token throughput \(tok\/s\)$/, 1).textContent).toContain('better');
    expect(within(view).getByRole('figure', { name: 'Total token throughput per run' })).toBeTruthy();
  });

  it('compares the two best configurations by the objective, the winner against the runner-up', () => {
    const withLatency = (tr: Trial, s: number) => ({ ...tr, result: result({ ...(tr.result?.result.metrics as Record<string, number>), mean_latency_s: s }) });
    const third = trial('kv/bf16', { stageId: 'kv', label: 'BF16 KV cache', serverKey: 'bf16', result: result({ mean_ttft_ms: 90, mean_latency_s: 1.5 }) });
    const trials = [withLatency(BASE, 1.68), withLatency(FP8, 1.2), third, FAILED];
    render(<ResultsTab project={project(trials, { baselineTrialServerKey: 'vllm-defaults' })} />);
    fireEvent.click(screen.getByRole('button', { name: 'Compare the top two' }));
    const view = screen.getByRole('region', { name: 'Comparison' });
    const headers = within(view).getAllByRole('columnheader').map((h) => h.textContent ?? '');
    expect(headers.findIndex((h) => h.startsWith('FP8 KV cache'))).toBeLessThan(headers.findIndex((h) => h.startsWith('BF16 KV cache')));
    expect((within(view).getByLabelText('Baseline') as HTMLSelectElement).value).toBe('kv/bf16');
    expect(comparisonCell(/^Mean TTFT \(ms\)$/, 0).textContent).toContain('−10.00 (−11.1%) better');
    expect(screen.getByRole('checkbox', { name: 'Select FP8 KV cache · sharegpt-c4 · 1' })).toHaveProperty('checked', true);
    expect(screen.getByRole('checkbox', { name: 'Select vLLM defaults · sharegpt-c4 · 1' })).toHaveProperty('checked', false);
  });

  it('compares the recommendation with the study baseline, the baseline in the second column', () => {
    const withLatency = (tr: Trial, s: number) => ({ ...tr, result: result({ ...(tr.result?.result.metrics as Record<string, number>), mean_latency_s: s }) });
    const third = trial('kv/bf16', { stageId: 'kv', label: 'BF16 KV cache', serverKey: 'bf16', result: result({ mean_ttft_ms: 90, mean_latency_s: 1.5 }) });
    const recommendation = { engine: 'vllm' as const, version: '0.11.0', mode: 'env' as const, config: FP8.config, command: FP8.command, path: ['vllm', 'fp8'], serverKey: 'fp8' };
    render(<ResultsTab project={project([withLatency(BASE, 1.68), withLatency(FP8, 1.2), third], { baselineTrialServerKey: 'vllm-defaults', recommendation })} />);
    fireEvent.click(screen.getByRole('button', { name: 'Compare with the baseline' }));
    const view = screen.getByRole('region', { name: 'Comparison' });
    expect((within(view).getByLabelText('Baseline') as HTMLSelectElement).value).toBe('vllm-defaults');
    expect(comparisonCell(/^Mean TTFT \(ms\)$/, 0).textContent).toContain('−20.00 (−20.0%) better');
    // The top two are the recommendation and the runner-up by mean latency: the BF16 candidate.
    fireEvent.click(screen.getByRole('button', { name: 'Compare the top two' }));
    expect((within(screen.getByRole('region', { name: 'Comparison' })).getByLabelText('Baseline') as HTMLSelectElement).value).toBe('kv/bf16');
  });

  it('opens with the top two compared when asked, and cannot offer them without two valid results', () => {
    const only = [{ ...BASE, result: result({ mean_latency_s: 1.68 }) }, FAILED];
    const { unmount } = render(<ResultsTab project={project(only)} initialComparison="topTwo" />);
    expect(screen.queryByRole('region', { name: 'Comparison' })).toBeNull();
    expect((screen.getByRole('button', { name: 'Compare the top two' }) as HTMLButtonElement).disabled).toBe(true);
    unmount();
    render(<ResultsTab project={project([{ ...BASE, result: result({ mean_latency_s: 1.68 }) }, { ...FP8, result: result({ mean_latency_s: 1.2 }) }])} initialComparison="topTwo" />);
    expect(screen.getByRole('region', { name: 'Comparison' })).toBeTruthy();
  });

  it('groups trials by stage and shows why a trial failed or was refused', () => {
    render(<ResultsTab project={project([FP8, FAILED, BASE, REJECTED])} />);
    const table = screen.getByRole('table', { name: 'Trials' });
    const rows = within(table).getAllByRole('row').map((r) => r.textContent ?? '');
    expect(rows[1]).toMatch(/^Engine selection/);
    expect(rows[2]).toMatch(/^vLLM defaults/);
    expect(rows[3]).toMatch(/^KV cache dtype/);
    expect(within(table).getByText(/^Out of memory: torch\.OutOfMemoryError/)).toBeTruthy();
    expect(within(table).getByText('needs sm ≥ 8.9 for FP8')).toBeTruthy();

    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'failed' } });
    expect(within(table).getAllByRole('row').map((r) => r.textContent)).toEqual([expect.stringMatching(/^Trial/), expect.stringMatching(/^KV cache dtype/), expect.stringMatching(/^Too much memory/)]);
    expect(screen.getByText('1 of 4 trials')).toBeTruthy();
  });

  it('sorts inside each stage by the chosen column', () => {
    const a = trial('kv/a', { stageId: 'kv', label: 'A', result: result({ mean_ttft_ms: 30 }) });
    const b = trial('kv/b', { stageId: 'kv', label: 'B', result: result({ mean_ttft_ms: 10 }) });
    const c = trial('kv/c', { stageId: 'kv', label: 'C', result: result({ mean_ttft_ms: 20 }) });
    render(<ResultsTab project={project([a, b, c])} />);
    const labels = () => [...document.querySelectorAll('[data-trial-id]')].map((r) => r.getAttribute('data-trial-id'));
    fireEvent.click(screen.getByRole('button', { name: /Mean TTFT \(ms\)/ }));
    expect(labels()).toEqual(['kv/b', 'kv/c', 'kv/a']);
    fireEvent.click(screen.getByRole('button', { name: /Mean TTFT \(ms\)/ }));
    expect(labels()).toEqual(['kv/a', 'kv/c', 'kv/b']);
  });

  it('draws only the visible rows of 10,000 trials and follows the scroll', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => trial(`kv/t${i}`, { stageId: 'kv', label: `Trial ${i}` }));
    render(<ResultsTab project={project(many)} />);
    const drawn = document.querySelectorAll('[data-trial-id]');
    expect(drawn.length).toBeGreaterThan(10);
    expect(drawn.length).toBeLessThan(60);
    const table = screen.getByRole('table', { name: 'Trials' });
    expect(table.getAttribute('aria-rowcount')).toBe(String(10_000 + 2));

    const scroller = table.querySelector('.trials-scroll') as HTMLElement;
    vi.spyOn(window, 'requestAnimationFrame').mockImplementation((cb) => {
      cb(0);
      return 0;
    });
    scroller.scrollTop = 5000 * ROW_HEIGHT;
    fireEvent.scroll(scroller);
    expect(screen.getByText('Trial 4999')).toBeTruthy();
    expect(screen.queryByText('Trial 0')).toBeNull();
  });

  it('keeps the rows that stay in view on a scroll, and draws again only when the scroll reaches another row', () => {
    const many = Array.from({ length: 1_000 }, (_, i) => trial(`kv/t${i}`, { stageId: 'kv', label: `Trial ${i}` }));
    render(<ResultsTab project={project(many)} />);
    const scroller = document.querySelector('.trials-scroll') as HTMLElement;
    const rowOf = (id: string) => document.querySelector(`[data-trial-id="${id}"]`);
    const before = rowOf('kv/t5');
    const drawn = () => [...document.querySelectorAll('[data-trial-id]')].map((r) => r.getAttribute('data-trial-id'));
    const first = drawn();

    scroller.scrollTop = ROW_HEIGHT / 2;
    fireEvent.scroll(scroller);
    expect(drawn()).toEqual(first);

    scroller.scrollTop = 3 * ROW_HEIGHT;
    fireEvent.scroll(scroller);
    expect(rowOf('kv/t5')).toBe(before);
    expect(drawn()).not.toEqual(first);
    expect(drawn().length).toBe(first.length + 3);
  });

  it('keeps a trial checked from the keyboard when its row scrolls out of view and back', () => {
    const many = Array.from({ length: 1_000 }, (_, i) => trial(`kv/t${i}`, { stageId: 'kv', label: `Trial ${i}` }));
    render(<ResultsTab project={project(many)} />);
    const scroller = document.querySelector('.trials-scroll') as HTMLElement;
    const scrollTo = (row: number) => {
      scroller.scrollTop = row * ROW_HEIGHT;
      fireEvent.scroll(scroller);
    };
    scrollTo(500);
    const box = screen.getByRole('checkbox', { name: /Trial 500 ·/ });
    box.focus();
    // Space on a focused checkbox clicks it.
    fireEvent.click(box);
    expect(screen.getByRole('button', { name: /Compare \(1\)/ })).toBeTruthy();
    scrollTo(0);
    expect(screen.queryByRole('checkbox', { name: /Trial 500 ·/ })).toBeNull();
    scrollTo(500);
    expect((screen.getByRole('checkbox', { name: /Trial 500 ·/ }) as HTMLInputElement).checked).toBe(true);
    expect(screen.getByText('Trial 500').closest('[role="row"]')!.className).toContain('is-checked');
  });
});

describe('ResultsTab and the report', () => {
  it('show the same mean latency for a trial recorded before mean_latency_s existed (derived from mean E2EL)', () => {
    const old = trial('vllm-defaults', { label: 'vLLM defaults', result: result({ mean_e2el_ms: 1680, mean_ttft_ms: 100, total_token_throughput: 1000 }) });
    const recorded = project([old]);
    expect(old.result?.result.metrics.mean_latency_s).toBeUndefined();

    const reported = buildReportModel(recorded).trials[0]!.metrics.mean_latency_s;
    expect(reported).toBe(1.68);

    render(<ResultsTab project={recorded} />);
    const table = screen.getByRole('table', { name: 'Trials' });
    const column = within(table)
      .getAllByRole('columnheader')
      .findIndex((h) => h.textContent?.startsWith('Mean latency (s)'));
    const row = table.querySelector<HTMLElement>('[data-trial-id="vllm-defaults"]')!;
    expect(within(row).getAllByRole('cell')[column]!.textContent).toBe(formatMetric('mean_latency_s', reported));
    expect(within(row).getAllByRole('cell')[column]!.textContent).toBe('1.68');
  });
});

describe('ResultsTab intervals, runs and warm-ups', { timeout: 20_000 }, () => {
  const cellOf = (trialId: string, header: string) => {
    const table = screen.getByRole('table', { name: 'Trials' });
    const column = within(table)
      .getAllByRole('columnheader')
      .findIndex((h) => h.textContent?.startsWith(header));
    const row = table.querySelector<HTMLElement>(`[data-trial-id="${trialId}"]`)!;
    return within(row).getAllByRole('cell')[column]!;
  };

  it('shows the interval between a configuration’s repeats under each number and how many runs it has', () => {
    const repeat = (id: string, n: number, ttft: number) => trial(id, { stageId: 'kv', label: 'FP8 KV cache', serverKey: 'fp8', repeat: n, result: result({ mean_ttft_ms: ttft, total_token_throughput: 900 }) });
    const runs = [repeat('kv/fp8/1', 1, 80), repeat('kv/fp8/2', 2, 82), repeat('kv/fp8/3', 3, 84)];
    render(<ResultsTab project={project([BASE, ...runs])} />);
    const ttft = cellOf('kv/fp8/2', 'Mean TTFT (ms)');
    // The trial's own number first, then the t interval of the three runs' mean (82 ± 4.30 × 2/√3).
    expect(ttft.textContent).toBe('82.00[77.03, 86.97]');
    expect(ttft.getAttribute('title')).toBe('82.00 [77.03, 86.97]: mean of 3 runs, interval between runs');
    expect(cellOf('kv/fp8/1', 'Runs').textContent).toBe('3');
    // one run without per-request intervals: the number alone, one run
    expect(cellOf('vllm-defaults', 'Mean TTFT (ms)').textContent).toBe('100.00');
    expect(cellOf('vllm-defaults', 'Runs').textContent).toBe('1');
  });

  it('shows one run’s interval from its requests, and no runs for a trial that did not finish', () => {
    const within1: Trial = trial('kv/one', {
      stageId: 'kv',
      serverKey: 'one',
      result: { ...result({ mean_ttft_ms: 90 }), result: { schemaVersion: 1, metrics: { mean_ttft_ms: 90 }, extra: {}, intervals: { level: 0.95, requests: 100, resamples: 1000, values: { mean_ttft_ms: { low: 85, high: 96 } } } } },
    });
    render(<ResultsTab project={project([within1, FAILED])} />);
    expect(cellOf('kv/one', 'Mean TTFT (ms)').textContent).toBe('90.00[85.00, 96.00]');
    expect(cellOf('kv/one', 'Mean TTFT (ms)').getAttribute('title')).toBe('90.00 [85.00, 96.00]: one run, interval from its requests');
    expect(cellOf('kv/bad', 'Runs').textContent).toBe('');
  });

  it('compares configurations with the interval and run count beside each number', () => {
    const repeat = (id: string, n: number, ttft: number) => trial(id, { stageId: 'kv', label: 'FP8 KV cache', serverKey: 'fp8', repeat: n, result: result({ mean_ttft_ms: ttft, total_token_throughput: 900 }) });
    render(<ResultsTab project={project([BASE, repeat('kv/fp8/1', 1, 80), repeat('kv/fp8/2', 2, 82), repeat('kv/fp8/3', 3, 84)])} />);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select FP8 KV cache · sharegpt-c4 · 2' }));
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select vLLM defaults · sharegpt-c4 · 1' }));
    fireEvent.click(screen.getByRole('button', { name: 'Compare (2)' }));
    const table = screen.getByRole('table', { name: 'Comparison' });
    const cells = within(within(table).getByRole('rowheader', { name: /^Mean TTFT \(ms\)$/ }).closest('tr')!).getAllByRole('cell');
    // the study's order: the baseline first, with one run and no interval, then FP8's three repeats
    expect(cells[0]!.querySelector('.compare-interval')?.textContent).toBe('runs: 1');
    expect(cells[1]!.querySelector('.compare-interval')?.textContent).toBe('[77.03, 86.97] · runs: 3');
  });

  it('notes a trial’s warm-up, and a warm-up that failed, beside the error or reason', () => {
    const warm = trial('kv/warm', { stageId: 'kv', serverKey: 'warm', warmup: { requests: 8, seconds: 12.43 }, result: result({ mean_ttft_ms: 90 }) });
    const cold = trial('kv/cold', { stageId: 'kv', serverKey: 'cold', warmup: { requests: 8, error: 'connection refused' }, result: result({ mean_ttft_ms: 95 }) });
    render(<ResultsTab project={project([warm, cold])} />);
    expect(cellOf('kv/warm', 'Error or reason').textContent).toBe('warm-up: 8 requests, 12.4 s');
    expect(cellOf('kv/cold', 'Error or reason').textContent).toBe('warm-up failed: connection refused');
    expect(cellOf('kv/cold', 'Error or reason').getAttribute('title')).toBe('warm-up failed: connection refused');
  });
});

describe('ResultsTab charts', () => {
  it('draws the concurrency curve from generalisation trials and the Pareto front of the primary workload', () => {
    const g = (id: string, candidateId: string, workloadId: string, ttft: number, tput: number) =>
      trial(id, { stageId: 'generalisation', candidateId, label: candidateId, serverKey: candidateId, workloadId, result: result({ mean_ttft_ms: ttft, total_token_throughput: tput }) });
    const trials = [BASE, FP8, g('g/b/c1', 'baseline', 'sharegpt-c1', 40, 300), g('g/b/c4', 'baseline', 'sharegpt-c4', 100, 1000)];
    render(<ResultsTab project={project(trials)} />);
    expect(screen.getByRole('figure', { name: 'Mean TTFT vs throughput across concurrency' })).toBeTruthy();
    expect(screen.getByRole('figure', { name: 'Pareto front: Mean TTFT vs throughput' })).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Latency'), { target: { value: 'mean_tpot_ms' } });
    // no TPOT in the generalisation trials: no curve, and it says why
    expect(screen.getByText(/needs a configuration measured at two or more concurrencies/)).toBeTruthy();
  });

  it('works the charts out only when their section comes near the window', () => {
    let reveal = () => {};
    vi.stubGlobal(
      'IntersectionObserver',
      class {
        constructor(private readonly callback: (entries: { isIntersecting: boolean }[]) => void) {}
        observe() {
          reveal = () => this.callback([{ isIntersecting: true }]);
        }
        disconnect() {}
      },
    );
    try {
      render(<ResultsTab project={project([BASE, FP8])} />);
      const section = screen.getByRole('region', { name: 'Study charts' });
      expect(within(section).queryByRole('figure')).toBeNull();
      expect(screen.getAllByRole('row').length).toBeGreaterThan(2);
      act(() => reveal());
      expect(within(section).getByRole('figure', { name: 'Pareto front: Mean TTFT vs throughput' })).toBeTruthy();
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
