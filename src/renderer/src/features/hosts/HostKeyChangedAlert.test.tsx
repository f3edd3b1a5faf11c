import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { syncStoreWithCore } from '../../store';
import { coreError, createFakeApi, type FakeApi } from '../../testing/fake-api';
import { CHANGED_KEY_DETAILS, H200_INVENTORY, UNKNOWN_JUMP_KEY_DETAILS, makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { HostsPage } from './HostsPage';

afterEach(cleanup);

const HOST = makeHost();
const WARNING = '@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@\nHost key verification failed.';

async function renderRefused(api: FakeApi) {
  const rendered = renderWithStore(<HostsPage />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Read inventory of h200-lab' }));
  });
  return rendered;
}

describe('changed host key', () => {
  it('replaces the key only after the end of the new fingerprint is typed, then reads again', async () => {
    let replaced = false;
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'prompts:pending': () => [],
      'hosts:inventory': () => (replaced ? H200_INVENTORY : coreError({ code: 'HOST_KEY_CHANGED', message: WARNING, details: { ...CHANGED_KEY_DETAILS, publicKey: 'AAAA' } })),
      'hosts:replaceHostKey': () => {
        replaced = true;
        return { replaced: CHANGED_KEY_DETAILS };
      },
    });
    await renderRefused(api);
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Host key changed: connection refused')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /accept/i })).toBeNull();

    fireEvent.click(within(alert).getByRole('button', { name: 'Replace the stored key…' }));
    const dialog = screen.getByRole('dialog', { name: 'Replace the stored key of gpu-1.lab:22?' });
    // The safe choice has focus; the fingerprints are there to compare.
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(within(dialog).getByText(CHANGED_KEY_DETAILS.expectedFingerprint)).toBeTruthy();
    const replace = within(dialog).getByRole('button', { name: 'Replace the stored key' }) as HTMLButtonElement;
    const field = within(dialog).getByLabelText('Type the last 8 characters of the new fingerprint');
    expect(replace.disabled).toBe(true);
    fireEvent.change(field, { target: { value: 'gpu-1.lab' } });
    expect(replace.disabled).toBe(true);
    // Case matters in a base64 fingerprint.
    fireEvent.change(field, { target: { value: CHANGED_KEY_DETAILS.fingerprint.slice(-8).toLowerCase() } });
    expect(replace.disabled).toBe(true);
    fireEvent.submit(field.closest('form')!);
    expect(api.calls.some((c) => c.name === 'hosts:replaceHostKey')).toBe(false);

    fireEvent.change(field, { target: { value: ` ${CHANGED_KEY_DETAILS.fingerprint.slice(-8)} ` } });
    expect(replace.disabled).toBe(false);
    await act(async () => {
      fireEvent.click(replace);
    });
    expect(api.calls.filter((c) => c.name === 'hosts:replaceHostKey').map((c) => c.input)).toEqual([
      { hostId: HOST.id, fingerprint: CHANGED_KEY_DETAILS.fingerprint },
    ]);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(await screen.findByText('NVIDIA H200 · 143771 MiB · sm 9.0')).toBeTruthy();
  });

  it('Cancel leaves the stored key alone', async () => {
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'prompts:pending': () => [],
      'hosts:inventory': () => coreError({ code: 'HOST_KEY_CHANGED', message: WARNING, details: CHANGED_KEY_DETAILS }),
    });
    await renderRefused(api);
    fireEvent.click(screen.getByRole('button', { name: 'Replace the stored key…' }));
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.calls.some((c) => c.name === 'hosts:replaceHostKey')).toBe(false);
    expect(screen.getByText('Host key changed: connection refused')).toBeTruthy();
  });

  it('names the jump host when it is the jump host’s key that changed', async () => {
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'prompts:pending': () => [],
      'hosts:inventory': () =>
        coreError({ code: 'HOST_KEY_CHANGED', message: WARNING, details: { ...UNKNOWN_JUMP_KEY_DETAILS, expectedFingerprint: CHANGED_KEY_DETAILS.expectedFingerprint } }),
    });
    await renderRefused(api);
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Jump host key changed: connection refused')).toBeTruthy();
    expect(within(alert).getByText('The changed key belongs to the jump host bastion.lab:2222, through which h200-lab is reached.')).toBeTruthy();
    fireEvent.click(within(alert).getByRole('button', { name: 'Replace the stored key…' }));
    expect(screen.getByRole('dialog', { name: 'Replace the stored key of jump host bastion.lab:2222?' })).toBeTruthy();
  });

  it('a revoked key is refused with no way on', async () => {
    const api = createFakeApi({
      'hosts:list': () => [HOST],
      'prompts:pending': () => [],
      'hosts:inventory': () =>
        coreError({ code: 'HOST_KEY_REVOKED', message: '@@@ WARNING: REVOKED HOST KEY DETECTED! @@@', details: { ...CHANGED_KEY_DETAILS, file: '/etc/ssh/ssh_known_hosts', line: 3 } }),
    });
    await renderRefused(api);
    const alert = screen.getByRole('alert');
    expect(within(alert).getByText('Host key revoked: connection refused')).toBeTruthy();
    expect(within(alert).getByText(/cannot be accepted or replaced/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: /replace|accept/i })).toBeNull();
  });
});
