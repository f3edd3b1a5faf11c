import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AddHostInput } from '../../../../shared/model/host';
import { coreError, createFakeApi } from '../../testing/fake-api';
import { SSH_CONFIG_ALIASES, makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { ImportSshConfigDialog } from './ImportSshConfigDialog';

afterEach(cleanup);

const CONFIG_PATH = '/home/me/.ssh/config';

async function openDialog(api = createFakeApi(), onClose = () => {}) {
  const rendered = renderWithStore(<ImportSshConfigDialog onClose={onClose} />, api);
  await act(async () => {});
  return rendered;
}

const row = (alias: string) => screen.getByRole('checkbox', { name: new RegExp(`^${alias} `) }).closest('li') as HTMLElement;

describe('ImportSshConfigDialog', () => {
  it('lists the aliases with what they resolve to, and adds the chosen ones as alias hosts', async () => {
    const added: AddHostInput[] = [];
    let closed = false;
    const api = createFakeApi({
      'hosts:sshConfigAliases': () => ({ configPath: CONFIG_PATH, aliases: SSH_CONFIG_ALIASES }),
      'hosts:add': (input) => {
        added.push(input);
        return makeHost({ id: `h-${input.alias}`, label: input.alias ?? '', alias: input.alias ?? null });
      },
    });
    const { store } = await openDialog(api, () => (closed = true));
    const dialog = screen.getByRole('dialog', { name: 'Import from ~/.ssh/config' });
    expect(within(dialog).getByText(CONFIG_PATH)).toBeTruthy();
    expect(within(screen.getByRole('list', { name: 'Aliases in the ssh config' })).getAllByRole('listitem')).toHaveLength(3);
    expect(row('bastion').textContent).toContain('ops@bastion.lab:2222');
    expect(row('h200').textContent).toContain('ml@10.0.0.11');
    expect(row('h200').textContent).toContain('bastion');
    expect(row('a100').textContent).toContain('10.0.0.12:2200');

    const submit = within(dialog).getByRole('button', { name: 'Add hosts' }) as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.click(within(row('h200')).getByRole('checkbox'));
    fireEvent.click(within(row('a100')).getByRole('checkbox'));
    expect(within(dialog).getByText('2 of 3 selected')).toBeTruthy();
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Add 2 hosts' }));
    });
    expect(added).toEqual([{ alias: 'h200' }, { alias: 'a100' }]);
    expect(store.getState().hosts.map((h) => h.alias)).toEqual(['h200', 'a100']);
    expect(closed).toBe(true);
  });

  it('shows aliases already added as such, and select all picks only the others', async () => {
    const api = createFakeApi({ 'hosts:sshConfigAliases': () => ({ configPath: CONFIG_PATH, aliases: SSH_CONFIG_ALIASES }) });
    const { store } = renderWithStore(<ImportSshConfigDialog onClose={() => {}} />, api);
    act(() => store.getState().applyHostsChanged([makeHost({ alias: 'h200', label: 'h200' })]));
    await act(async () => {});
    const h200 = within(row('h200')).getByRole('checkbox') as HTMLInputElement;
    expect(h200.disabled).toBe(true);
    expect(within(row('h200')).getByText('Added')).toBeTruthy();
    fireEvent.click(screen.getByRole('checkbox', { name: 'Select all' }));
    expect(screen.getByText('2 of 2 selected')).toBeTruthy();
    expect(h200.checked).toBe(false);
  });

  it('says so, naming the file, when the config has nothing to import', async () => {
    await openDialog(createFakeApi({ 'hosts:sshConfigAliases': () => ({ configPath: CONFIG_PATH, aliases: [] }) }));
    expect(screen.getByText('No hosts to import')).toBeTruthy();
    expect(screen.getByText(CONFIG_PATH)).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Add hosts' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('keeps the dialog open with the aliases that could not be added', async () => {
    let closed = false;
    const api = createFakeApi({
      'hosts:sshConfigAliases': () => ({ configPath: CONFIG_PATH, aliases: SSH_CONFIG_ALIASES }),
      'hosts:add': (input) =>
        input.alias === 'a100' ? coreError({ code: 'BAD_INPUT', message: 'ProxyJump loops back to a100' }) : makeHost({ id: 'x', alias: input.alias ?? null }),
    });
    await openDialog(api, () => (closed = true));
    fireEvent.click(within(row('h200')).getByRole('checkbox'));
    fireEvent.click(within(row('a100')).getByRole('checkbox'));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Add 2 hosts' }));
    });
    expect(closed).toBe(false);
    expect(screen.getByRole('alert').textContent).toContain('a100: ProxyJump loops back to a100');
  });
});
