import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { syncStoreWithCore } from '../../store';
import { coreError, createFakeApi } from '../../testing/fake-api';
import { TWO_NODE_CLUSTER, makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { HostCard } from './HostCard';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const HOST = makeHost({ alias: 'h200', proxyJump: 'bastion', hasSavedPassword: true });

async function renderCard(api = createFakeApi(), host = HOST) {
  api.handle('hosts:list', () => [host]);
  api.handle('prompts:pending', () => []);
  const rendered = renderWithStore(<HostCard hostId={host.id} />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  return rendered;
}

const badge = () => screen.getByText(/^Connection state:/).parentElement!.textContent;

describe('HostCard', () => {
  it('shows what the host connects through: alias, jump host, key, saved password', async () => {
    await renderCard();
    const card = screen.getByRole('article', { name: 'h200-lab' });
    for (const fact of ['alias h200', 'via bastion', '~/.ssh/id_ed25519', 'password in keychain']) expect(within(card).getByText(fact)).toBeTruthy();
  });

  it('counts down to the next reconnect attempt, then shows the core’s next state', async () => {
    vi.useFakeTimers({ now: new Date('2025-06-01T12:00:00Z') });
    const { api } = await renderCard();
    expect(badge()).toBe('Connection state: Not connected');
    act(() => api.emit('hosts:state', { hostId: HOST.id, state: 'reconnecting', attempt: 2, retryInSeconds: 5, message: 'the connection dropped' }));
    expect(badge()).toBe('Connection state: Reconnecting · attempt 2 in 5 s');
    act(() => vi.advanceTimersByTime(2_000));
    expect(badge()).toBe('Connection state: Reconnecting · attempt 2 in 3 s');
    act(() => vi.advanceTimersByTime(3_000));
    expect(badge()).toBe('Connection state: Reconnecting · attempt 2');
    act(() => api.emit('hosts:state', { hostId: HOST.id, state: 'ready' }));
    expect(badge()).toBe('Connection state: Connected until unused');
  });

  it('Connect holds the connection and turns into Disconnect', async () => {
    const api = createFakeApi({
      'hosts:connect': () => ({ hostId: HOST.id, state: 'ready' }),
      'hosts:disconnect': () => ({ hostId: HOST.id, state: 'ready' }),
    });
    await renderCard(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Connect h200-lab' }));
    });
    expect(api.calls.find((c) => c.name === 'hosts:connect')?.input).toEqual({ hostId: HOST.id });
    expect(badge()).toBe('Connection state: Connected');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Disconnect h200-lab' }));
    });
    expect(api.calls.find((c) => c.name === 'hosts:disconnect')?.input).toEqual({ hostId: HOST.id });
    // Let go, the connection stays open until unused: the card says so and offers to keep it.
    expect(badge()).toBe('Connection state: Connected until unused');
    expect(screen.getByRole('button', { name: 'Keep connected to h200-lab' })).toBeTruthy();
    act(() => api.emit('hosts:state', { hostId: HOST.id, state: 'idle' }));
    expect(badge()).toBe('Connection state: Not connected');
    expect(screen.getByRole('button', { name: 'Connect h200-lab' })).toBeTruthy();
  });

  it('shows why Connect failed', async () => {
    const api = createFakeApi({
      'hosts:connect': () => coreError({ code: 'AUTH_FAILED', message: 'Permission denied (publickey,password) for ml@gpu-1.lab:22.' }),
    });
    await renderCard(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Connect h200-lab' }));
    });
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Could not connect')).toBeTruthy();
    expect(within(alert).getByText('Permission denied (publickey,password) for ml@gpu-1.lab:22.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Connect h200-lab' })).toBeTruthy();
  });
});

describe('HostCard of a Slurm cluster’s login node', () => {
  const CLUSTER_HOST = makeHost({ label: 'hpc', address: 'login.hpc.lab', scheduler: 'slurm' });

  it('reads the cluster instead of the GPU inventory, showing progress, then its partitions and GPUs', async () => {
    let answer: (value: typeof TWO_NODE_CLUSTER) => void = () => {};
    const api = createFakeApi({ 'hosts:cluster': () => new Promise((resolve) => (answer = resolve)) });
    await renderCard(api, CLUSTER_HOST);
    const card = screen.getByRole('article', { name: /^hpc/ });
    expect(within(card).getByText('Slurm cluster').getAttribute('title')).toBe('The login node of a Slurm cluster: Servelab reads the cluster through it and runs nothing on it.');
    expect(within(card).getByText(/^Not read yet\. Read the cluster/)).toBeTruthy();
    const read = within(card).getByRole('button', { name: 'Read the Slurm cluster of hpc' });
    expect(read.textContent).toBe('Read cluster');
    read.focus();
    expect(document.activeElement).toBe(read);
    await act(async () => {
      fireEvent.click(read);
    });
    expect(within(card).getByRole('status').textContent).toBe('Reading the Slurm cluster through login.hpc.lab:22…');
    expect(card.getAttribute('aria-busy')).toBe('true');
    await act(async () => {
      answer(TWO_NODE_CLUSTER);
    });
    expect(api.calls.filter((c) => c.name.startsWith('hosts:') && c.name !== 'hosts:list' && c.name !== 'hosts:states')).toEqual([
      { name: 'hosts:cluster', input: { hostId: CLUSTER_HOST.id } },
    ]);
    const view = within(card).getByRole('region', { name: 'Slurm cluster of hpc' });
    expect(within(view).getByText('2 × fake')).toBeTruthy();
    expect(within(view).getAllByRole('row').map((r) => r.querySelector('th')?.textContent)).toContain('debugdefault');
    expect(within(card).getByRole('button', { name: 'Refresh the Slurm cluster of hpc' })).toBeTruthy();
  });

  it('shows the core’s message when the cluster cannot be read', async () => {
    const message = 'scontrol -o show partition failed on the login node (exit code 1): slurm_load_partitions: Unable to contact slurm controller (connect failure)';
    const api = createFakeApi({ 'hosts:cluster': () => coreError({ code: 'REMOTE_COMMAND_FAILED', message }) });
    await renderCard(api, CLUSTER_HOST);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Read the Slurm cluster of hpc' }));
    });
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Could not read the Slurm cluster')).toBeTruthy();
    expect(within(alert).getByText(message)).toBeTruthy();
    expect(within(alert).getByText(/REMOTE_COMMAND_FAILED/)).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Slurm cluster of hpc' })).toBeNull();
  });
});
