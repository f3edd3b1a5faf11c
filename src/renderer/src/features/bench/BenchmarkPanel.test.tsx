import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { setLocale } from '../../i18n';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { ApiProvider } from '../../api/context';
import { StoreProvider, syncStoreWithCore } from '../../store';
import { coreError, createFakeApi, type FakeApi } from '../../testing/fake-api';
import { renderWithStore } from '../../testing/render';
import { BenchmarkPanel } from './BenchmarkPanel';

afterEach(cleanup);

const ENTRY: ResultEntry = {
  id: 'res-run1-0000abcd',
  kind: 'measured',
  status: 'ok',
  addedAt: '2026-01-02T10:00:00.000Z',
  title: 'ShareGPT, 20 prompts, concurrency 4 · vllm 0.11.0 · Qwen/Qwen3-8B on Demo lab',
  result: {
    schemaVersion: 1,
    metrics: { completed: 20, failed: 0, duration: 4.5, request_throughput: 4.44, output_throughput: 980.123, total_token_throughput: 1900, mean_ttft_ms: 61.237, mean_tpot_ms: 7.5 },
    extra: {},
    provenance: { engine: 'vllm', engineVersion: '0.11.0', simulated: true },
  },
};

function makeApi(): FakeApi {
  const api = createFakeApi({ 'hosts:list': () => [], 'prompts:pending': () => [], 'results:list': () => [ENTRY] });
  api.handle('bench:run', () => ({ runId: 'run-1' }));
  api.handle('bench:cancel', () => ({ cancelled: true }));
  return api;
}

async function renderPanel(api: FakeApi) {
  const rendered = renderWithStore(<BenchmarkPanel hostId="demo-lab" serverId="srv-1" />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  return { ...rendered, panel: screen.getByRole('region', { name: 'Run benchmark' }) };
}

async function runSharegptC4With20Prompts(api: FakeApi, panel: HTMLElement) {
  fireEvent.change(within(panel).getByLabelText('Workload'), { target: { value: 'sharegpt-c4' } });
  expect((within(panel).getByLabelText('Number of prompts') as HTMLInputElement).value).toBe('100');
  expect((within(panel).getByLabelText(/^Max concurrency/) as HTMLInputElement).value).toBe('4');
  fireEvent.change(within(panel).getByLabelText('Number of prompts'), { target: { value: '20' } });
  expect(within(panel).getByText('Runs: ShareGPT, 20 prompts, concurrency 4')).toBeTruthy();
  fireEvent.click(within(panel).getByRole('button', { name: 'Run benchmark' }));
  await waitFor(() => expect(api.calls.some((c) => c.name === 'bench:run')).toBe(true));
}

describe('Benchmark panel', () => {
  it('names the presets and the workload it will run in Turkish when the app speaks Turkish', async () => {
    const api = makeApi();
    const rendered = renderWithStore(<BenchmarkPanel hostId="demo-lab" serverId="srv-1" />, api);
    try {
      await act(async () => {
        rendered.store.getState().setLocale('tr');
        syncStoreWithCore(api, rendered.store);
      });
      // As the shell does on a new language: everything renders afresh.
      rendered.rerender(
        <ApiProvider api={api}>
          <StoreProvider store={rendered.store}>
            <BenchmarkPanel key="tr" hostId="demo-lab" serverId="srv-1" />
          </StoreProvider>
        </ApiProvider>,
      );
      const workload = screen.getByLabelText('İş yükü') as HTMLSelectElement;
      const options = [...workload.options].map((o) => o.textContent);
      expect(options).toContain('ShareGPT, 100 prompt, eşzamanlılık 4');
      expect(options).toContain('Rastgele, girdi 128 / çıktı 4, 1000 prompt, sınırsız eşzamanlılık');
      expect(options.join(' ')).not.toMatch(/prompts|concurrency|Random/);
      fireEvent.change(workload, { target: { value: 'sharegpt-c4' } });
      expect(screen.getByText('Çalıştırılacak: ShareGPT, 100 prompt, eşzamanlılık 4')).toBeTruthy();
    } finally {
      setLocale('en');
    }
  });

  it('offers every preset, checks the overrides and sends the workload', async () => {
    const api = makeApi();
    const { panel } = await renderPanel(api);
    const options = [...(within(panel).getByLabelText('Workload') as HTMLSelectElement).options].map((o) => o.textContent);
    expect(options).toContain('ShareGPT, 100 prompts, concurrency 4');
    expect(options).toContain('Random 128 in / 4 out, 1000 prompts, seed 42');

    fireEvent.change(within(panel).getByLabelText('Number of prompts'), { target: { value: '2.5' } });
    expect(within(panel).getByText('must be a whole number')).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Run benchmark' }).hasAttribute('disabled')).toBe(true);
    fireEvent.change(within(panel).getByLabelText('Number of prompts'), { target: { value: '0' } });
    expect(within(panel).getByText('must be at least 1')).toBeTruthy();

    await runSharegptC4With20Prompts(api, panel);
    expect(api.calls.find((c) => c.name === 'bench:run')?.input).toEqual({
      hostId: 'demo-lab',
      serverId: 'srv-1',
      workload: { id: 'sharegpt-c4.n20.c4', dataset: { kind: 'sharegpt' }, numPrompts: 20, maxConcurrency: 4, backend: 'openai-chat' },
    });
  });

  it('shows progress and the live log, then the key numbers and a way to the entry in Results', async () => {
    const api = makeApi();
    const { panel, store } = await renderPanel(api);
    await runSharegptC4With20Prompts(api, panel);
    expect(await within(panel).findByText('Preparing the dataset and the client…')).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Run benchmark' }).hasAttribute('disabled')).toBe(true);

    act(() => api.emit('bench:progress', { runId: 'run-1', done: 5, total: 20 }));
    const bar = within(panel).getByRole('progressbar', { name: 'Benchmark progress' });
    expect(bar.getAttribute('aria-valuenow')).toBe('5');
    expect(bar.getAttribute('aria-valuemax')).toBe('20');
    expect(within(panel).getByText('5 of 20 requests')).toBeTruthy();
    act(() => api.emit('bench:log', { runId: 'run-1', text: 'Starting main benchmark run...\n' }));
    act(() => api.emit('bench:log', { runId: 'other-run', text: 'not this one\n' }));
    const log = within(panel).getByRole('log', { name: 'Benchmark log lines' });
    // The pane renders what arrived at the next frame.
    await waitFor(() => expect(log.textContent).toContain('Starting main benchmark run...'));
    expect(log.textContent).not.toContain('not this one');

    await act(async () => api.emit('bench:done', { runId: 'run-1', ok: true, message: 'done', entryId: ENTRY.id }));
    // The finished run keeps its last count on screen; only Cancel goes.
    expect(within(panel).getByRole('progressbar', { name: 'Benchmark progress' }).getAttribute('aria-valuenow')).toBe('5');
    expect(within(panel).queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(within(panel).getByRole('status').textContent).toBe('Benchmark finished.');
    const summary = await within(panel).findByRole('group', { name: 'Benchmark result' });
    await waitFor(() => expect(within(summary).getByText('61.24')).toBeTruthy());
    const facts = Object.fromEntries([...summary.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]));
    expect(facts).toEqual({
      Completed: '20',
      Failed: '0',
      'Duration (s)': '4.50',
      'Requests/s': '4.44',
      'Output tok/s': '980.12',
      'Total tok/s': '1900.00',
      'Mean TTFT (ms)': '61.24',
      'Mean TPOT (ms)': '7.50',
    });
    expect(within(summary).getByText('Simulated')).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Run benchmark' }).hasAttribute('disabled')).toBe(false);

    fireEvent.click(within(summary).getByRole('button', { name: 'Show in Results' }));
    expect(store.getState().page).toBe('results');
    expect(store.getState().selectedResultId).toBe(ENTRY.id);
  });

  it('cancels a run and shows why a run failed', async () => {
    const api = makeApi();
    const { panel } = await renderPanel(api);
    await runSharegptC4With20Prompts(api, panel);
    act(() => api.emit('bench:progress', { runId: 'run-1', done: 2, total: 20 }));
    fireEvent.click(within(panel).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(api.calls.find((c) => c.name === 'bench:cancel')?.input).toEqual({ runId: 'run-1' }));
    expect(within(panel).getByRole('button', { name: 'Cancelling…' }).hasAttribute('disabled')).toBe(true);
    act(() => api.emit('bench:done', { runId: 'run-1', ok: false, message: 'Benchmark cancelled.' }));
    expect(within(panel).getByRole('alert').textContent).toBe('The benchmark failed: Benchmark cancelled.');
    expect(within(panel).queryByRole('button', { name: 'Show in Results' })).toBeNull();
  });

  it('says why the core refused to start the run', async () => {
    const api = makeApi();
    api.handle('bench:run', () => coreError({ code: 'NOT_FOUND', message: 'Server srv-1 has no model in its record.' }));
    const { panel } = await renderPanel(api);
    fireEvent.click(within(panel).getByRole('button', { name: 'Run benchmark' }));
    expect((await within(panel).findByRole('alert')).textContent).toBe('Could not start the benchmark: Server srv-1 has no model in its record.');
  });
});
