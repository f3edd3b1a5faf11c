import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ONE_NODE_CLUSTER, TWO_NODE_CLUSTER } from '../../testing/fixtures';
import { ClusterView } from './ClusterView';

afterEach(cleanup);

const rowsOf = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => [...row.querySelectorAll('th, td')].map((c) => c.textContent));

describe('ClusterView on the two-node capture (gpu2 drained, accounting on)', () => {
  it('names the cluster and its Slurm version', () => {
    render(<ClusterView cluster={TWO_NODE_CLUSTER} label="hpc" />);
    const view = screen.getByRole('region', { name: 'Slurm cluster of hpc' });
    expect(within(view).getByText('sl9d56')).toBeTruthy();
    expect(within(view).getByText('Slurm 22.05.8')).toBeTruthy();
  });

  it('lists the partitions with state, default marker, limits in h:mm and node counts', () => {
    render(<ClusterView cluster={TWO_NODE_CLUSTER} label="hpc" />);
    const section = screen.getByRole('region', { name: /^Partitions/ });
    expect(within(section).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Partition', 'State', 'Time limit (h:mm)', 'Default time (h:mm)', 'Nodes']);
    expect(rowsOf(within(section).getByRole('table'))).toEqual([
      ['debugdefault', 'up', 'unlimited', 'the limit', '2'],
      ['short', 'up', '1:00', '0:10', '2'],
    ]);
    expect(within(section).getByText('default').getAttribute('title')).toBe('Jobs that name no partition run here.');
  });

  it('shows each node type with GPU type × count, CPUs, memory, how many take jobs, and why the others do not', () => {
    render(<ClusterView cluster={TWO_NODE_CLUSTER} label="hpc" />);
    const section = screen.getByRole('region', { name: /^Node types/ });
    const type = within(section).getAllByRole('listitem')[0]!;
    expect(within(type).getByText('2 × fake')).toBeTruthy();
    const stats = Object.fromEntries([...type.querySelectorAll('dl > div')].map((d) => [d.querySelector('dt')!.textContent, d.querySelector('dd')!.textContent]));
    expect(stats).toEqual({ CPUs: '2', Memory: '3.9 GiB', 'Taking jobs': '1 of 2', Nodes: 'gpu1, gpu2', Partitions: 'debug, short' });
    const notTaking = within(type).getByRole('list', { name: 'Nodes not taking jobs' });
    expect(within(notTaking).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['gpu2 IDLE+DRAIN — fake GPU check']);
  });

  it('lists the user’s accounts with their partitions and QOS, the default account marked', () => {
    render(<ClusterView cluster={TWO_NODE_CLUSTER} label="hpc" />);
    const table = screen.getByRole('table', { name: 'Accounts of alice' });
    expect(rowsOf(table)).toEqual([
      ['teaching', 'short', 'normal'],
      ['researchdefault', 'all', 'normal, short-gpu'],
    ]);
    expect(screen.getByText('Accounting (sacct) is available: finished jobs keep their final state.')).toBeTruthy();
  });
});

describe('ClusterView on the one-node capture (accounting off)', () => {
  it('says accounting is not available, in sacctmgr’s words, and lists no accounts', () => {
    render(<ClusterView cluster={ONE_NODE_CLUSTER} label="one" />);
    const note = screen.getByRole('note');
    expect(note.textContent).toMatch(/^Accounting \(sacct\) is not available/);
    expect(within(note).getByText(/You are not running a supported accounting_storage plugin/)).toBeTruthy();
    expect(screen.queryByRole('table', { name: /^Accounts of/ })).toBeNull();
    expect(within(screen.getByRole('region', { name: /^Node types/ })).queryByRole('list', { name: 'Nodes not taking jobs' })).toBeNull();
  });
});
