import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { coreError, createFakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { AddHostForm } from './AddHostForm';

afterEach(cleanup);

const input = (name: RegExp | string) => screen.getByLabelText(name) as HTMLInputElement;
const type = (name: RegExp | string, value: string) => fireEvent.change(input(name), { target: { value } });
const errorOf = (el: HTMLElement) => {
  const id = el.getAttribute('aria-describedby');
  return id ? document.getElementById(id)?.textContent : undefined;
};

describe('AddHostForm', () => {
  it('validates as the user types, with errors that name the field', () => {
    renderWithStore(<AddHostForm />);
    type('Address', 'bad host;rm');
    expect(errorOf(input('Address'))).toBe('Address may only hold letters, digits and . _ - : [ ] %');
    expect(input('Address').getAttribute('aria-invalid')).toBe('true');

    type('Address', 'gpu-1.lab');
    expect(input('Address').getAttribute('aria-invalid')).toBeNull();

    type('Port', '70000');
    expect(errorOf(input('Port'))).toBe('Port must be 1–65535');
    type('Port', 'ssh');
    expect(errorOf(input('Port'))).toBe('Port must be a whole number');
    type('Port', '');
    expect(errorOf(input('Port'))).toBe('Port is required');

    type('User', 'x');
    type('User', '');
    expect(errorOf(input('User'))).toBe('User is required');
  });

  it('starts with port 22 and the key file placeholder', () => {
    renderWithStore(<AddHostForm />);
    expect(input('Port').value).toBe('22');
    expect(input('Key file path').placeholder).toBe('~/.ssh/id_ed25519');
  });

  it('on submit shows every missing field and focuses the first', () => {
    const { api } = renderWithStore(<AddHostForm />);
    fireEvent.submit(input('Address').form!);
    expect(errorOf(input('Address'))).toBe('Address is required');
    expect(errorOf(input('User'))).toBe('User is required');
    expect(errorOf(input('Key file path'))).toBe('Key file path is required');
    expect(document.activeElement).toBe(input('Address'));
    expect(api.calls).toEqual([]);
  });

  it('asks for the password when password sign-in is chosen', () => {
    renderWithStore(<AddHostForm />);
    fireEvent.click(screen.getByRole('radio', { name: /Password/ }));
    expect(screen.queryByLabelText('Key file path')).toBeNull();
    fireEvent.submit(input('Address').form!);
    expect(errorOf(input('SSH password'))).toBe('SSH password is required');
  });

  it('sends the input and resets after the core stored the host', async () => {
    const api = createFakeApi({ 'hosts:add': (i) => makeHost({ label: i.label ?? 'ml@gpu-1.lab' }) });
    const { store } = renderWithStore(<AddHostForm />, api);
    type(/^Label/, 'h200');
    type('Address', 'gpu-1.lab');
    type('User', 'ml');
    type('Key file path', '~/.ssh/id_ed25519');
    await act(async () => {
      fireEvent.submit(input('Address').form!);
    });
    expect(api.calls[0]).toEqual({
      name: 'hosts:add',
      input: { label: 'h200', address: 'gpu-1.lab', port: 22, user: 'ml', auth: { method: 'key', identityFile: '~/.ssh/id_ed25519' } },
    });
    expect(screen.getByRole('status').textContent).toBe('Added h200.');
    expect(input('Address').value).toBe('');
    expect(document.activeElement).toBe(input('Address'));
    // A fresh form is not an invalid one: no errors until the user edits or submits again.
    fireEvent.blur(input('Address'));
    expect(document.querySelectorAll('[aria-invalid="true"]')).toHaveLength(0);
    expect(store.getState().hosts).toHaveLength(1);
  });

  it('shows the core’s BAD_INPUT issues on the matching fields', async () => {
    const api = createFakeApi({
      'hosts:add': () =>
        coreError({
          code: 'BAD_INPUT',
          message: 'Invalid input for hosts:add',
          issues: [
            { path: 'auth.identityFile', message: 'does not exist on this machine' },
            { path: 'user', message: 'is not allowed here' },
          ],
        }),
    });
    renderWithStore(<AddHostForm />, api);
    type('Address', 'gpu-1.lab');
    type('User', 'ml');
    type('Key file path', '~/.ssh/missing');
    await act(async () => {
      fireEvent.submit(input('Address').form!);
    });
    await waitFor(() => expect(errorOf(input('Key file path'))).toBe('Key file path does not exist on this machine'));
    expect(errorOf(input('User'))).toBe('User is not allowed here');
    // Editing the field clears the core's verdict on it.
    type('User', 'ml2');
    expect(errorOf(input('User'))).toBeUndefined();
  });

  it('shows other failures of the core above the button', async () => {
    const api = createFakeApi({ 'hosts:add': () => coreError({ code: 'INTERNAL', message: 'hosts.json is read-only' }) });
    renderWithStore(<AddHostForm />, api);
    type('Address', 'gpu-1.lab');
    type('User', 'ml');
    type('Key file path', 'k');
    await act(async () => {
      fireEvent.submit(input('Address').form!);
    });
    expect(screen.getByRole('alert').textContent).toBe('Could not add the host: hosts.json is read-only');
  });
});
