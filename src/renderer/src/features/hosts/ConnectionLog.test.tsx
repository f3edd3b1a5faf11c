import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { syncStoreWithCore } from '../../store';
import { createFakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { formatLogTime } from './format';
import { HostCard } from './HostCard';

afterEach(cleanup);

const HOST = makeHost();
const T0 = Date.UTC(2025, 5, 1, 12, 0, 0, 250);

async function renderCard(entries = [
  { time: T0, level: 'info' as const, message: 'Connecting to jump host bastion (ops@bastion.lab:2222)…' },
  { time: T0 + 40, level: 'error' as const, message: "The authenticity of jump host 'bastion.lab' can't be established." },
]) {
  const api = createFakeApi({ 'hosts:list': () => [HOST], 'prompts:pending': () => [], 'hosts:connectionLog': () => ({ entries }) });
  const rendered = renderWithStore(<HostCard hostId={HOST.id} />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  return rendered;
}

async function openLog() {
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Connection log of h200-lab' }));
  });
  return screen.getByRole('log', { name: 'Connection log of h200-lab' });
}

const rows = (log: HTMLElement) =>
  within(log)
    .getAllByRole('listitem')
    .map((li) => [...li.children].map((c) => c.textContent));

describe('connection log', () => {
  it('opens on demand with the core’s backlog: time, level, message', async () => {
    const { api } = await renderCard();
    const toggle = screen.getByRole('button', { name: 'Connection log of h200-lab' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(api.calls.some((c) => c.name === 'hosts:connectionLog')).toBe(false);
    const log = await openLog();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(api.calls.find((c) => c.name === 'hosts:connectionLog')?.input).toEqual({ hostId: HOST.id });
    expect(rows(log)).toEqual([
      [formatLogTime(T0), 'info', 'Connecting to jump host bastion (ops@bastion.lab:2222)…'],
      [formatLogTime(T0 + 40), 'error', "The authenticity of jump host 'bastion.lab' can't be established."],
    ]);
    expect(log.querySelector('li:last-child')?.className).toContain('level-error');
    expect(screen.getByText('2 entries')).toBeTruthy();
  });

  it('appends live hosts:log entries for its host only', async () => {
    const { api } = await renderCard();
    const log = await openLog();
    act(() => {
      api.emit('hosts:log', { hostId: HOST.id, entry: { time: T0 + 900, level: 'info', message: 'Logged in as ml with key ~/.ssh/id_ed25519.' } });
      api.emit('hosts:log', { hostId: 'other-host', entry: { time: T0 + 901, level: 'info', message: 'not this one' } });
    });
    expect(rows(log).map((r) => r[2])).toEqual([
      'Connecting to jump host bastion (ops@bastion.lab:2222)…',
      "The authenticity of jump host 'bastion.lab' can't be established.",
      'Logged in as ml with key ~/.ssh/id_ed25519.',
    ]);
    expect(screen.getByText('3 entries')).toBeTruthy();
  });

  it('follows the newest entry by default, and copies the whole log as text', async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await renderCard();
    await openLog();
    expect((screen.getByRole('checkbox', { name: 'Follow newest' }) as HTMLInputElement).checked).toBe(true);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy the connection log of h200-lab' }));
    });
    expect(writeText).toHaveBeenCalledWith(
      `${new Date(T0).toISOString()} INFO  Connecting to jump host bastion (ops@bastion.lab:2222)…\n` +
        `${new Date(T0 + 40).toISOString()} ERROR The authenticity of jump host 'bastion.lab' can't be established.`,
    );
    expect(screen.getByRole('button', { name: 'Copy the connection log of h200-lab' }).textContent).toBe('Copied');
  });

  it('says what to do when there is nothing yet', async () => {
    await renderCard([]);
    await openLog();
    expect(screen.getByText('Nothing yet. Connect or read the inventory, and each step shows up here.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Copy the connection log of h200-lab' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
