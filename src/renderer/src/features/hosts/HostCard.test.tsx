import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { syncStoreWithCore } from '../../store';
import { coreError, createFakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { HostCard } from './HostCard';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const HOST = makeHost({ alias: 'h200', proxyJump: 'bastion', hasSavedPassword: true });

async function renderCard(api = createFakeApi()) {
  api.handle('hosts:list', () => [HOST]);
  api.handle('prompts:pending', () => []);
  const rendered = renderWithStore(<HostCard hostId={HOST.id} />, api);
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
    expect(screen.getByRole('button', { name: 'Keep h200-lab connected' })).toBeTruthy();
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
