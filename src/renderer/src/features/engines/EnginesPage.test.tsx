import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { syncStoreWithCore, type InstalledEngine } from '../../store';
import { createFakeApi, type FakeApi } from '../../testing/fake-api';
import { H200_INVENTORY, makeHost } from '../../testing/fixtures';
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
  return createFakeApi({
    'hosts:list': () => [OTHER, DEMO],
    'prompts:pending': () => [],
    'engines:list': () => installed,
    'secrets:list': () => [],
    'servers:onBox': () => [],
  });
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
    // The bar can be on screen a render before the progress reaches it: read it once settled.
    await waitFor(() => expect(bar.getAttribute('aria-valuenow')).toBe('42'));
    expect(within(panel).getByText('Downloading')).toBeTruthy();

    fireEvent.click(within(panel).getByRole('button', { name: 'Show install log' }));
    act(() => api.emit('engines:log', { hostId: 'demo-lab', jobId: 'job-1', text: 'Resolved 142 packages\n' }));
    const log = within(panel).getByRole('log', { name: 'Install log lines' });
    expect(log.textContent).toContain('Downloading torch');
    // The pane renders what arrived at the next frame.
    await waitFor(() => expect(log.textContent).toContain('Resolved 142 packages'));

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

const VLLM_IMAGE: InstalledEngine = {
  engine: 'vllm',
  version: '0.11.0',
  dir: 'vllm/vllm-openai:v0.11.0',
  installedAt: '2026-01-03T10:00:00.000Z',
  verifiedVersion: '0.11.0',
  tool: 'docker',
  mode: 'docker',
};

function installPanel() {
  return screen.getByRole('region', { name: 'Install an engine' });
}

function radio(scope: HTMLElement, name: string): HTMLInputElement {
  return within(scope).getByRole('radio', { name }) as HTMLInputElement;
}

async function waitForInstalledVersion() {
  await waitFor(() => expect((within(launchPanel()).getByLabelText('Installed version') as HTMLSelectElement).value).toBe('0.11.0'));
}

describe('Engines page: docker mode', () => {
  it('refuses docker on the demo lab and says why', async () => {
    await renderPage(makeApi());
    const docker = radio(installPanel(), 'Docker image');
    expect(docker.disabled).toBe(true);
    expect(radio(installPanel(), 'Python environment').checked).toBe(true);
    const reason = document.getElementById(docker.getAttribute('aria-describedby') ?? '');
    expect(reason?.textContent).toMatch(/not available on the demo lab/);
  });

  it('reads the inventory of another box: no docker there disables the mode, docker present allows it', async () => {
    const api = makeApi();
    api.handle('hosts:inventory', ({ hostId }) => ({ ...H200_INVENTORY, hostId }));
    await renderPage(api);
    fireEvent.change(screen.getByLabelText('Host'), { target: { value: 'host-1' } });
    await waitFor(() => expect(radio(installPanel(), 'Docker image').disabled).toBe(true));
    expect(within(installPanel()).getByText(/inventory found no docker/)).toBeTruthy();
    expect(api.calls.find((c) => c.name === 'hosts:inventory')?.input).toEqual({ hostId: 'host-1' });

    const withDocker = makeApi();
    withDocker.handle('hosts:inventory', ({ hostId }) => ({
      ...H200_INVENTORY,
      hostId,
      tools: { ...H200_INVENTORY.tools, docker: { present: true, version: '27.3.1' } },
    }));
    withDocker.handle('engines:install', () => ({ jobId: 'job-d', remoteJobId: null }));
    cleanup();
    await renderPage(withDocker);
    fireEvent.change(screen.getByLabelText('Host'), { target: { value: 'host-1' } });
    await waitFor(() => expect(withDocker.calls.some((c) => c.name === 'hosts:inventory')).toBe(true));
    const docker = radio(installPanel(), 'Docker image');
    await waitFor(() => expect(docker.disabled).toBe(false));
    fireEvent.click(docker);
    fireEvent.click(within(installPanel()).getByRole('button', { name: 'Install' }));
    await waitFor(() => expect(withDocker.calls.some((c) => c.name === 'engines:install')).toBe(true));
    expect(withDocker.calls.find((c) => c.name === 'engines:install')?.input).toEqual({ hostId: 'host-1', engine: 'vllm', version: '0.11.0', mode: 'docker' });
  });

  it('lists how each installed version runs; a pulled image has no Remove', async () => {
    await renderPage(makeApi([VLLM, VLLM_IMAGE]));
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell')[3]?.textContent)).toEqual(['Python environment', 'Docker image']);
    expect(within(rows[0]!).queryByRole('button', { name: 'Remove vLLM 0.11.0' })).toBeTruthy();
    expect(within(rows[1]!).queryByRole('button')).toBeNull();
  });

  it('offers only the installed modes at launch and launches in docker with the image named', async () => {
    const envOnly = makeApi([VLLM]);
    await renderPage(envOnly);
    await waitForInstalledVersion();
    expect(radio(launchPanel(), 'Docker image').disabled).toBe(true);
    expect(within(launchPanel()).getByText('This version’s Docker image is not on the box.')).toBeTruthy();
    cleanup();

    const api = makeApi([VLLM, VLLM_IMAGE]);
    api.handle('servers:launch', () => ({ serverId: 'srv-d', port: 8000, command: 'docker run …' }));
    await renderPage(api);
    await waitForInstalledVersion();
    const panel = launchPanel();
    expect(within(panel).queryByText(/Runs in the official image/)).toBeNull();
    fireEvent.click(radio(panel, 'Docker image'));
    expect(radio(panel, 'Docker image').checked).toBe(true);
    expect(within(panel).getByText(/Runs in the official image vllm\/vllm-openai:v0\.11\.0/)).toBeTruthy();
    expect(within(panel).getByTestId('command-preview').textContent).toContain('vllm serve Qwen/Qwen3-8B');
    fireEvent.click(within(panel).getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(api.calls.some((c) => c.name === 'servers:launch')).toBe(true));
    expect(api.calls.find((c) => c.name === 'servers:launch')?.input).toMatchObject({ hostId: 'demo-lab', engine: 'vllm', version: '0.11.0', mode: 'docker' });
  });
});

describe('Engines page: Hugging Face token', () => {
  const TOKEN = 'hf_abcdefSECRETvalue0123456789';

  it('sets the token without ever showing it, passes it by reference, and removes it', async () => {
    const api = makeApi([VLLM]);
    let stored: { ref: string; setAt: string }[] = [];
    api.handle('secrets:list', () => stored);
    api.handle('secrets:set', ({ ref }) => {
      stored = [{ ref, setAt: '2026-01-04T09:30:00.000Z' }];
      return stored[0]!;
    });
    api.handle('secrets:remove', () => {
      stored = [];
      return { removed: true };
    });
    api.handle('servers:launch', () => ({ serverId: 'srv-t', port: 8000, command: 'vllm serve Qwen/Qwen3-8B' }));
    await renderPage(api);
    await waitForInstalledVersion();
    const panel = launchPanel();
    const group = within(panel).getByRole('group', { name: 'Hugging Face token' });
    await waitFor(() => expect(within(group).getByTestId('hf-token-state').textContent).toBe('Not set'));
    const pass = within(panel).getByRole('checkbox', { name: 'Pass HF_TOKEN to the server' }) as HTMLInputElement;
    expect(pass.disabled).toBe(true);

    fireEvent.click(within(group).getByRole('button', { name: 'Set token' }));
    const input = within(group).getByLabelText('New Hugging Face token') as HTMLInputElement;
    expect(input.type).toBe('password');
    fireEvent.change(input, { target: { value: TOKEN } });
    fireEvent.click(within(group).getByRole('button', { name: 'Save token' }));
    await waitFor(() => expect(within(group).getByTestId('hf-token-state').textContent).toBe('Set'));
    // The editor closes once the save has returned, a moment after the list says "Set".
    expect(await within(group).findByRole('button', { name: 'Replace token' })).toBeTruthy();
    expect(api.calls.find((c) => c.name === 'secrets:set')?.input).toEqual({ ref: 'hf-token', value: TOKEN });
    expect(document.body.textContent).not.toContain(TOKEN);
    expect([...document.querySelectorAll('input')].some((el) => el.value === TOKEN)).toBe(false);

    expect(pass.disabled).toBe(false);
    fireEvent.click(pass);
    expect(within(panel).getByText('HF_TOKEN comes from the keychain (hf-token); its value never appears in the command.')).toBeTruthy();
    fireEvent.click(within(panel).getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(api.calls.some((c) => c.name === 'servers:launch')).toBe(true));
    const launch = api.calls.find((c) => c.name === 'servers:launch')?.input as { config: { env: unknown } };
    expect(launch.config.env).toEqual({ HF_TOKEN: { secretRef: 'hf-token' } });

    fireEvent.click(within(group).getByRole('button', { name: 'Remove token' }));
    await waitFor(() => expect(within(group).getByTestId('hf-token-state').textContent).toBe('Not set'));
    expect(api.calls.find((c) => c.name === 'secrets:remove')?.input).toEqual({ ref: 'hf-token' });
    expect(pass.disabled).toBe(true);
    expect(pass.checked).toBe(false);
  });

  it('saves on Enter in the token field instead of launching', async () => {
    const api = makeApi([VLLM]);
    api.handle('secrets:set', ({ ref }) => ({ ref, setAt: '2026-01-04T09:30:00.000Z' }));
    await renderPage(api);
    await waitForInstalledVersion();
    const group = within(launchPanel()).getByRole('group', { name: 'Hugging Face token' });
    fireEvent.click(within(group).getByRole('button', { name: 'Set token' }));
    const input = within(group).getByLabelText('New Hugging Face token');
    fireEvent.change(input, { target: { value: TOKEN } });
    fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(api.calls.some((c) => c.name === 'secrets:set')).toBe(true));
    expect(api.calls.some((c) => c.name === 'servers:launch')).toBe(false);
  });
});

describe('Engines page: prefetch', () => {
  it('prefetches the chosen model with the stored token, shows files done/total, the last line and where it is cached', async () => {
    const api = makeApi([VLLM]);
    api.handle('secrets:list', () => [{ ref: 'hf-token', setAt: '2026-01-04T09:30:00.000Z' }]);
    api.handle('models:prefetch', () => ({ jobId: 'pf-1' }));
    await renderPage(api);
    await waitForInstalledVersion();
    const panel = launchPanel();
    await waitFor(() => expect(within(panel).getByTestId('hf-token-state').textContent).toBe('Set'));
    expect(within(panel).getByTestId('prefetch-state').textContent).toBe('Weights not prefetched: the server downloads them when it starts.');
    fireEvent.click(within(panel).getByRole('button', { name: 'Prefetch weights' }));
    await waitFor(() => expect(within(panel).getByRole('progressbar', { name: 'Prefetch progress' })).toBeTruthy());
    expect(api.calls.find((c) => c.name === 'models:prefetch')?.input).toEqual({
      hostId: 'demo-lab',
      engine: 'vllm',
      version: '0.11.0',
      model: 'Qwen/Qwen3-8B',
      hfTokenRef: 'hf-token',
    });

    act(() => api.emit('models:progress', { hostId: 'demo-lab', jobId: 'pf-1', done: 5, total: 12, line: 'model-00001-of-00005.safetensors' }));
    const bar = within(panel).getByRole('progressbar', { name: 'Prefetch progress' });
    // The bar can be on screen a render before the progress reaches it: read it once settled.
    await waitFor(() => expect(bar.getAttribute('aria-valuenow')).toBe('5'));
    expect(bar.getAttribute('aria-valuemax')).toBe('12');
    expect(within(panel).getByText('5 of 12 files')).toBeTruthy();
    expect(within(panel).getByText('model-00001-of-00005.safetensors')).toBeTruthy();
    expect(within(panel).getByTestId('prefetch-state').textContent).toBe('Prefetching the weights (5 of 12 files)…');
    expect((within(panel).getByRole('button', { name: 'Prefetch weights' }) as HTMLButtonElement).disabled).toBe(true);
    // Nothing waits on the prefetch.
    expect((within(panel).getByRole('button', { name: 'Launch' }) as HTMLButtonElement).disabled).toBe(false);

    const path = '/home/ml/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/abc123';
    act(() => api.emit('models:progress', { hostId: 'demo-lab', jobId: 'pf-1', done: 12, total: 12, line: 'tokenizer.json' }));
    act(() => api.emit('models:done', { hostId: 'demo-lab', jobId: 'pf-1', ok: true, message: 'downloaded 12 of 12 files', localPath: path }));
    expect(within(panel).getByRole('status').textContent).toBe(`Weights cached at ${path}`);
    expect(within(panel).getByTestId('prefetch-state').textContent).toBe('Weights cached on the box.');

    fireEvent.change(within(panel).getByLabelText('Model'), { target: { value: 'Qwen/Qwen3-0.6B' } });
    expect(within(panel).getByTestId('prefetch-state').textContent).toBe('Weights not prefetched: the server downloads them when it starts.');
  });

  it('launches a prefetched model offline, without the token', async () => {
    const api = makeApi([VLLM]);
    api.handle('secrets:list', () => [{ ref: 'hf-token', setAt: '2026-01-04T09:30:00.000Z' }]);
    api.handle('models:prefetch', () => ({ jobId: 'pf-2' }));
    api.handle('servers:launch', () => ({ serverId: 'srv-o', port: 8000, command: 'vllm serve Qwen/Qwen3-8B' }));
    await renderPage(api);
    await waitForInstalledVersion();
    const panel = launchPanel();
    await waitFor(() => expect(within(panel).getByTestId('hf-token-state').textContent).toBe('Set'));
    const pass = within(panel).getByRole('checkbox', { name: 'Pass HF_TOKEN to the server' }) as HTMLInputElement;
    fireEvent.click(pass);
    expect(pass.checked).toBe(true);
    fireEvent.click(within(panel).getByRole('button', { name: 'Prefetch weights' }));
    await waitFor(() => expect(api.calls.some((c) => c.name === 'models:prefetch')).toBe(true));
    act(() => api.emit('models:done', { hostId: 'demo-lab', jobId: 'pf-2', ok: true, message: 'downloaded 12 of 12 files', localPath: '/home/ml/.cache/huggingface/hub/x' }));
    await waitFor(() => expect(within(panel).getByTestId('prefetch-state').textContent).toBe('Weights cached on the box.'));
    expect(pass.checked).toBe(false);
    expect(pass.disabled).toBe(true);
    expect(within(panel).getByText(/the server runs offline \(HF_HUB_OFFLINE=1\) and gets no token/)).toBeTruthy();
    fireEvent.click(within(panel).getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(api.calls.some((c) => c.name === 'servers:launch')).toBe(true));
    const launch = api.calls.find((c) => c.name === 'servers:launch')?.input as { offline?: boolean; config: { env?: unknown } };
    expect(launch.offline).toBe(true);
    expect(launch.config.env ?? {}).toEqual({});
  });

  it('shows why a prefetch failed, such as a gated model without access', async () => {
    const api = makeApi([VLLM]);
    api.handle('models:prefetch', () => ({ jobId: 'pf-2' }));
    await renderPage(api);
    await waitForInstalledVersion();
    const panel = launchPanel();
    fireEvent.change(within(panel).getByLabelText('Model'), { target: { value: 'meta-llama/Llama-3.1-8B-Instruct' } });
    fireEvent.click(within(panel).getByRole('button', { name: 'Prefetch weights' }));
    await waitFor(() => expect(api.calls.some((c) => c.name === 'models:prefetch')).toBe(true));
    expect(api.calls.find((c) => c.name === 'models:prefetch')?.input).not.toHaveProperty('hfTokenRef');
    const message = 'Could not download meta-llama/Llama-3.1-8B-Instruct: GatedRepoError. Request access on the model page, then store your token as hf-token.';
    act(() => api.emit('models:done', { hostId: 'demo-lab', jobId: 'pf-2', ok: false, message }));
    expect((await within(panel).findByRole('alert')).textContent).toBe(`Could not prefetch the weights: ${message}`);
    expect(within(panel).getByTestId('prefetch-state').textContent).toMatch(/prefetch failed/);
  });

  it('cannot prefetch a version that has only its docker image', async () => {
    await renderPage(makeApi([VLLM_IMAGE]));
    await waitForInstalledVersion();
    const panel = launchPanel();
    expect((within(panel).getByRole('button', { name: 'Prefetch weights' }) as HTMLButtonElement).disabled).toBe(true);
    expect(within(panel).getByText(/install it as an environment first/)).toBeTruthy();
  });
});

describe('Engines page: servers on this box', () => {
  const EARLIER = {
    serverId: 'srv-old',
    engine: 'vllm' as const,
    version: '0.11.0',
    port: 8011,
    command: 'vllm serve Qwen/Qwen3-8B --port 8011',
    startedAt: '2026-01-01T08:00:00.000Z',
    mode: 'env' as const,
    model: 'Qwen/Qwen3-8B',
    running: true,
    inSession: false,
  };
  const FINISHED = { ...EARLIER, serverId: 'srv-done', port: 8012, mode: 'docker' as const, model: 'Qwen/Qwen3-0.6B', running: false };

  function region() {
    return screen.getByRole('region', { name: 'Servers on this box' });
  }

  it('lists every recorded server and stops an earlier session’s one from its record, with the checks', async () => {
    const api = makeApi([VLLM]);
    let onBox = [EARLIER, FINISHED];
    api.handle('servers:onBox', () => onBox);
    api.handle('servers:stop', () => {
      onBox = [{ ...EARLIER, running: false }, FINISHED];
      return { portClosed: true, gpuMemoryReleased: true, leftovers: [] };
    });
    await renderPage(api);
    const rows = await waitFor(() => {
      const found = within(region()).getAllByRole('row').slice(1);
      expect(found).toHaveLength(2);
      return found;
    });
    expect(api.calls.find((c) => c.name === 'servers:onBox')?.input).toEqual({ hostId: 'demo-lab' });
    const cells = (row: HTMLElement) => within(row).getAllByRole('cell').map((c) => c.textContent);
    expect(cells(rows[0]!).slice(0, 4)).toEqual(['srv-old', 'vLLM 0.11.0Python environment', 'Qwen/Qwen3-8B', '8011']);
    expect(cells(rows[0]!)[5]).toBe('Running');
    expect(cells(rows[1]!).slice(0, 4)).toEqual(['srv-done', 'vLLM 0.11.0Docker image', 'Qwen/Qwen3-0.6B', '8012']);
    expect(cells(rows[1]!)[5]).toBe('Stopped');
    expect(within(rows[1]!).queryByRole('button')).toBeNull();

    fireEvent.click(within(rows[0]!).getByRole('button', { name: 'Stop server srv-old' }));
    expect(await within(region()).findByText('Stop checks for srv-old')).toBeTruthy();
    expect(api.calls.find((c) => c.name === 'servers:stop')?.input).toEqual({ serverId: 'srv-old', hostId: 'demo-lab' });
    expect(within(region()).getByText('Port closed')).toBeTruthy();
    expect(within(region()).getByText('GPU memory released')).toBeTruthy();
    expect(within(region()).getByText('No leftovers')).toBeTruthy();
    await waitFor(() => expect(within(region()).getAllByRole('row')[1]!.textContent).toContain('Stopped'));
    expect(within(region()).queryByRole('button', { name: /^Stop server/ })).toBeNull();
  });

  it('reads the box again on Refresh, after a launch, and for another host', async () => {
    const api = makeApi([VLLM]);
    api.handle('servers:launch', () => ({ serverId: 'srv-new', port: 8000, command: 'vllm serve Qwen/Qwen3-8B' }));
    await renderPage(api);
    expect(await within(region()).findByText('No server has been launched on this box.')).toBeTruthy();
    const onBoxCalls = () => api.calls.filter((c) => c.name === 'servers:onBox');
    expect(onBoxCalls()).toHaveLength(1);

    fireEvent.click(within(region()).getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(onBoxCalls()).toHaveLength(2));

    api.handle('servers:onBox', () => [{ ...EARLIER, serverId: 'srv-new', port: 8000, inSession: true }]);
    await waitForInstalledVersion();
    fireEvent.click(within(launchPanel()).getByRole('button', { name: 'Launch' }));
    await waitFor(() => expect(onBoxCalls()).toHaveLength(3));
    // Followed in the Launch server panel, so the list does not offer a second Stop for it.
    expect(await within(region()).findByText('Launched here')).toBeTruthy();
    expect(within(region()).queryByRole('button', { name: 'Stop server srv-new' })).toBeNull();

    fireEvent.change(screen.getByLabelText('Host'), { target: { value: 'host-1' } });
    await waitFor(() => expect(onBoxCalls().at(-1)?.input).toEqual({ hostId: 'host-1' }));
  });
});
