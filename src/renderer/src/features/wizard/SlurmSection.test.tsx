import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServelabError } from '../../../../shared/contract';
import type { ClusterInventory } from '../../../../shared/model/cluster';
import { KNOWN_GPUS } from '../../../../shared/study/slurm-plan';
import { createFakeApi } from '../../testing/fake-api';
import { ONE_NODE_CLUSTER, TWO_NODE_CLUSTER, makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { assembledOf, type AppStore } from '../../store';
import { StudyWizard } from './StudyWizard';

// The wizard's Slurm section on the parser's readings of the test cluster's captures (tests/fixtures/slurm): two
// nodes of `gpu:fake:2` in partitions debug (default, unlimited) and short (1:00), alice in accounts research
// (default, QOS normal and short-gpu) and teaching (short only); and one node with accounting off.

afterEach(cleanup);

const CLUSTER = makeHost({ id: 'hpc', label: 'hpc-login', scheduler: 'slurm' });
const DEMO = makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab' });

function renderWizard(cluster: () => ClusterInventory | Promise<ClusterInventory>) {
  const api = createFakeApi({
    'hosts:list': () => [DEMO, CLUSTER],
    'hosts:cluster': () => cluster(),
    'hosts:inventory': () => {
      throw new ServelabError('NOT_SUPPORTED', 'not asked of a login node');
    },
    'engines:list': () => [],
    'app:info': () => ({ name: 'Servelab', version: '0.1.0', dataDir: '/data', problems: [] }),
  });
  const { store } = renderWithStore(<StudyWizard onCreated={vi.fn()} onCancel={vi.fn()} />, api);
  return { api, store };
}

async function toHardware() {
  fireEvent.change(screen.getByLabelText('Model'), { target: { value: 'Qwen/Qwen3-8B' } });
  fireEvent.click(screen.getByRole('button', { name: 'Next' }));
  await act(async () => {});
  fireEvent.click(await screen.findByRole('checkbox', { name: 'hpc-login' }));
  await act(async () => {});
}

const section = () => screen.getByRole('region', { name: 'Slurm' });
const optionsOf = (select: HTMLElement) => [...(select as HTMLSelectElement).options].map((o) => o.textContent);
const valueOf = (el: HTMLElement) => (el as HTMLInputElement).value;
const hintOf = (el: HTMLElement) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ')
    .trim();
const slurmOf = (store: AppStore) => {
  const session = store.getState().wizard!;
  return assembledOf(session).definition.hosts[0]!.slurm;
};

describe('the Slurm section of a cluster host', { timeout: 30_000 }, () => {
  it('reads the cluster (progress first), offers its partitions, accounts, QOS and GPU types, and presets the node', async () => {
    let answer: (c: ClusterInventory) => void = () => undefined;
    const { api, store } = renderWizard(() => new Promise((resolve) => (answer = resolve)));
    await toHardware();
    expect(within(section()).getByRole('status').textContent).toBe('Reading the cluster…');
    // A login node has no GPUs to tick, and the demo lab's fields are not shown for it.
    expect(screen.queryByText(/GPUs of hpc-login/)).toBeNull();
    expect(screen.queryByLabelText('Simulated GPU')).toBeNull();
    await act(async () => answer(TWO_NODE_CLUSTER));

    expect(api.calls.filter((c) => c.name === 'hosts:cluster')).toEqual([{ name: 'hosts:cluster', input: { hostId: 'hpc' } }]);
    expect(api.calls.some((c) => c.name === 'hosts:inventory' || c.name === 'engines:list')).toBe(false);
    const s = within(section());
    expect(optionsOf(s.getByLabelText('Partition'))).toEqual(['Cluster default (debug)', 'debug (default)', 'short']);
    expect(optionsOf(s.getByLabelText('Account'))).toEqual(['Cluster default (research)', 'research']);
    expect(optionsOf(s.getByLabelText('QOS'))).toEqual(['Cluster default', 'normal', 'short-gpu']);
    expect(optionsOf(s.getByLabelText('GPU type'))).toEqual(['Any GPU of the partition', 'fake']);
    expect(valueOf(s.getByLabelText('GPU type'))).toBe('fake');
    expect(valueOf(s.getByLabelText('GPUs per node'))).toBe('2');
    expect(valueOf(s.getByLabelText('Jobs in the queue at once'))).toBe('2');
    expect(s.getByText('The partition has no time limit.')).toBeTruthy();
    // `fake` names no GPU Servelab knows: the plan's GPU is the user's choice, and Next waits for it.
    expect(optionsOf(s.getByLabelText('GPU to plan for'))).toEqual(['Choose the GPU…', 'NVIDIA H100 80GB HBM3', 'NVIDIA A100-SXM4-80GB', 'NVIDIA H200']);
    expect((screen.getByRole('button', { name: 'Next' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('GPU to plan for on hpc-login is required: the GPU type names no GPU Servelab knows, so choose the one its nodes have')).toBeTruthy();

    fireEvent.change(s.getByLabelText('GPU to plan for'), { target: { value: 'a100' } });
    expect((screen.getByRole('button', { name: 'Next' }) as HTMLButtonElement).disabled).toBe(false);
    expect(slurmOf(store)).toEqual({ gpuType: 'fake', gpu: KNOWN_GPUS.a100, gpusPerNode: 2, maxQueuedJobs: 2 });
  });

  it("follows the chosen partition: its accounts, its MaxTime, and the user's own limit", async () => {
    const { store } = renderWizard(() => TWO_NODE_CLUSTER);
    await toHardware();
    await waitFor(() => expect(within(section()).queryByRole('status')).toBeNull());
    const s = within(section());
    fireEvent.change(s.getByLabelText('Partition'), { target: { value: 'short' } });
    expect(optionsOf(s.getByLabelText('Account'))).toEqual(['Cluster default (research)', 'teaching', 'research']);
    fireEvent.change(s.getByLabelText('Account'), { target: { value: 'teaching' } });
    expect(optionsOf(s.getByLabelText('QOS'))).toEqual(['Cluster default', 'normal']);
    expect(s.getByText('The partition allows at most 1:00 (h:mm); a longer limit is lowered to it.')).toBeTruthy();

    fireEvent.click(s.getByRole('radio', { name: 'Minutes' }));
    const minutes = s.getByLabelText('Minutes per job');
    expect(hintOf(minutes)).toBe('The partition allows at most 1:00 (h:mm); a longer limit is lowered to it.');
    expect(screen.getByText('Time limit per job on hpc-login is required')).toBeTruthy();
    fireEvent.change(minutes, { target: { value: 'soon' } });
    expect(hintOf(minutes)).toBe('Time limit per job on hpc-login must be a number');
    fireEvent.change(minutes, { target: { value: '45' } });
    fireEvent.change(s.getByLabelText('GPU to plan for'), { target: { value: 'h100' } });
    fireEvent.change(s.getByLabelText('Jobs in the queue at once'), { target: { value: '4' } });
    expect(slurmOf(store)).toEqual({ partition: 'short', account: 'teaching', gpuType: 'fake', gpu: KNOWN_GPUS.h100, gpusPerNode: 2, timeLimitMinutes: 45, maxQueuedJobs: 4 });
  });

  it('says why the cluster could not be read, and reads it again on request', async () => {
    let fail = true;
    const { api } = renderWizard(() => {
      if (fail) throw new ServelabError('REMOTE_COMMAND_FAILED', 'sinfo: error: Unable to contact slurm controller (connect failure)');
      return ONE_NODE_CLUSTER;
    });
    await toHardware();
    const alert = await within(section()).findByRole('alert');
    expect(alert.textContent).toContain('Could not read the cluster: sinfo: error: Unable to contact slurm controller (connect failure)');
    fail = false;
    fireEvent.click(within(alert).getByRole('button', { name: 'Read the cluster again' }));
    await waitFor(() => expect(within(section()).queryByRole('alert')).toBeNull());
    expect(api.calls.filter((c) => c.name === 'hosts:cluster')).toHaveLength(2);
    // Accounting is off on that cluster: accounts cannot be listed, so they are typed.
    const s = within(section());
    expect(s.getByText(/^Accounting cannot be read, so your accounts are not listed \(You are not running a supported accounting_storage plugin/)).toBeTruthy();
    expect(s.getByRole('textbox', { name: /^Account/ })).toBeTruthy();
    expect(s.getByRole('textbox', { name: /^QOS/ })).toBeTruthy();
    expect(s.queryByRole('combobox', { name: /^Account/ })).toBeNull();
  });

  it('is reachable by keyboard: every control has a name and takes focus', async () => {
    renderWizard(() => TWO_NODE_CLUSTER);
    await toHardware();
    await waitFor(() => expect(within(section()).queryByRole('status')).toBeNull());
    const controls = [...section().querySelectorAll<HTMLElement>('input, select, button')];
    expect(controls.length).toBeGreaterThanOrEqual(9);
    for (const control of controls) {
      expect(control.getAttribute('tabindex')).not.toBe('-1');
      control.focus();
      expect(document.activeElement).toBe(control);
    }
    // Every field and choice is named by its label.
    const unnamed = controls.filter((c) => c.tagName !== 'BUTTON' && ((c as HTMLInputElement).labels?.length ?? 0) === 0);
    expect(unnamed.map((c) => c.outerHTML)).toEqual([]);
  });
});
