import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { coreError, createFakeApi } from '../../testing/fake-api';
import { SSH_CONFIG_ALIASES, makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { AddHostForm } from './AddHostForm';

afterEach(cleanup);

const input = (name: RegExp | string) => screen.getByLabelText(name) as HTMLInputElement;
const type = (name: RegExp | string, value: string) => fireEvent.change(input(name), { target: { value } });
const errorOf = (el: HTMLElement) => {
  const id = el.getAttribute('aria-describedby');
  const described = id ? document.getElementById(id) : null;
  return described?.className === 'field-error' ? described.textContent : undefined;
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
    // Empty is fine: the ssh config or 22 applies.
    type('Port', '');
    expect(errorOf(input('Port'))).toBeUndefined();

    type(/^Via jump host/, 'bastion;rm -rf');
    expect(errorOf(input(/^Via jump host/))).toBe('Via jump host (ProxyJump) must be [user@]host[:port] hops separated by commas');
    type(/^Via jump host/, 'ops@bastion:2222,gw');
    expect(errorOf(input(/^Via jump host/))).toBeUndefined();
  });

  it('offers user, port, identity file, ProxyJump and password as optional, with the keychain said plainly', () => {
    renderWithStore(<AddHostForm />);
    expect(input('Port').value).toBe('');
    expect(input('Port').placeholder).toBe('22');
    expect(input(/^Identity file/).placeholder).toBe('~/.ssh/id_ed25519');
    const password = input(/^Password/);
    expect(password.type).toBe('password');
    expect(document.getElementById(password.getAttribute('aria-describedby')!)?.textContent).toMatch(/^Remembered in the OS keychain/);
  });

  it('on submit asks only for the address and focuses it', () => {
    const { api } = renderWithStore(<AddHostForm />);
    fireEvent.submit(input('Address').form!);
    expect(errorOf(input('Address'))).toBe('Address is required');
    expect(errorOf(input(/^User/))).toBeUndefined();
    expect(errorOf(input(/^Identity file/))).toBeUndefined();
    expect(document.activeElement).toBe(input('Address'));
    expect(api.calls).toEqual([]);
  });

  it('sends only what was filled in and resets after the core stored the host', async () => {
    const api = createFakeApi({ 'hosts:add': (i) => makeHost({ label: i.label ?? 'ml@gpu-1.lab' }) });
    const { store } = renderWithStore(<AddHostForm />, api);
    type(/^Label/, 'h200');
    type('Address', 'gpu-1.lab');
    type(/^User/, 'ml');
    type(/^Via jump host/, 'ops@bastion.lab:2222');
    type(/^Password/, ' s3cret ');
    await act(async () => {
      fireEvent.submit(input('Address').form!);
    });
    expect(api.calls[0]).toEqual({
      name: 'hosts:add',
      input: { label: 'h200', address: 'gpu-1.lab', user: 'ml', proxyJump: 'ops@bastion.lab:2222', password: ' s3cret ' },
    });
    expect(screen.getByRole('status').textContent).toBe('Added h200.');
    expect(input('Address').value).toBe('');
    expect(input(/^Password/).value).toBe('');
    expect(document.activeElement).toBe(input('Address'));
    // A fresh form is not an invalid one: no errors until the user edits or submits again.
    fireEvent.blur(input('Address'));
    expect(document.querySelectorAll('[aria-invalid="true"]')).toHaveLength(0);
    expect(store.getState().hosts).toHaveLength(1);
  });

  it('marks a host as a Slurm cluster’s login node, said plainly, and starts the next host unmarked', async () => {
    const api = createFakeApi({ 'hosts:add': (i) => makeHost({ label: 'hpc', scheduler: i.scheduler ?? null }) });
    renderWithStore(<AddHostForm />, api);
    const cluster = screen.getByRole('checkbox', { name: 'Slurm cluster (a login node)' }) as HTMLInputElement;
    expect(cluster.checked).toBe(false);
    expect(document.getElementById(cluster.getAttribute('aria-describedby')!)?.textContent).toMatch(/^This host is the cluster’s login node: .*sinfo, scontrol and sacctmgr/);
    type('Address', 'login.hpc.example.org');
    fireEvent.click(cluster);
    await act(async () => {
      fireEvent.submit(input('Address').form!);
    });
    expect(api.calls[0]).toEqual({ name: 'hosts:add', input: { address: 'login.hpc.example.org', scheduler: 'slurm' } });
    expect(cluster.checked).toBe(false);
  });

  it('adds a host that refers to an ~/.ssh/config alias, suggesting the aliases of the config', async () => {
    const api = createFakeApi({
      'hosts:sshConfigAliases': () => ({ configPath: '/home/me/.ssh/config', aliases: SSH_CONFIG_ALIASES }),
      'hosts:add': () => makeHost({ label: 'h200', alias: 'h200' }),
    });
    renderWithStore(<AddHostForm />, api);
    await act(async () => {
      fireEvent.click(screen.getByRole('radio', { name: /SSH config alias/ }));
    });
    expect(screen.queryByLabelText('Address')).toBeNull();
    const alias = input('Alias');
    const options = [...(document.getElementById(alias.getAttribute('list')!)?.querySelectorAll('option') ?? [])].map((o) => o.value);
    expect(options).toEqual(['bastion', 'h200', 'a100']);
    fireEvent.submit(alias.form!);
    expect(errorOf(input('Alias'))).toBe('Alias is required');
    type('Alias', 'h200');
    type(/^Identity file/, '~/.ssh/id_h200');
    await act(async () => {
      fireEvent.submit(alias.form!);
    });
    expect(api.calls.find((c) => c.name === 'hosts:add')?.input).toEqual({ alias: 'h200', identityFile: '~/.ssh/id_h200' });
  });

  it('shows the core’s BAD_INPUT issues on the matching fields', async () => {
    const api = createFakeApi({
      'hosts:add': () =>
        coreError({
          code: 'BAD_INPUT',
          message: 'Invalid input for hosts:add',
          issues: [
            { path: 'identityFile', message: 'does not exist on this machine' },
            { path: 'user', message: 'is not allowed here' },
          ],
        }),
    });
    renderWithStore(<AddHostForm />, api);
    type('Address', 'gpu-1.lab');
    type(/^User/, 'ml');
    type(/^Identity file/, '~/.ssh/missing');
    await act(async () => {
      fireEvent.submit(input('Address').form!);
    });
    await waitFor(() => expect(errorOf(input(/^Identity file/))).toBe('Identity file does not exist on this machine'));
    expect(errorOf(input(/^User/))).toBe('User is not allowed here');
    // Editing the field clears the core's verdict on it.
    type(/^User/, 'ml2');
    expect(errorOf(input(/^User/))).toBeUndefined();
  });

  it('shows other failures of the core above the button', async () => {
    const api = createFakeApi({ 'hosts:add': () => coreError({ code: 'INTERNAL', message: 'hosts.json is read-only' }) });
    renderWithStore(<AddHostForm />, api);
    type('Address', 'gpu-1.lab');
    await act(async () => {
      fireEvent.submit(input('Address').form!);
    });
    expect(screen.getByRole('alert').textContent).toBe('Could not add the host: hosts.json is read-only');
  });
});
