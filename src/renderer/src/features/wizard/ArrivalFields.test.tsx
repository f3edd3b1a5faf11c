import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { setLocale } from '../../i18n';
import { workloadDraft, type WorkloadDraft } from '../../study-draft/draft';
import { ArrivalFields } from './ArrivalFields';

afterEach(() => {
  cleanup();
  setLocale('en');
});

function Harness({ onDraft }: { onDraft: (w: WorkloadDraft) => void }) {
  const [w, setW] = useState<WorkloadDraft>(workloadDraft(undefined));
  return (
    <ArrivalFields
      w={w}
      prefix="primary"
      error={() => undefined}
      onChange={(next) => {
        setW(next);
        onDraft(next);
      }}
    />
  );
}

describe('the workload’s arrival fields', () => {
  it('shows only the numbers each kind reads, and says what the client does with a constant rate', () => {
    let draft = workloadDraft(undefined);
    render(<Harness onDraft={(w) => (draft = w)} />);
    const kind = screen.getByLabelText('Arrivals');
    expect(screen.queryByLabelText('Request rate (req/s)')).toBeNull();
    fireEvent.change(kind, { target: { value: 'constant' } });
    expect(screen.getByText(/Needs benchmark client 0\.11\.1 or later: 0\.11\.0 would send them all at once/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Request rate (req/s)'), { target: { value: '8' } });
    expect(screen.queryByLabelText('Burstiness')).toBeNull();
    expect([draft.arrival, draft.requestRate]).toEqual(['constant', '8']);

    fireEvent.change(kind, { target: { value: 'ramp' } });
    expect(screen.queryByLabelText('Request rate (req/s)')).toBeNull();
    fireEvent.change(screen.getByLabelText('Ramp shape'), { target: { value: 'exponential' } });
    fireEvent.change(screen.getByLabelText('Start rate (req/s)'), { target: { value: '1' } });
    fireEvent.change(screen.getByLabelText('End rate (req/s)'), { target: { value: '16' } });
    expect([draft.arrival, draft.rampStrategy, draft.rampStart, draft.rampEnd]).toEqual(['ramp', 'exponential', '1', '16']);

    fireEvent.change(kind, { target: { value: 'gamma' } });
    expect(screen.getByText(/coefficient of variation of 1\/√burstiness/)).toBeTruthy();
    expect(screen.getByLabelText('Burstiness')).toBeTruthy();
  });

  it('speaks Turkish', () => {
    setLocale('tr');
    render(<Harness onDraft={() => undefined} />);
    fireEvent.change(screen.getByLabelText('İsteklerin gelişi'), { target: { value: 'constant' } });
    expect(screen.getByText(/0\.11\.0 hepsini aynı anda gönderir/)).toBeTruthy();
  });
});
