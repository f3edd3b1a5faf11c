import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { setLocale } from '../../i18n';
import { syncStoreWithCore } from '../../store';
import { createFakeApi, type FakeApi } from '../../testing/fake-api';
import { renderWithStore } from '../../testing/render';
import { ResultsPage } from './ResultsPage';

afterEach(cleanup);

const MEASURED: ResultEntry = {
  id: 'res-m1-0000000a',
  kind: 'measured',
  status: 'ok',
  addedAt: '2026-01-02T10:00:00.000Z',
  title: 'ShareGPT, 20 prompts, concurrency 4 · vllm 0.11.0 · Qwen/Qwen3-8B on Demo lab',
  command: 'vllm bench serve --model Qwen/Qwen3-8B --num-prompts 20 --max-concurrency 4',
  logTail: 'Starting\nDone',
  result: {
    schemaVersion: 1,
    metrics: { completed: 20, duration: 9.876, output_throughput: 412.346, total_token_throughput: 800.5, mean_ttft_ms: 55.5, p99_ttft_ms: 90.25, mean_tpot_ms: 7.1, mean_e2el_ms: 1500, mean_latency_s: 1.5 },
    extra: {},
    provenance: {
      engine: 'vllm',
      engineVersion: '0.11.0',
      serverArgv: ['vllm', 'serve', 'Qwen/Qwen3-8B', '--served-model-name', 'my model'],
      serverEnvNames: ['HF_TOKEN', 'CUDA_VISIBLE_DEVICES'],
      model: 'Qwen/Qwen3-8B',
      gpu: { model: 'NVIDIA H100 80GB HBM3', count: 2, driver: '570.86.15', cuda: '12.8' },
      host: 'Demo lab',
      simulated: true,
      client: { name: 'vllm bench serve', version: '0.11.0', backend: 'openai-chat', endpoint: '/v1/chat/completions' },
      dataset: { name: 'sharegpt', path: '~/.servelab/datasets/ShareGPT.json', sha256: 'ab'.repeat(32) },
      workload: { numPrompts: 20, requestRate: 'inf', maxConcurrency: 4 },
    },
  },
};

const IMPORTED: ResultEntry = {
  id: 'res-i1-0000000b',
  kind: 'imported',
  status: 'ok',
  addedAt: '2026-01-03T10:00:00.000Z',
  title: 'h100.txt#1',
  result: {
    schemaVersion: 1,
    source: { file: 'h100.txt', format: 'vllm-text', index: 0, line: 3 },
    metrics: { completed: 100, duration: 44.4, output_throughput: 496.88, total_token_throughput: 1020.76, mean_ttft_ms: 64, mean_tpot_ms: 7.38 },
    extra: {},
    provenance: { client: { name: 'vllm bench serve' } },
  },
};

const FAILED: ResultEntry = {
  id: 'res-f1-0000000c',
  kind: 'measured',
  status: 'failed',
  addedAt: '2026-01-01T10:00:00.000Z',
  title: 'Random 128 in / 4 out · sglang 0.5.3 · Qwen/Qwen3-32B on gpu1',
  error: 'the client exited with code 1',
  command: 'vllm bench serve --dataset-name random',
  logTail: 'Traceback (most recent call last)\nConnectionRefusedError: [Errno 111]',
  result: { schemaVersion: 1, metrics: {}, extra: {}, provenance: { engine: 'sglang', engineVersion: '0.5.3', model: 'Qwen/Qwen3-32B', host: 'gpu1' } },
};

function makeApi(entries: ResultEntry[] = [MEASURED, IMPORTED, FAILED]): FakeApi {
  let library = [...entries];
  const api = createFakeApi({ 'hosts:list': () => [], 'prompts:pending': () => [], 'results:list': () => library });
  api.handle('results:remove', ({ ids }) => {
    const before = library.length;
    library = library.filter((e) => !ids.includes(e.id));
    return { removed: before - library.length };
  });
  return api;
}

async function renderPage(api: FakeApi) {
  const rendered = renderWithStore(<ResultsPage />, api);
  await act(async () => {
    syncStoreWithCore(api, rendered.store);
  });
  await waitFor(() => expect(screen.queryByText('Loading results…')).toBeNull());
  return rendered;
}

/** The titles of the table's rows, top to bottom. */
function rowTitles(): string[] {
  const table = screen.getByRole('table', { name: 'Results' });
  return within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getByRole('button').textContent ?? '');
}

function header(name: string) {
  return screen.getByRole('button', { name }).closest('th')!;
}

describe('Results page', () => {
  it('lists every entry newest first with formatted numbers, "—" for absent ones and a simulated badge', async () => {
    await renderPage(makeApi());
    expect(rowTitles()).toEqual([IMPORTED.title, MEASURED.title, FAILED.title]);
    expect(header('Added').getAttribute('aria-sort')).toBe('descending');
    const measured = screen.getByRole('button', { name: `Show details of ${MEASURED.title}` }).closest('tr')!;
    const cells = within(measured).getAllByRole('cell').map((c) => c.textContent);
    expect(cells).toEqual(
      expect.arrayContaining(['Measured', 'vLLM 0.11.0', 'Qwen/Qwen3-8B', '2 × NVIDIA H100 80GB HBM3', '20', '9.88', '412.35', '800.50', '55.50', '7.10', '1500.00', '1.50']),
    );
    expect(within(measured).getByText('Simulated')).toBeTruthy();
    const imported = screen.getByRole('button', { name: `Show details of ${IMPORTED.title}` }).closest('tr')!;
    expect(within(imported).queryByText('Simulated')).toBeNull();
    // No engine, model, GPU, E2EL or latency in a printed block, and no throughput per GPU: nobody said its GPU count.
    expect(within(imported).getAllByText('—')).toHaveLength(6);
    const sized = { ...MEASURED, gpuCount: 2 };
    cleanup();
    await renderPage(makeApi([sized]));
    const row = screen.getByRole('button', { name: `Show details of ${MEASURED.title}` }).closest('tr')!;
    expect(within(row).getAllByRole('cell').map((c) => c.textContent)).toContain('400.25');
  });

  it('sorts by any column on header click, both ways, with entries lacking the number last', async () => {
    await renderPage(makeApi());
    fireEvent.click(screen.getByRole('button', { name: 'Mean TTFT (ms)' }));
    expect(header('Mean TTFT (ms)').getAttribute('aria-sort')).toBe('ascending');
    expect(header('Added').getAttribute('aria-sort')).toBe('none');
    expect(rowTitles()).toEqual([MEASURED.title, IMPORTED.title, FAILED.title]);
    fireEvent.click(screen.getByRole('button', { name: 'Mean TTFT (ms)' }));
    expect(header('Mean TTFT (ms)').getAttribute('aria-sort')).toBe('descending');
    expect(rowTitles()).toEqual([IMPORTED.title, MEASURED.title, FAILED.title]);
    fireEvent.click(screen.getByRole('button', { name: 'Engine' }));
    expect(rowTitles()).toEqual([FAILED.title, MEASURED.title, IMPORTED.title]);
    fireEvent.click(screen.getByRole('button', { name: 'Title' }));
    expect(rowTitles()).toEqual([IMPORTED.title, FAILED.title, MEASURED.title]);
  });

  it('filters by text over title, model, engine and host, by kind and by status', async () => {
    await renderPage(makeApi());
    const text = screen.getByRole('searchbox', { name: 'Filter' });
    fireEvent.change(text, { target: { value: 'qwen3-32b' } });
    expect(rowTitles()).toEqual([FAILED.title]);
    fireEvent.change(text, { target: { value: 'vLLM 0.11' } });
    expect(rowTitles()).toEqual([MEASURED.title]);
    fireEvent.change(text, { target: { value: 'gpu1' } });
    expect(rowTitles()).toEqual([FAILED.title]);
    fireEvent.change(text, { target: { value: 'nothing like it' } });
    expect(screen.getByText('No result matches the filters.')).toBeTruthy();
    expect(screen.getByText('Showing 0 of 3')).toBeTruthy();
    fireEvent.change(text, { target: { value: '' } });

    fireEvent.change(screen.getByLabelText('Kind'), { target: { value: 'imported' } });
    expect(rowTitles()).toEqual([IMPORTED.title]);
    fireEvent.change(screen.getByLabelText('Kind'), { target: { value: 'measured' } });
    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'failed' } });
    expect(rowTitles()).toEqual([FAILED.title]);
    fireEvent.change(screen.getByLabelText('Status'), { target: { value: 'ok' } });
    expect(rowTitles()).toEqual([MEASURED.title]);
  });

  it('opens the details of a row: every metric as stored, provenance, commands, env names, source', async () => {
    await renderPage(makeApi());
    fireEvent.click(screen.getByRole('button', { name: `Show details of ${MEASURED.title}` }));
    const details = screen.getByRole('complementary', { name: 'Result details' });
    expect(within(details).getByRole('heading', { level: 2 }).textContent).toBe(MEASURED.title);
    const metrics = within(details).getByRole('region', { name: 'Metrics' });
    // By name and unit, not the key the client stored (that stays in the tooltip); a count has no unit.
    expect([...metrics.querySelectorAll('dt')].map((dt) => dt.textContent)).toEqual([
      'Successful requests',
      'Benchmark duration (s)',
      'Output token throughput (tok/s)',
      'Total token throughput (tok/s)',
      'Mean TTFT (ms)',
      'P99 TTFT (ms)',
      'Mean TPOT (ms)',
      'Mean E2EL (ms)',
      'Mean latency (s)',
    ]);
    expect([...metrics.querySelectorAll('dt')].map((dt) => dt.getAttribute('title'))).toEqual(Object.keys(MEASURED.result.metrics));
    expect(within(metrics).getByText('90.25')).toBeTruthy();
    const provenance = within(details).getByRole('region', { name: 'Provenance' });
    const facts = Object.fromEntries([...provenance.querySelectorAll('dt')].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]));
    expect(facts).toMatchObject({
      Engine: 'vLLM 0.11.0',
      Model: 'Qwen/Qwen3-8B',
      GPU: '2 × NVIDIA H100 80GB HBM3',
      Driver: '570.86.15',
      CUDA: '12.8',
      Host: 'Demo lab',
      Simulated: 'Yes: the simulated GPU box, not a real measurement',
      Client: 'vllm bench serve 0.11.0',
      Endpoint: '/v1/chat/completions',
      'Dataset SHA-256': 'ab'.repeat(32),
      Prompts: '20',
      'Request rate': 'all at once (inf)',
      'Max concurrency': '4',
    });
    expect(within(details).getByRole('region', { name: 'Client command' }).textContent).toContain(MEASURED.command);
    expect(within(details).getByRole('region', { name: 'Server command' }).textContent).toContain("vllm serve Qwen/Qwen3-8B --served-model-name 'my model'");
    const env = within(details).getByRole('region', { name: 'Environment variables (names only)' });
    expect(within(env).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['HF_TOKEN', 'CUDA_VISIBLE_DEVICES']);
    expect(screen.getByRole('button', { name: `Show details of ${MEASURED.title}` }).closest('tr')!.className).toContain('is-selected');

    fireEvent.click(screen.getByRole('button', { name: `Show details of ${IMPORTED.title}` }));
    const imported = screen.getByRole('complementary', { name: 'Result details' });
    expect(within(imported).getByRole('region', { name: 'Source' }).textContent).toContain('h100.txt#1:3');
    expect(within(imported).queryByRole('region', { name: 'Server command' })).toBeNull();

    fireEvent.click(within(imported).getByRole('button', { name: 'Close details' }));
    expect(screen.queryByRole('complementary', { name: 'Result details' })).toBeNull();
  });

  it('shows a failed run’s error and log tail', async () => {
    await renderPage(makeApi());
    fireEvent.click(screen.getByRole('button', { name: `Show details of ${FAILED.title}` }));
    const details = screen.getByRole('complementary', { name: 'Result details' });
    expect(within(details).getByRole('alert').textContent).toContain('the client exited with code 1');
    expect(within(details).getByText('No numbers: the run failed before the client reported any.')).toBeTruthy();
    expect(within(details).getByRole('log', { name: 'Client log lines' }).textContent).toContain('ConnectionRefusedError: [Errno 111]');
  });

  it('removes the checked entries only after the confirmation', async () => {
    const api = makeApi();
    await renderPage(api);
    const remove = screen.getByRole('button', { name: /^Remove selected/ });
    expect(remove.hasAttribute('disabled')).toBe(true);
    fireEvent.click(screen.getByRole('checkbox', { name: `Select ${FAILED.title}` }));
    fireEvent.click(screen.getByRole('checkbox', { name: `Select ${IMPORTED.title}` }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove selected (2)' }));
    let dialog = screen.getByRole('dialog', { name: 'Remove 2 results?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(api.calls.some((c) => c.name === 'results:remove')).toBe(false);
    expect(rowTitles()).toHaveLength(3);

    fireEvent.click(screen.getByRole('button', { name: 'Remove selected (2)' }));
    dialog = screen.getByRole('dialog', { name: 'Remove 2 results?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.find((c) => c.name === 'results:remove')?.input).toEqual({ ids: [FAILED.id, IMPORTED.id] });
    expect(rowTitles()).toEqual([MEASURED.title]);
    expect(screen.getByRole('button', { name: 'Remove selected (0)' }).hasAttribute('disabled')).toBe(true);
  });

  it('imports chosen files and reports the results added and every error line; refuses files over 64 MiB', async () => {
    const api = makeApi([]);
    api.handle('results:import', ({ files }) => ({
      added: [
        { ...IMPORTED, id: 'res-a-00000001', result: { ...IMPORTED.result, source: { file: 'a.txt', format: 'vllm-text', index: 0, line: 1 } } },
        { ...IMPORTED, id: 'res-a-00000002', result: { ...IMPORTED.result, source: { file: 'a.txt', format: 'vllm-text', index: 1, line: 30 } } },
        { ...IMPORTED, id: 'res-b-00000003', result: { ...IMPORTED.result, source: { file: 'b.jsonl', format: 'vllm-jsonl', index: 0, line: 1 } } },
      ],
      errors: [`${files[1]!.name}:2: not valid JSON (Unexpected end of JSON input)`],
      warnings: ['a.txt:12: "Mean TTFT (ms)" repeats; the last value is kept'],
    }));
    await renderPage(api);
    expect(screen.getByText('No results yet')).toBeTruthy();
    expect(screen.getByText(/drop result files here/)).toBeTruthy();

    const huge = new File(['x'], 'huge.log');
    Object.defineProperty(huge, 'size', { value: 65 * 1024 * 1024 });
    const input = screen.getByLabelText('Result files to import');
    await act(async () => {
      fireEvent.change(input, { target: { files: [new File(['block a'], 'a.txt'), new File(['{"completed": 1}\n{'], 'b.jsonl'), huge] } });
    });
    const summary = await screen.findByRole('status', { name: 'Import summary' });
    expect(within(summary).getByText('Imported 3 results from 2 files.')).toBeTruthy();
    expect(within(summary).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Errorhuge.log: larger than 64 MiB (65.0 MiB), so not a result file; it was not imported.',
      'Errorb.jsonl:2: not valid JSON (Unexpected end of JSON input)',
      'Warninga.txt:12: "Mean TTFT (ms)" repeats; the last value is kept',
    ]);
    expect(api.calls.find((c) => c.name === 'results:import')?.input).toEqual({
      files: [
        { name: 'a.txt', text: 'block a' },
        { name: 'b.jsonl', text: '{"completed": 1}\n{' },
      ],
    });
  });

  it('sends the GPU count the user typed with the files, and refuses one that is not a whole number of GPUs', async () => {
    const api = makeApi([]);
    api.handle('results:import', () => ({ added: [], errors: [], warnings: [] }));
    await renderPage(api);
    fireEvent.change(screen.getByLabelText('GPUs per server'), { target: { value: '2.5' } });
    expect(screen.getByText('Type a whole number of GPUs from 1 to 512, or leave it empty.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Import files…' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText('GPUs per server'), { target: { value: '8' } });
    await act(async () => {
      fireEvent.change(screen.getByLabelText('Result files to import'), { target: { files: [new File(['block a'], 'a.txt')] } });
    });
    await waitFor(() => expect(api.calls.find((c) => c.name === 'results:import')?.input).toEqual({ files: [{ name: 'a.txt', text: 'block a' }], gpuCount: 8 }));
  });

  it('imports a dropped folder, walking it to every file', async () => {
    const api = makeApi([]);
    api.handle('results:import', () => ({ added: [], errors: ['runs/notes.md: no benchmark result in this file'], warnings: [] }));
    await renderPage(api);
    const fileEntry = (path: string, text: string) => ({
      isFile: true,
      isDirectory: false,
      name: path.split('/').pop()!,
      fullPath: `/${path}`,
      file: (ok: (f: File) => void) => ok(new File([text], path.split('/').pop()!)),
    });
    const chunks = [[fileEntry('runs/notes.md', '# notes'), { isFile: false, isDirectory: true, name: 'c4', fullPath: '/runs/c4', createReader: () => reader([[fileEntry('runs/c4/r.json', '{}')]]) }], []];
    function reader(parts: unknown[][]) {
      return { readEntries: (ok: (e: unknown[]) => void) => ok(parts.shift() ?? []) };
    }
    const folder = { isFile: false, isDirectory: true, name: 'runs', fullPath: '/runs', createReader: () => reader(chunks) };
    const page = screen.getByRole('heading', { level: 1 }).closest('.page')!;
    const dataTransfer = { types: ['Files'], files: [], items: [{ kind: 'file', webkitGetAsEntry: () => folder }] };
    fireEvent.dragEnter(page, { dataTransfer });
    expect(screen.getByText('Drop result files or folders to import them')).toBeTruthy();
    await act(async () => {
      fireEvent.drop(page, { dataTransfer });
    });
    const summary = await screen.findByRole('status', { name: 'Import summary' });
    expect(summary.textContent).toContain('No result was imported.');
    expect(summary.textContent).toContain('runs/notes.md: no benchmark result in this file');
    expect(api.calls.find((c) => c.name === 'results:import')?.input).toEqual({
      files: [
        { name: 'runs/c4/r.json', text: '{}' },
        { name: 'runs/notes.md', text: '# notes' },
      ],
    });
    expect(screen.queryByText('Drop result files or folders to import them')).toBeNull();
  });

  it('reloads the list when the core says the results changed', async () => {
    const api = makeApi([IMPORTED]);
    await renderPage(api);
    expect(rowTitles()).toEqual([IMPORTED.title]);
    api.handle('results:list', () => [IMPORTED, MEASURED]);
    await act(async () => api.emit('results:changed', {}));
    await waitFor(() => expect(rowTitles()).toEqual([IMPORTED.title, MEASURED.title]));
  });
});

describe('Results page in Turkish', () => {
  it('words the filter choices in the language the page renders in, not the one it was loaded in', async () => {
    setLocale('tr');
    try {
      const rendered = renderWithStore(<ResultsPage />, makeApi());
      await act(async () => {
        rendered.store.getState().setLocale('tr');
        syncStoreWithCore(rendered.api, rendered.store);
      });
      const optionsOf = (label: string) => [...(screen.getByLabelText(label) as HTMLSelectElement).options].map((o) => o.textContent);
      expect(optionsOf('Tür')).toEqual(['Tümü', 'Ölçülen', 'İçe aktarılan']);
      expect(optionsOf('Durum')[0]).toBe('Tümü');
    } finally {
      setLocale('en');
    }
  });
});
