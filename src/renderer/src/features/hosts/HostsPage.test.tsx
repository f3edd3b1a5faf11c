import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { syncStoreWithCore } from '../../store';
import { coreError, createFakeApi, type FakeApi } from '../../testing/fake-api';
import { H200_INVENTORY, UNKNOWN_KEY_DETAILS, makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { HostsPage } from './HostsPage';

afterEach(cleanup);

const HOST = makeHost();

const CHANGED_WARNING = `@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @
@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!
Host key for [gpu-1.lab]:22 has changed and you have requested strict checking.`;

async function renderPage(api: FakeApi) {
  const rendered = renderWithStore(<HostsPage />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  return rendered;
}

describe('Hosts page', () => {
  it('shows the empty state when the core has no hosts', async () => {
    await renderPage(createFakeApi({ 'hosts:list': () => [] }));
    expect(screen.getByText('No hosts yet')).toBeTruthy();
  });

  it('lists a host with its target and idle state', async () => {
    await renderPage(createFakeApi({ 'hosts:list': () => [HOST] }));
    const card = screen.getByRole('article', { name: 'h200-lab' });
    expect(within(card).getByText('ml@gpu-1.lab:22')).toBeTruthy();
    expect(within(card).getByText('Not connected')).toBeTruthy();
    expect(within(card).getByRole('button', { name: 'Read inventory of h200-lab' })).toBeTruthy();
  });

  it('unknown host key → dialog → accept → acceptHostKey with the fingerprint → inventory shown', async () => {
    let accepted = false;
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'hosts:inventory': () =>
        accepted
          ? H200_INVENTORY
          : coreError({ code: 'HOST_KEY_UNKNOWN', message: 'The host key of gpu-1.lab is unknown.', details: { ...UNKNOWN_KEY_DETAILS, publicKey: 'AAAAC3' } }),
      'hosts:acceptHostKey': ({ fingerprint }) => {
        accepted = true;
        return { accepted: { ...UNKNOWN_KEY_DETAILS, fingerprint } };
      },
    });
    await renderPage(api);
    const readButton = screen.getByRole('button', { name: 'Read inventory of h200-lab' });
    await act(async () => {
      fireEvent.click(readButton);
    });

    const dialog = await screen.findByRole('dialog', { name: 'Unknown host key' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(within(dialog).getByText(UNKNOWN_KEY_DETAILS.fingerprint)).toBeTruthy();
    expect(within(dialog).getByText('ssh-ed25519')).toBeTruthy();
    expect(within(dialog).getByText('gpu-1.lab:22')).toBeTruthy();
    // Cancel has focus first: the safe choice.
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));

    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Accept and connect' }));
    });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.filter((c) => c.name === 'hosts:acceptHostKey').map((c) => c.input)).toEqual([
      { hostId: HOST.id, fingerprint: UNKNOWN_KEY_DETAILS.fingerprint },
    ]);
    expect(await screen.findByText('NVIDIA H200 · 143771 MiB · sm 9.0')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Refresh inventory of h200-lab' })).toBeTruthy();
    expect(api.calls.filter((c) => c.name === 'hosts:inventory')).toHaveLength(2);
  });

  it('the host key dialog traps focus and closes on Escape without accepting', async () => {
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'hosts:inventory': () => coreError({ code: 'HOST_KEY_UNKNOWN', message: 'unknown', details: UNKNOWN_KEY_DETAILS }),
    });
    await renderPage(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Read inventory of h200-lab' }));
    });
    const dialog = await screen.findByRole('dialog');
    const cancel = within(dialog).getByRole('button', { name: 'Cancel' });
    const accept = within(dialog).getByRole('button', { name: 'Accept and connect' });
    accept.focus();
    fireEvent.keyDown(dialog, { key: 'Tab' });
    expect(document.activeElement).toBe(cancel);
    fireEvent.keyDown(dialog, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(accept);

    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.calls.some((c) => c.name === 'hosts:acceptHostKey')).toBe(false);
    expect(screen.getByText(/The host key was not accepted/)).toBeTruthy();
  });

  it('a changed host key shows the full warning and offers no way to accept', async () => {
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'hosts:inventory': () =>
        coreError({
          code: 'HOST_KEY_CHANGED',
          message: CHANGED_WARNING,
          details: { fingerprint: 'SHA256:newnewnew', expectedFingerprint: 'SHA256:oldoldold' },
        }),
    });
    await renderPage(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Read inventory of h200-lab' }));
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Host key changed: connection refused')).toBeTruthy();
    const pre = alert.querySelector('pre');
    expect(pre?.textContent).toBe(CHANGED_WARNING);
    expect(within(alert).getByText('Presented now').nextElementSibling?.textContent).toBe('SHA256:newnewnew');
    expect(within(alert).getByText('Accepted before').nextElementSibling?.textContent).toBe('SHA256:oldoldold');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByRole('button', { name: /accept/i })).toBeNull();
    expect(within(screen.getByRole('article')).getByText('Failed')).toBeTruthy();
  });

  it('shows a readable error for other failures', async () => {
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'hosts:inventory': () => coreError({ code: 'AUTH_FAILED', message: 'Permission denied (publickey) for ml@gpu-1.lab.' }),
    });
    await renderPage(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Read inventory of h200-lab' }));
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('Permission denied (publickey) for ml@gpu-1.lab.')).toBeTruthy();
    expect(within(alert).getByText('Error code AUTH_FAILED')).toBeTruthy();
  });

  it('shows the connecting state while the read runs', async () => {
    let finish: (value: typeof H200_INVENTORY) => void = () => {};
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'hosts:inventory': () => new Promise((resolve) => (finish = resolve)),
    });
    await renderPage(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Read inventory of h200-lab' }));
    });
    expect(within(screen.getByRole('article')).getByRole('status').textContent).toBe('Connecting to gpu-1.lab:22…');
    expect(screen.getByText('Connecting')).toBeTruthy();
    await act(async () => finish(H200_INVENTORY));
    expect(screen.getByText('NVIDIA H200 · 143771 MiB · sm 9.0')).toBeTruthy();
    expect(screen.getByText('Connected until unused')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Keep connected to h200-lab' })).toBeTruthy();
  });

  it('removes a host only after confirmation', async () => {
    const api = createFakeApi({ 'hosts:list': () => [HOST], 'hosts:remove': () => ({ removed: true }) });
    await renderPage(api);
    fireEvent.click(screen.getByRole('button', { name: 'Remove h200-lab' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove h200-lab?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(api.calls.some((c) => c.name === 'hosts:remove')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Remove h200-lab' }));
    await act(async () => {
      fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Remove host' }));
    });
    expect(api.calls.find((c) => c.name === 'hosts:remove')?.input).toEqual({ hostId: HOST.id });
    expect(screen.queryByRole('article')).toBeNull();
    expect(screen.getByText('No hosts yet')).toBeTruthy();
  });

  it('shows the demo lab as simulated, without SSH settings, and restores it after removal', async () => {
    const demo = makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab (simulated H100 box)', address: 'localhost', port: null, user: null, identityFile: null });
    const api = createFakeApi({ 'hosts:list': () => [HOST, demo], 'hosts:remove': () => ({ removed: true }), 'hosts:restoreDemoLab': () => demo });
    await renderPage(api);
    const card = screen.getByRole('article', { name: demo.label });
    expect(within(card).getByText('Simulated')).toBeTruthy();
    expect(within(card).getByText('This machine · no SSH')).toBeTruthy();
    expect(within(card).queryByRole('button', { name: `Edit ${demo.label}` })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Restore demo lab' })).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: `Remove ${demo.label}` }));
    const dialog = screen.getByRole('dialog', { name: `Remove ${demo.label}?` });
    expect(within(dialog).getByText(/Restore demo lab/)).toBeTruthy();
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Remove host' }));
    });
    expect(screen.queryByRole('article', { name: demo.label })).toBeNull();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Restore demo lab' }));
    });
    expect(api.calls.some((c) => c.name === 'hosts:restoreDemoLab')).toBe(true);
    expect(screen.getByRole('article', { name: demo.label })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Restore demo lab' })).toBeNull();
  });

  it('follows hosts:changed from the core', async () => {
    const api = createFakeApi({ 'hosts:list': () => [] });
    await renderPage(api);
    act(() => api.emit('hosts:changed', { hosts: [HOST, makeHost({ id: 'host-2', label: 'a100-lab' })] }));
    expect(screen.getAllByRole('article').map((a) => a.getAttribute('aria-labelledby') && a.querySelector('h3')?.textContent)).toEqual([
      'h200-lab',
      'a100-lab',
    ]);
  });
});
