import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { CompareView } from './CompareView';
import { entryColumn, publishedColumn } from './compare-model';

// jsdom has no canvas: the charts are stand-ins that show their title; the numbers are what is checked.
vi.mock('../../components/EChart', () => ({
  EChart: ({ title }: { title: string }) => <figure aria-label={title} />,
  useThemeMode: () => 'light',
}));

afterEach(cleanup);

function result(metrics: Record<string, number>): ResultEntry {
  return { id: 'res-t-00000000', kind: 'measured', status: 'ok', addedAt: '2026-01-01T00:00:00.000Z', title: 'r', result: { schemaVersion: 1, metrics, extra: {} } };
}

function comparisonCell(metric: RegExp, column: number) {
  const table = screen.getByRole('table', { name: 'Comparison' });
  const row = within(table).getByRole('rowheader', { name: metric }).closest('tr')!;
  return within(row).getAllByRole('cell')[column]!;
}

describe('CompareView with library entries', () => {
  it('compares an imported result with a measured one, throughput higher being better', () => {
    const imported: ResultEntry = { ...result({ output_throughput: 500, mean_ttft_ms: 64 }), id: 'res-i-0000000a', kind: 'imported', title: 'h100.txt#1' };
    const measured: ResultEntry = { ...result({ output_throughput: 600, mean_ttft_ms: 64.2 }), id: 'res-m-0000000b', title: 'measured run' };
    render(<CompareView columns={[entryColumn(imported), entryColumn(measured)]} />);
    expect(screen.getByRole('columnheader', { name: /h100\.txt#1 baseline/ })).toBeTruthy();
    expect(comparisonCell(/^Output token throughput/, 1).textContent).toContain('+100.00 (+20.0%) better');
    expect(comparisonCell(/^Mean TTFT/, 1).textContent).toContain('+0.20 (+0.3%) same');
  });
});

describe('CompareView with a published result', () => {
  // Hand-made edge case: a measured trial's column and the guide's printed numbers for the same candidate.
  const published = publishedColumn({
    id: 'published-l169',
    kind: 'published',
    source: { file: 'guide.tr.txt', title: 'A guide', line: 169 },
    stageId: 'engine',
    candidateId: 'sglang-0.5.3.post3',
    workloadId: 'sharegpt-100-c4',
    label: 'SGLang',
    status: 'ok',
    result: { schemaVersion: 1, metrics: { output_throughput: 525.59, mean_ttft_ms: 27.7 }, extra: {} },
  });

  it('labels the published column with its source, shows its change against the measured baseline, and never offers it as the baseline', () => {
    const measured: ResultEntry = { ...result({ output_throughput: 500, mean_ttft_ms: 30 }), id: 'res-m-0000000c', title: 'measured SGLang' };
    // Even asked for, the published column is not taken as the baseline.
    render(<CompareView columns={[published, entryColumn(measured)]} defaultBaselineId="published-l169" />);
    const header = screen.getByRole('columnheader', { name: /SGLang · sharegpt-100-c4/ });
    expect(within(header).getByText('published')).toBeTruthy();
    expect(within(header).getByText('guide.tr.txt:169')).toBeTruthy();
    expect(screen.getByRole('columnheader', { name: /measured SGLang baseline/ })).toBeTruthy();
    expect(comparisonCell(/^Output token throughput/, 0).textContent).toContain('+25.59 (+5.1%) better');
    const baseline = screen.getByRole('combobox', { name: 'Baseline' });
    expect(within(baseline).getAllByRole('option').map((o) => o.textContent)).toEqual(['measured SGLang']);
  });
});
