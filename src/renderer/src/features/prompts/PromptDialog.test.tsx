import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setLocale } from '../../i18n';
import { syncStoreWithCore } from '../../store';
import { createFakeApi, type FakeApi } from '../../testing/fake-api';
import { makeHost, makePrompt } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { PromptDialog, promptWords } from './PromptDialog';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

function setup(api: FakeApi = createFakeApi()) {
  api.handle('prompts:answer', () => ({ accepted: true }));
  api.handle('prompts:cancel', () => ({ cancelled: true }));
  const rendered = renderWithStore(<PromptDialog />, api);
  act(() => rendered.store.getState().applyHostsChanged([makeHost()]));
  return rendered;
}

const KBD = makePrompt({
  requestId: 'kbd-1',
  kind: 'keyboard-interactive',
  title: 'Login to ml@gpu-1.lab:22',
  message: 'Two-factor login',
  prompts: [
    { text: 'Password:', echo: false },
    { text: 'Verification code:', echo: true },
  ],
  allowRemember: false,
});

describe('PromptDialog', () => {
  it('words a passphrase or password question in the app’s language from what the core says it is about', () => {
    const { store } = setup();
    try {
      act(() => {
        store.getState().setLocale('tr');
        store.getState().applyPromptRequest(
          makePrompt({ about: { kind: 'passphrase', key: '~/.ssh/id_ed25519', login: 'ml@gpu-1.lab:22', attempt: 1, tries: 3 } }),
        );
      });
      const dialog = screen.getByRole('dialog', { name: '~/.ssh/id_ed25519 anahtarının parolası' });
      expect(within(dialog).getByText('ml@gpu-1.lab:22 makinesinde oturum açmak için ~/.ssh/id_ed25519 anahtarının parolasını girin.')).toBeTruthy();
      expect((within(dialog).getByLabelText('Anahtar parolası:') as HTMLInputElement).type).toBe('password');
      expect(dialog.textContent).not.toMatch(/Passphrase|Enter the/);
      const password = makePrompt({ kind: 'password', about: { kind: 'password', address: 'ml@gpu-1.lab:22', user: 'ml', login: 'h200-lab', attempt: 2, tries: 3, wrongBefore: true } });
      expect(promptWords(password)).toEqual({ title: 'ml@gpu-1.lab:22 için parola', message: 'Parola yanlıştı; yeniden deneyin (2 / 3).', fields: ['Parola:'] });
      setLocale('en');
      expect(promptWords(password)).toEqual({ title: 'Password for ml@gpu-1.lab:22', message: 'The password was wrong; try again (2 of 3).', fields: ['Password:'] });
      // The server's own keyboard-interactive words stay as they came.
      expect(promptWords(KBD)).toEqual({ title: 'Login to ml@gpu-1.lab:22', message: 'Two-factor login', fields: ['Password:', 'Verification code:'] });
    } finally {
      setLocale('en');
    }
  });

  it('shows the question with its host, a masked input for a secret and the keychain option', () => {
    const { store } = setup();
    act(() => store.getState().applyPromptRequest(makePrompt()));
    const dialog = screen.getByRole('dialog', { name: 'Passphrase for ~/.ssh/id_ed25519' });
    expect(within(dialog).getByText('Enter the passphrase of key ~/.ssh/id_ed25519 to log in to ml@gpu-1.lab:22.')).toBeTruthy();
    expect(within(dialog).getByText('h200-lab')).toBeTruthy();
    const input = within(dialog).getByLabelText('Passphrase:') as HTMLInputElement;
    expect(input.type).toBe('password');
    expect(document.activeElement).toBe(input);
    expect((within(dialog).getByRole('checkbox', { name: 'Remember in the OS keychain' }) as HTMLInputElement).checked).toBe(false);
    expect(within(dialog).getByRole('button', { name: 'Unlock key' })).toBeTruthy();
  });

  it('sends one answer per prompt, in order, masking only the secret ones, with no keychain option when not offered', async () => {
    const { api, store } = setup();
    act(() => store.getState().applyPromptRequest(KBD));
    const dialog = screen.getByRole('dialog', { name: 'Login to ml@gpu-1.lab:22' });
    expect((within(dialog).getByLabelText('Password:') as HTMLInputElement).type).toBe('password');
    expect((within(dialog).getByLabelText('Verification code:') as HTMLInputElement).type).toBe('text');
    expect(within(dialog).queryByRole('checkbox')).toBeNull();
    fireEvent.change(within(dialog).getByLabelText('Verification code:'), { target: { value: '123456' } });
    fireEvent.change(within(dialog).getByLabelText('Password:'), { target: { value: 'hunter2' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    });
    expect(api.calls.filter((c) => c.name === 'prompts:answer').map((c) => c.input)).toEqual([
      { requestId: 'kbd-1', answers: ['hunter2', '123456'], remember: false },
    ]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('passes the remember choice along', async () => {
    const { api, store } = setup();
    act(() => store.getState().applyPromptRequest(makePrompt()));
    fireEvent.change(screen.getByLabelText('Passphrase:'), { target: { value: 'open sesame' } });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Remember in the OS keychain' }));
    await act(async () => {
      fireEvent.submit(screen.getByLabelText('Passphrase:').closest('form')!);
    });
    expect(api.calls.find((c) => c.name === 'prompts:answer')?.input).toEqual({ requestId: 'req-1', answers: ['open sesame'], remember: true });
  });

  it('Cancel (or Escape) cancels the question and sends no answer', async () => {
    const { api, store } = setup();
    act(() => store.getState().applyPromptRequest(makePrompt()));
    fireEvent.change(screen.getByLabelText('Passphrase:'), { target: { value: 'typed' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    });
    expect(api.calls.map((c) => c.name)).toEqual(['prompts:cancel']);
    expect(api.calls[0]?.input).toEqual({ requestId: 'req-1' });
    expect(screen.queryByRole('dialog')).toBeNull();

    act(() => store.getState().applyPromptRequest(makePrompt({ requestId: 'req-2' })));
    await act(async () => {
      fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    });
    expect(api.calls.at(-1)).toEqual({ name: 'prompts:cancel', input: { requestId: 'req-2' } });
  });

  it('closes when the core settles the question elsewhere, and shows the next one in the queue', async () => {
    const api = createFakeApi({ 'hosts:list': () => [makeHost()], 'prompts:pending': () => [] });
    const { store } = setup(api);
    await act(async () => {
      syncStoreWithCore(api, store);
    });
    act(() => {
      api.emit('prompts:request', makePrompt());
      api.emit('prompts:request', KBD);
    });
    expect(screen.getByRole('dialog', { name: 'Passphrase for ~/.ssh/id_ed25519' })).toBeTruthy();
    expect(screen.getByText('1 more question waiting')).toBeTruthy();
    act(() => api.emit('prompts:settled', { requestId: 'req-1', hostId: 'host-1', outcome: 'timed-out' }));
    expect(screen.getByRole('dialog', { name: 'Login to ml@gpu-1.lab:22' })).toBeTruthy();
    expect(screen.queryByText(/more question/)).toBeNull();
    act(() => api.emit('prompts:settled', { requestId: 'kbd-1', hostId: 'host-1', outcome: 'answered' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('counts down to the moment the core stops waiting', () => {
    vi.useFakeTimers({ now: new Date('2025-06-01T12:00:00Z') });
    const { store } = setup();
    act(() => store.getState().applyPromptRequest(makePrompt({ expiresAt: Date.now() + 65_000 })));
    expect(screen.getByText('Servelab waits 1:05 more for an answer')).toBeTruthy();
    act(() => vi.advanceTimersByTime(10_000));
    expect(screen.getByText('Servelab waits 0:55 more for an answer')).toBeTruthy();
    act(() => vi.advanceTimersByTime(60_000));
    expect(screen.getByText('This question timed out.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Unlock key' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('keeps the question open with the reason when the core refuses the answer', async () => {
    const api = createFakeApi();
    const { store } = setup(api);
    api.handle('prompts:answer', () => {
      throw new Error('Expected 1 answer(s).');
    });
    act(() => store.getState().applyPromptRequest(makePrompt()));
    await act(async () => {
      fireEvent.submit(screen.getByLabelText('Passphrase:').closest('form')!);
    });
    expect(screen.getByRole('alert').textContent).toBe('The answer was not taken: Expected 1 answer(s).');
    expect(screen.getByRole('dialog')).toBeTruthy();
  });
});
