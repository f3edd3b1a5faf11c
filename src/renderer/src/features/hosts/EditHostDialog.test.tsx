import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../../../shared/model/host';
import { coreError, createFakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { EditHostDialog } from './EditHostDialog';

afterEach(cleanup);

const HOST = makeHost({ port: 2222, user: 'ml', identityFile: '~/.ssh/id_h200', proxyJump: 'ops@bastion.lab', hasSavedPassword: true });

function open(host: Host = HOST, api = createFakeApi({ 'hosts:update': (input) => ({ ...host, ...input }) as Host })) {
  let closed = false;
  const rendered = renderWithStore(<EditHostDialog host={host} onClose={() => (closed = true)} />, api);
  const dialog = screen.getByRole('dialog', { name: `Edit ${host.label}` });
  const field = (label: RegExp) => within(dialog).getByLabelText(label) as HTMLInputElement;
  const save = () => within(dialog).getByRole('button', { name: 'Save changes' }) as HTMLButtonElement;
  return { ...rendered, dialog, field, save, closed: () => closed };
}

describe('EditHostDialog', () => {
  it('starts from the stored host, with nothing to save yet', () => {
    const { field, save } = open();
    expect(field(/^Label/).value).toBe('h200-lab');
    expect(field(/^Address/).value).toBe('gpu-1.lab');
    expect(field(/^Port/).value).toBe('2222');
    expect(field(/^User/).value).toBe('ml');
    expect(field(/^Identity file/).value).toBe('~/.ssh/id_h200');
    expect(field(/^Via jump host/).value).toBe('ops@bastion.lab');
    expect(field(/^New password/).value).toBe('');
    expect(save().disabled).toBe(true);
  });

  it('sends a cleared field as null, so the ssh config or the default applies again, and only what changed', async () => {
    const { api, field, save, closed } = open();
    fireEvent.change(field(/^User/), { target: { value: '' } });
    fireEvent.change(field(/^Port/), { target: { value: ' ' } });
    fireEvent.change(field(/^Via jump host/), { target: { value: '' } });
    fireEvent.change(field(/^Identity file/), { target: { value: '~/.ssh/id_other' } });
    expect(save().disabled).toBe(false);
    await act(async () => {
      fireEvent.click(save());
    });
    expect(api.calls.map((c) => c.input)).toEqual([{ hostId: HOST.id, user: null, port: null, proxyJump: null, identityFile: '~/.ssh/id_other' }]);
    expect(closed()).toBe(true);
  });

  it('forgets the saved password, or stores a new one', async () => {
    const { api, dialog, field, save } = open();
    fireEvent.click(within(dialog).getByRole('checkbox', { name: 'Forget the saved password' }));
    fireEvent.change(field(/^New password/), { target: { value: 'n3w' } });
    await act(async () => {
      fireEvent.click(save());
    });
    expect(api.calls[0]?.input).toEqual({ hostId: HOST.id, password: 'n3w', forgetPassword: true });
  });

  it('marks a host as a Slurm cluster, or a cluster as a plain box again', async () => {
    const plain = open();
    const box = within(plain.dialog).getByRole('checkbox', { name: 'Slurm cluster (a login node)' }) as HTMLInputElement;
    expect(box.checked).toBe(false);
    fireEvent.click(box);
    expect(plain.save().disabled).toBe(false);
    await act(async () => {
      fireEvent.click(plain.save());
    });
    expect(plain.api.calls.map((c) => c.input)).toEqual([{ hostId: HOST.id, scheduler: 'slurm' }]);
    cleanup();

    const cluster = open(makeHost({ scheduler: 'slurm' }));
    const marked = within(cluster.dialog).getByRole('checkbox', { name: 'Slurm cluster (a login node)' }) as HTMLInputElement;
    expect(marked.checked).toBe(true);
    expect(cluster.save().disabled).toBe(true);
    fireEvent.click(marked);
    await act(async () => {
      fireEvent.click(cluster.save());
    });
    expect(cluster.api.calls.map((c) => c.input)).toEqual([{ hostId: HOST.id, scheduler: null }]);
  });

  it('shows the fixed alias of an alias host and no address field', () => {
    const { dialog } = open(makeHost({ alias: 'h200', address: '10.0.0.11', user: null, port: null, identityFile: null }));
    expect(within(dialog).getByText('h200')).toBeTruthy();
    expect(within(dialog).queryByLabelText(/^Address/)).toBeNull();
    expect(within(dialog).queryByRole('checkbox', { name: 'Forget the saved password' })).toBeNull();
  });

  it('names wrong fields, from the form and from the core', async () => {
    const api = createFakeApi({
      'hosts:update': () => coreError({ code: 'BAD_INPUT', message: 'bad', issues: [{ path: 'proxyJump', message: 'names an unknown alias' }] }),
    });
    const { field, save } = open(HOST, api);
    fireEvent.change(field(/^Label/), { target: { value: '' } });
    fireEvent.submit(field(/^Label/).form!);
    expect(screen.getByText('Label is required')).toBeTruthy();
    expect(document.activeElement).toBe(field(/^Label/));
    expect(api.calls).toEqual([]);
    fireEvent.change(field(/^Label/), { target: { value: 'h200' } });
    fireEvent.change(field(/^Via jump host/), { target: { value: 'nowhere' } });
    await act(async () => {
      fireEvent.click(save());
    });
    expect(screen.getByText('Via jump host (ProxyJump) names an unknown alias')).toBeTruthy();
    expect(screen.getByRole('dialog')).toBeTruthy();
  });
});
