import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { syncStoreWithCore, type InstalledEngine } from '../../store';
import { createFakeApi, type FakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { EnginesPage } from './EnginesPage';

afterEach(cleanup);

const DEMO = makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab (simulated H100 box)' });
const OTHER = makeHost();

const VLLM: InstalledEngine = {
  engine: 'vllm',
  version: '0.11.0',
  dir: '~/.servelab/engines/vllm-0.11.0',
  installedAt: '2026-01-02T10:00:00.000Z',
  verifiedVersion: '0.11.0',
  tool: 'uv',
  mode: 'env',
};

function makeApi(installed: InstalledEngine[] = []): FakeApi {
  return createFakeApi({ 'hosts:list': () => [OTHER, DEMO], 'prompts:pending': () => [], 'engines:list': () => installed });
}

async function renderPage(api: FakeApi) {
  const rendered = renderWithStore(<EnginesPage />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  return rendered;
}

function launchPanel() {
  return screen.getByRole('region', { name: 'Launch server' });
}

describe('Engines page', () => {
  it('picks the demo lab and lists its installed engines', async () => {
    const api = makeApi([VLLM]);
    await renderPage(api);
    expect((screen.getByLabelText('Host') as HTMLSelectElement).value).toBe('demo-lab');
    const table = await screen.findByRole('table');
    expect(within(table).getByText('vLLM')).toBeTruthy();
    expect(within(table).getByText('uv')).toBeTruthy();
    expect(api.calls.find((c) => c.name === 'engines:list')?.input).toEqual({ hostId: 'demo-lab' });
  });

  it('shows install progress from events and the outcome when done', async () => {
    const api = makeApi();
    api.handle('engines:install', () => ({ jobId: 'job-1', remoteJobId: null }));
    await renderPage(api);
    const panel = screen.getByRole('region', { name: 'Install an engine' });
    fireEvent.click(within(panel).getByRole('button', { name: 'Install' }));
    await waitFor(() => expect(api.calls.some((c) => c.name === 'engines:install')).toBe(true));
    expect(api.calls.find((c) => c.name === 'engines:install')?.input).toEqual({ hostId: 'demo-lab', engine: 'vllm', version: '0.11.0' });

    act(() => api.emit('engines:progress', { hostId: 'demo-lab', jobId: 'job-1', phase: 'downloading', percent: 42, line: 'Downloading torch' }));
    const bar = await within(panel).findByRole('progressbar');
    expect(bar.getAttribute('aria-valuenow')).toBe('42');
    expect(within(panel).getByText('Downloading')).toBeTruthy();

    fireEvent.click(within(panel).getByRole('button', { name: 'Show install log' }));
    act(() => api.emit('engines:log', { hostId: 'demo-lab', jobId: 'job-1', text: 'Resolved 142 packages\n' }));
    const log = within(panel).getByRole('log', { name: 'Install log lines' });
    expect(log.textContent).toContain('Downloading torch');
    expect(log.textContent).toContain('Resolved 142 packages');

    api.handle('engines:list', () => [VLLM]);
    act(() => api.emit('engines:done', { hostId: 'demo-lab', jobId: 'job-1', ok: true, skipped: false, message: 'installed' }));
    expect(within(panel).getByRole('status').textContent).toBe('Installed vLLM 0.11.0.');
    expect(await screen.findByRole('table')).toBeTruthy();
  });

  it('says an engine is already installed when the install was skipped', async () => {
    const api = makeApi([VLLM]);
    api.handle('engines:install', () => ({ jobId: 'job-2', remoteJobId: null }));
    await renderPage(api);
    const panel = screen.getByRole('region', { name: 'Install an engine' });
    fireEvent.click(within(panel).getByRole('button', { name: 'Install' }));
    await waitFor(() => expect(api.calls.some((c) => c.name === 'engines:install')).toBe(true));
    act(() => api.emit('engines:done', { hostId: 'demo-lab', jobId: 'job-2', ok: true, skipped: true, message: 'already there' }));
    expect(await within(panel).findByText('vLLM 0.11.0 is already installed.')).toBeTruthy();
  });

  it('removes an engine after confirmation', async () => {
    const api = makeApi([VLLM]);
    api.handle('engines:remove', () => ({ removed: true, dir: VLLM.dir }));
    await renderPage(api);
    fireEvent.click(await screen.findByRole('button', { name: 'Remove vLLM 0.11.0' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove vLLM 0.11.0?' });
    api.handle('engines:list', () => []);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove engine' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.find((c) => c.name === 'engines:remove')?.input).toEqual({ hostId: 'demo-lab', engine: 'vllm', version: '0.11.0' });
    expect(await screen.findByText('No engine is installed on this host yet.')).toBeTruthy();
  });

  it('previews the exact command and names an unknown extra flag before launch', async () => {
    await renderPage(makeApi([VLLM]));
    const panel = launchPanel();
    await waitFor(() => expect((within(panel).getByLabelText('Installed version') as HTMLSelectElement).value).toBe('0.11.0'));
    const preview = within(panel).getByTestId('command-preview');
    expect(preview.textContent).toContain('vllm serve Qwen/Qwen3-8B');

    fireEvent.change(within(panel).getByLabelText('Tensor parallel'), { target: { value: '2' } });
    expect(preview.textContent).toContain('--tensor-parallel-size 2');

    fireEvent.change(within(panel).getByLabelText(/^Extra arguments/), { target: { value: '--enforce-eager --no-such-flag' } });
    expect(within(panel).getByText(/unknown flag: --no-such-flag/)).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Launch' }).hasAttribute('disabled')).toBe(true);

    fireEvent.change(within(panel).getByLabelText(/^Extra arguments/), { target: { value: '--enforce-eager' } });
    expect(within(panel).queryByText(/unknown flag/)).toBeNull();
    expect(preview.textContent).toContain('--enforce-eager');
    expect(within(panel).getByRole('button', { name: 'Launch' }).hasAttribute('disabled')).toBe(false);
  });

  it('launches, follows the state to ready, stops and shows the stop checks', async () => {
    const api = makeApi([VLLM]);
    api.handle('servers:launch', () => ({ serverId: 'srv-1', port: 8000, command: 'vllm serve Qwen/Qwen3-8B --port 8000' }));
    api.handle('servers:stop', () => ({ portClosed: true, gpuMemoryReleased: false, leftovers: ['pid 4242 python3'] }));
    await renderPage(api);
    const panel = launchPanel();
    await waitFor(() => expect((within(panel).getByLabelText('Installed version') as HTMLSelectElement).value).toBe('0.11.0'));
    fireEvent.change(within(panel).getByLabelText(/^GPUs/), { target: { value: '0, 1' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(within(panel).getByTestId('server-state').textContent).toBe('Starting'));
    const launch = api.calls.find((c) => c.name === 'servers:launch')?.input as { config: { model: string }; gpus: string[] };
    expect(launch.config.model).toBe('Qwen/Qwen3-8B');
    expect(launch.gpus).toEqual(['0', '1']);

    act(() => api.emit('servers:log', { serverId: 'srv-1', text: 'INFO Application startup complete.' }));
    act(() => api.emit('servers:state', { serverId: 'srv-1', state: 'ready' }));
    expect(within(panel).getByTestId('server-state').textContent).toBe('Ready');
    expect(within(panel).getByRole('log', { name: 'Server log lines' }).textContent).toContain('Application startup complete.');

    fireEvent.click(within(panel).getByRole('button', { name: 'Stop' }));
    act(() => api.emit('servers:state', { serverId: 'srv-1', state: 'stopped' }));
    expect(await within(panel).findByText('Port closed')).toBeTruthy();
    expect(within(panel).getByText('GPU memory still held')).toBeTruthy();
    expect(within(panel).getByText('pid 4242 python3')).toBeTruthy();
    expect(within(panel).getByTestId('server-state').textContent).toBe('Stopped');
  });

  it('shows the classification when a server fails', async () => {
    const api = makeApi([VLLM]);
    api.handle('servers:launch', () => ({ serverId: 'srv-2', port: 8001, command: 'vllm serve Qwen/Qwen3-8B' }));
    await renderPage(api);
    const panel = launchPanel();
    await waitFor(() => expect((within(panel).getByLabelText('Installed version') as HTMLSelectElement).value).toBe('0.11.0'));
    fireEvent.click(within(panel).getByRole('button', { name: 'Launch' }));
    // Wait until the launch call has answered, so the page knows which server the event is about.
    await waitFor(() => expect(within(panel).getByText(/8001/)).toBeTruthy());
    act(() =>
      api.emit('servers:state', {
        serverId: 'srv-2',
        state: 'failed',
        classification: { class: 'oom', evidence: 'torch.OutOfMemoryError: CUDA out of memory', hint: 'Lower the GPU memory fraction.' },
      }),
    );
    const alert = await within(panel).findByRole('alert');
    expect(alert.textContent).toContain('Failed: oom');
    expect(alert.textContent).toContain('torch.OutOfMemoryError: CUDA out of memory');
    expect(alert.textContent).toContain('Hint: Lower the GPU memory fraction.');
    expect(within(panel).getByRole('button', { name: 'Stop' }).hasAttribute('disabled')).toBe(true);
  });
});
