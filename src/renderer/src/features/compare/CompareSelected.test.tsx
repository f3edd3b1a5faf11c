import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { CompareSelected } from './CompareSelected';

// jsdom has no canvas: the charts are stand-ins; the dialog's headings are what is checked.
vi.mock('../../components/EChart', () => ({
  EChart: ({ title }: { title: string }) => <figure aria-label={title} />,
  useThemeMode: () => 'light',
}));

afterEach(cleanup);

const entry = (id: string, ttft: number): ResultEntry => ({
  id,
  kind: 'measured',
  status: 'ok',
  addedAt: '2026-01-01T00:00:00.000Z',
  title: id,
  result: { schemaVersion: 1, metrics: { mean_ttft_ms: ttft }, extra: {} },
});

describe('CompareSelected', () => {
  it('titles the dialog once: no second heading of the comparison under the dialog’s own', () => {
    render(<CompareSelected entries={[entry('res-a-00000000', 80), entry('res-b-00000000', 100)]} />);
    fireEvent.click(screen.getByRole('button', { name: 'Compare selected (2)' }));
    const dialog = screen.getByRole('dialog', { name: 'Compare results' });
    expect(within(dialog).queryByRole('heading', { name: 'Comparison' })).toBeNull();
    expect(within(dialog).getAllByRole('heading', { name: 'Compare results' })).toHaveLength(1);
    // The comparison is still a named region, with its table.
    expect(within(within(dialog).getByRole('region', { name: 'Comparison' })).getByRole('table', { name: 'Comparison' })).toBeTruthy();
  });
});
