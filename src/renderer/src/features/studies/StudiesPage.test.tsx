import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BENCH_RESULT_SCHEMA_VERSION } from '../../../../shared/results/bench-result';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type ProjectFile, type StudyState, type Trial } from '../../../../shared/study/study';
import { syncStoreWithCore } from '../../store';
import { coreError, createFakeApi, type FakeApi } from '../../testing/fake-api';
import { renderApp, renderWithStore } from '../../testing/render';
import { windowTitle } from '../shell/window-title';
import { StudiesPage } from './StudiesPage';
import { makeTrial } from '../../testing/fixtures';

// jsdom has no canvas or ResizeObserver: charts are stand-ins that show their title.
vi.mock('../../components/EChart', () => ({
  EChart: ({ title }: { title: string }) => <figure aria-label={title} />,
  useThemeMode: () => 'light',
}));

afterEach(cleanup);

const EXAMPLE_FILE = '/app/examples/qwen3-8b-latency-h100.servelab';
const PATH = '/data/studies/qwen3-8b-latency-h100.servelab';
const COMMAND = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3';

const STUDY = StudyDefinitionSchema.parse({
  name: 'Qwen3-8B, lowest latency on one H100',
  description: 'Three engines, then SGLang tuned one option at a time.',
  model: { id: 'Qwen/Qwen3-8B', precision: 'bf16' },
  hosts: [{ hostId: 'demo-lab' }],
  goal: { kind: 'latency' },
  engines: [
    { engine: 'vllm', version: '0.11.0' },
    { engine: 'sglang', version: '0.5.3.post3' },
  ],
  stages: [{ id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint' }] }],
  workloads: { primary: { id: 'sharegpt-c4', label: 'ShareGPT c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 } },
});

const trial = (over: Partial<Trial> & Pick<Trial, 'id'>): Trial => makeTrial({ serverKey: `key-${over.id}`, status: 'planned', ...over });

function project(state: Partial<StudyState> = {}): ProjectFile {
  return { schemaVersion: PROJECT_SCHEMA_VERSION, study: STUDY, state: { status: 'draft', trials: [], decisions: [], ...state } };
}

const T0 = Date.parse('2026-02-01T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function studiesApi(file: ProjectFile = project()): FakeApi {
  return createFakeApi({
    'hosts:list': () => [],
    'prompts:pending': () => [],
    'app:info': () => ({ name: 'Servelab', version: '0.1.0', dataDir: '/data', problems: [] }),
    'studies:examples': () => [{ name: STUDY.name, path: EXAMPLE_FILE, description: 'Reference study A on the demo lab.' }],
    'studies:recent': () => [{ path: PATH, name: STUDY.name, openedAt: '2026-02-01T09:00:00.000Z' }],
    'studies:open': () => file,
    'studies:fromExample': () => project(),
    'studies:plan': () => ({
      trials: [
        trial({ id: 'engine/vllm', label: 'vLLM 0.11.0', gpuCount: 1 }),
        trial({ id: 'engine/sglang', label: 'SGLang 0.5.3.post3', engine: 'sglang', version: '0.5.3.post3', config: { model: 'Qwen/Qwen3-8B', extraArgs: [], env: {}, tensorParallelSize: 2 }, gpuCount: 2 }),
        trial({ id: 'engine/trtllm', label: 'TensorRT-LLM 1.2.0rc1', engine: 'trtllm', version: '1.2.0rc1', status: 'rejected', rejectReason: 'needs sm ≥ 8.9 for block-scaled FP8' }),
      ],
      estimate: { trials: 3, rejected: 1, launches: 2, expectedRepeats: 0, gpuSeconds: 150, perTrialSeconds: { 'engine/vllm': 75, 'engine/sglang': 75 }, perServerSeconds: {}, wallSeconds: 95, peakGpus: 3 },
      gpus: [{ hostId: 'demo-lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }],
    }),
    'studies:run': () => ({ started: true }),
    'studies:trustCheck': () => ({ trusted: true, runs: [], hash: 'a'.repeat(64) }),
    'studies:cancel': () => ({ cancelled: true }),
    'studies:report': ({ format }) => ({ text: format === 'csv' ? 'trial,status\nengine/vllm,done\n' : `# ${STUDY.name}\n\n${COMMAND}\n` }),
    'dialogs:openFile': () => coreError({ code: 'NOT_SUPPORTED', message: 'File dialogs exist only in the desktop app.' }),
    'dialogs:saveFile': () => coreError({ code: 'NOT_SUPPORTED', message: 'File dialogs exist only in the desktop app.' }),
  });
}

/** The page with the store following the fake core's events. */
async function renderPage(api: FakeApi) {
  let rendered!: ReturnType<typeof renderWithStore>;
  await act(async () => {
    rendered = renderWithStore(<StudiesPage />, api);
  });
  act(() => {
    syncStoreWithCore(api, rendered.store);
  });
  return rendered;
}

async function openFromRecent() {
  const recent = await screen.findByRole('button', { name: `Open recent project ${STUDY.name}` });
  await act(async () => {
    fireEvent.click(recent);
  });
}

describe('Studies page', () => {
  beforeEach(() => {
    document.title = 'Servelab';
  });

  it('copies an example to the path typed in a browser and opens it, with its plan', async () => {
    const api = studiesApi();
    const { store } = await renderPage(api);
    expect(await screen.findByText('Reference study A on the demo lab.')).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: `New from example: ${STUDY.name}` }));
    });
    const dialog = await screen.findByRole('dialog', { name: `New from example: ${STUDY.name}` });
    const field = within(dialog).getByLabelText('Project file') as HTMLInputElement;
    expect(field.value).toBe('/data/studies/qwen3-8b-latency-h100.servelab');
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Create project' }));
    });
    expect(api.calls.find((c) => c.name === 'studies:fromExample')?.input).toEqual({ path: PATH, example: 'qwen3-8b-latency-h100.servelab' });
    expect(await screen.findByRole('heading', { level: 1, name: new RegExp(STUDY.name) })).toBeTruthy();
    // The shell sets the window title from this.
    expect(windowTitle(store.getState())).toBe(`Servelab — ${STUDY.name}`);
    expect(screen.getByRole('tab', { name: 'Plan' }).getAttribute('aria-selected')).toBe('true');
    expect(await screen.findByText('2 min 30 s')).toBeTruthy();
    const table = screen.getByRole('table', { name: 'Planned trials' });
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(within(table).getByText('needs sm ≥ 8.9 for block-scaled FP8')).toBeTruthy();
    // Each trial's server: its layout and the GPUs it takes.
    expect(within(table).getAllByRole('row').map((row) => (row as HTMLTableRowElement).cells[4]?.textContent)).toEqual(['Layout', 'TP1 · 1 GPU', 'TP2 · 2 GPUs', 'TP1 · 1 GPU']);
    // Each trial's workload by the label the study gives it, not its id.
    expect(within(table).getAllByRole('row').map((row) => (row as HTMLTableRowElement).cells[3]?.textContent)).toEqual(['Workload', 'ShareGPT c4', 'ShareGPT c4', 'ShareGPT c4']);
    // The wall-clock estimate: the servers side by side on the study's GPUs.
    expect(screen.getByText('Wall-clock time (estimate)').nextElementSibling?.textContent).toBe('1 min 35 s');
    expect(screen.getByText('Most GPUs at once').nextElementSibling?.textContent).toBe('3');
    expect(screen.getByText(/NVIDIA H100 80GB HBM3/)).toBeTruthy();
  });

  it('asks before the first run of a project from elsewhere, naming what it runs, and runs once accepted', async () => {
    const api = studiesApi();
    const hash = 'b'.repeat(64);
    api.handle('studies:trustCheck', () => ({ trusted: false, runs: ['vllm 0.11.0: env NCCL_DEBUG=INFO'], hash }));
    await renderPage(api);
    await openFromRecent();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Run' }));
    });
    const dialog = await screen.findByRole('dialog', { name: 'Run a project from elsewhere?' });
    expect(within(dialog).getByText('vllm 0.11.0: env NCCL_DEBUG=INFO')).toBeTruthy();
    expect(api.calls.some((c) => c.name === 'studies:run')).toBe(false);
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Run it' }));
    });
    expect(api.calls.find((c) => c.name === 'studies:run')?.input).toEqual({ path: PATH, trust: hash });
  });

  it('runs the study and follows the core: progress, timeline, phase, decisions and log', async () => {
    const api = studiesApi();
    await renderPage(api);
    await openFromRecent();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Run' }));
    });
    expect(api.calls.some((c) => c.name === 'studies:run')).toBe(true);
    expect(screen.getByRole('tab', { name: 'Run monitor' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.getByRole('button', { name: 'Cancel study…' })).toBeTruthy();

    act(() => {
      api.emit('studies:state', {
        path: PATH,
        state: {
          status: 'running',
          startedAt: at(0),
          decisions: [],
          trials: [
            trial({ id: 'engine/vllm', label: 'vLLM 0.11.0', status: 'done', hostId: 'demo-lab', gpus: ['0'], startedAt: at(0), finishedAt: at(40) }),
            trial({ id: 'engine/sglang', label: 'SGLang 0.5.3.post3', engine: 'sglang', status: 'running', hostId: 'demo-lab', gpus: ['0'], startedAt: at(40) }),
          ],
        },
      });
      api.emit('studies:phase', { path: PATH, text: 'Measuring SGLang 0.5.3.post3 on ShareGPT c4' });
      api.emit('studies:log', { path: PATH, text: 'launching sglang\nserver ready\n' });
    });
    expect(screen.getByTestId('study-progress').textContent).toBe('1 of 2 trials finished');
    expect(screen.getByRole('progressbar', { name: 'Trials finished' }).getAttribute('aria-valuenow')).toBe('1');
    expect(screen.getByRole('status', { name: 'Current phase' }).textContent).toBe('Measuring SGLang 0.5.3.post3 on ShareGPT c4');
    const timeline = screen.getByRole('figure', { name: 'Trials over time, one row per GPU' });
    expect(within(within(timeline).getByRole('list', { name: 'GPUs' })).getAllByRole('listitem').map((lane) => lane.textContent)).toEqual(['demo-lab · GPU 0']);
    const bars = within(timeline).getByRole('list', { name: 'Trials' });
    expect(within(bars).getAllByRole('listitem').map((bar) => bar.getAttribute('aria-label'))).toEqual(['vLLM 0.11.0: Done · TP1 · 1 GPU', 'SGLang 0.5.3.post3: Running · TP1 · 1 GPU']);
    await waitFor(() => expect(screen.getByRole('log', { name: 'Study log lines' }).textContent).toContain('server ready'));

    act(() => {
      api.emit('studies:decision', {
        path: PATH,
        decision: {
          stageId: 'engine',
          winner: 'engine/sglang',
          reason: 'SGLang 0.5.3.post3 is best: 1.20 s/request mean latency. The others: vLLM 0.11.0 1.36.',
          before: null,
          after: 1.2,
          decidedAt: at(90),
          basis: { kind: 'engine', baseline: 'vLLM 0.11.0', others: [{ label: 'vLLM 0.11.0', value: 1.36 }] },
        },
      });
    });
    // Worded from the decision's facts in the app's language, as the report words it.
    const stage = screen.getByRole('region', { name: 'Engine selection' });
    expect(within(stage).getByText('Kept SGLang 0.5.3.post3. SGLang 0.5.3.post3 is best: 1.20 s/request mean latency. The others: vLLM 0.11.0 (1.36).')).toBeTruthy();
  });

  it('searches the log and highlights the matches', async () => {
    const api = studiesApi(project({ status: 'running', startedAt: at(0) }));
    await renderPage(api);
    await openFromRecent();
    act(() => {
      api.emit('studies:log', { path: PATH, text: 'alpha line\nbeta line\nALPHA again' });
    });
    const log = screen.getByRole('log', { name: 'Study log lines' });
    await waitFor(() => expect(log.textContent).toContain('ALPHA again'));
    fireEvent.change(screen.getByLabelText('Search Study log'), { target: { value: 'alpha' } });
    expect([...log.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['alpha', 'ALPHA']);
    const pane = within(log.closest('section')!);
    expect(pane.getByText('1 of 2 matching lines')).toBeTruthy();
    fireEvent.click(pane.getByLabelText('Only matching lines'));
    expect(log.textContent).not.toContain('beta');
  });

  it('asks before cancelling, and cancels only when confirmed', async () => {
    const api = studiesApi();
    await renderPage(api);
    await openFromRecent();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Run' }));
    });
    fireEvent.click(screen.getByRole('button', { name: 'Cancel study…' }));
    let dialog = screen.getByRole('dialog', { name: 'Cancel this study?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep running' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(api.calls.some((c) => c.name === 'studies:cancel')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Cancel study…' }));
    dialog = screen.getByRole('dialog', { name: 'Cancel this study?' });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel study' }));
    });
    expect(api.calls.filter((c) => c.name === 'studies:cancel')).toEqual([{ name: 'studies:cancel', input: { path: PATH } }]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('offers Resume for a study that was interrupted while running, and resumes it', async () => {
    const interrupted = project({
      status: 'running',
      startedAt: at(0),
      trials: [trial({ id: 'engine/vllm', status: 'done', startedAt: at(0), finishedAt: at(30) }), trial({ id: 'engine/sglang', status: 'running', startedAt: at(30) })],
    });
    const api = studiesApi(interrupted);
    await renderPage(api);
    await openFromRecent();
    expect(screen.getByTestId('study-status').textContent).toBe('Interrupted');
    expect(screen.queryByRole('button', { name: 'Run' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel study…' })).toBeNull();
    expect(screen.getByRole('note').textContent).toMatch(/interrupted/);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Resume' }));
    });
    expect(api.calls.filter((c) => c.name === 'studies:run')).toHaveLength(1);
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Cancel study…' })).toBeTruthy();
  });

  it('offers Resume for a cancelled study with trials left, not for a finished one', async () => {
    const cancelled = project({ status: 'cancelled', trials: [trial({ id: 'engine/vllm', status: 'done' }), trial({ id: 'engine/sglang', status: 'cancelled' })] });
    const api = studiesApi(cancelled);
    await renderPage(api);
    await openFromRecent();
    expect(screen.getByRole('button', { name: 'Resume' })).toBeTruthy();
    act(() => {
      api.emit('studies:state', { path: PATH, state: { status: 'done', trials: [trial({ id: 'engine/vllm', status: 'done' })], decisions: [] } });
    });
    expect(screen.queryByRole('button', { name: 'Resume' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Run' })).toBeNull();
  });

  it('shows the recommendation with its command, the kept candidates and the decisions', async () => {
    const done = project({
      status: 'done',
      recommendation: { engine: 'sglang', version: '0.5.3.post3', mode: 'env', config: { model: 'Qwen/Qwen3-8B-FP8', extraArgs: [], env: {} }, command: COMMAND, path: ['sglang-0.5.3.post3', 'fp8'] },
      decisions: [{ stageId: 'quantization', winner: 'fp8', reason: 'FP8: −21.2% mean latency, kept', before: 1.2, after: 0.95, decidedAt: at(100) }],
    });
    const api = studiesApi(done);
    await renderPage(api);
    await openFromRecent();
    expect(screen.getByRole('tab', { name: 'Recommendation' }).getAttribute('aria-selected')).toBe('true');
    const card = screen.getByRole('region', { name: 'Recommendation' });
    expect(within(card).getByTestId('recommended-command').textContent).toBe(COMMAND);
    // The engine's fact, and the first of the candidates kept.
    expect(within(card).getAllByText('SGLang 0.5.3.post3')).toHaveLength(2);
    // The study's own words for what was kept, the id behind each one as its tooltip.
    const kept = within(within(card).getByRole('list', { name: 'Candidates kept' })).getAllByRole('listitem');
    expect(kept.map((item) => item.textContent)).toEqual(['SGLang 0.5.3.post3', 'FP8 checkpoint']);
    expect(kept.map((item) => item.getAttribute('title'))).toEqual(['sglang-0.5.3.post3', 'fp8']);
    // A decision stored without its facts (an older project) is quoted after what was kept.
    expect(within(card).getByText('Kept fp8 (gain +26.3%). FP8: −21.2% mean latency, kept.')).toBeTruthy();
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await act(async () => {
      fireEvent.click(within(card).getByRole('button', { name: 'Copy the launch command' }));
    });
    expect(writeText).toHaveBeenCalledWith(COMMAND);
  });

  it('shows what came of each planned trial once the study has run, not that it will run', async () => {
    const result = { id: 'res-enginevllm-00000000', kind: 'measured' as const, status: 'ok' as const, addedAt: at(0), title: 'r', result: { schemaVersion: 1 as const, metrics: { mean_latency_s: 1.68 }, extra: {} } };
    const done = project({
      status: 'done',
      trials: [
        trial({ id: 'engine/vllm', label: 'vLLM 0.11.0', status: 'done', result }),
        trial({ id: 'engine/sglang', label: 'SGLang 0.5.3.post3', engine: 'sglang', version: '0.5.3.post3', status: 'failed', error: 'torch.OutOfMemoryError: CUDA out of memory.' }),
        trial({ id: 'engine/trtllm', label: 'TensorRT-LLM 1.2.0rc1', engine: 'trtllm', version: '1.2.0rc1', status: 'rejected', rejectReason: 'needs sm ≥ 8.9 for block-scaled FP8' }),
      ],
    });
    await renderPage(studiesApi(done));
    await openFromRecent();
    fireEvent.click(screen.getByRole('tab', { name: 'Plan' }));
    const table = await screen.findByRole('table', { name: 'Planned trials' });
    expect(screen.getByText(/The study has run: each trial planned first shows what came of it/)).toBeTruthy();
    const outcomes = within(table).getAllByRole('row').map((row) => (row as HTMLTableRowElement).cells[6]?.textContent);
    expect(outcomes[0]).toBe('Outcome');
    expect(outcomes[1]).toMatch(/^Done.*1\.68$/);
    expect(outcomes[2]).toMatch(/^Failed.*out of memory/i);
    expect(outcomes[3]).toBe('Rejectedneeds sm ≥ 8.9 for block-scaled FP8');
    expect(within(table).queryByText('Will run')).toBeNull();
  });

  it("shows the study's description once, with its plan, not above every tab", async () => {
    await renderPage(studiesApi(project({ status: 'done' })));
    await openFromRecent();
    expect(screen.getByRole('tab', { name: 'Recommendation' }).getAttribute('aria-selected')).toBe('true');
    expect(screen.queryByText(STUDY.description as string)).toBeNull();
    for (const tab of ['Results', 'Report', 'Run monitor']) {
      fireEvent.click(screen.getByRole('tab', { name: tab }));
      expect(screen.queryByText(STUDY.description as string), tab).toBeNull();
    }
    fireEvent.click(screen.getByRole('tab', { name: 'Plan' }));
    expect(within(screen.getByRole('tabpanel')).getAllByText(STUDY.description as string)).toHaveLength(1);
    expect(screen.getAllByText(STUDY.description as string)).toHaveLength(1);
  });

  it('compares the top two configurations from the recommendation, in the Results tab', async () => {
    const measured = (id: string, seconds: number, over: Partial<Trial> = {}) =>
      trial({
        id,
        status: 'done',
        ...over,
        result: { id: `res-${id.replace(/\W/g, '')}-00000000`, kind: 'measured', status: 'ok', addedAt: at(0), title: id, result: { schemaVersion: 1, metrics: { mean_latency_s: seconds, mean_ttft_ms: seconds * 100 }, extra: {} } },
      });
    const done = project({
      status: 'done',
      recommendation: { engine: 'sglang', version: '0.5.3.post3', mode: 'env', config: { model: 'Qwen/Qwen3-8B-FP8', extraArgs: [], env: {} }, command: COMMAND, path: ['sglang', 'fp8'] },
      trials: [
        measured('engine/vllm', 1.68, { label: 'vLLM 0.11.0' }),
        measured('engine/sglang', 1.61, { label: 'SGLang 0.5.3.post3', engine: 'sglang', version: '0.5.3.post3' }),
        measured('quantization/fp8', 1.2, { label: 'SGLang + FP8', stageId: 'quantization', engine: 'sglang', version: '0.5.3.post3' }),
      ],
    });
    await renderPage(studiesApi(done));
    await openFromRecent();
    fireEvent.click(within(screen.getByRole('region', { name: 'Recommendation' })).getByRole('button', { name: 'Compare the top two' }));
    expect(screen.getByRole('tab', { name: 'Results' }).getAttribute('aria-selected')).toBe('true');
    const view = screen.getByRole('region', { name: 'Comparison' });
    expect((within(view).getByLabelText('Baseline') as HTMLSelectElement).value).toBe('engine/sglang');
    expect(within(view).getAllByRole('columnheader').map((h) => h.textContent).join('|')).toMatch(/SGLang \+ FP8.*\|SGLang 0\.5\.3\.post3/);
  });

  it('marks a study whose numbers come from the simulated box, and only such a study', async () => {
    const measured = (simulated: boolean): Trial['result'] => ({
      id: 'res-1-0123abcd',
      kind: 'measured',
      status: 'ok',
      addedAt: at(60),
      title: 'ShareGPT c4',
      result: { schemaVersion: BENCH_RESULT_SCHEMA_VERSION, metrics: { mean_ttft_ms: 40 }, extra: {}, provenance: { host: 'sim-h100', ...(simulated ? { simulated: true } : {}) } },
    });
    const withResult = (simulated: boolean) => project({ status: 'done', trials: [trial({ id: 'engine/vllm', status: 'done', result: measured(simulated) })], decisions: [] });
    const api = studiesApi(withResult(true));
    await renderPage(api);
    await openFromRecent();
    const heading = await screen.findByRole('heading', { level: 1, name: new RegExp(STUDY.name) });
    const badge = within(heading).getByText('Simulated');
    expect(badge.getAttribute('title')).toBe('Measured on a simulated GPU box: these numbers are a simulation, not real measurements.');
    cleanup();

    await renderPage(studiesApi(withResult(false)));
    await openFromRecent();
    const real = await screen.findByRole('heading', { level: 1, name: new RegExp(STUDY.name) });
    expect(within(real).getByTestId('study-status').textContent).toBe('Done');
    expect(within(real).queryByText('Simulated')).toBeNull();
  });

  it('exports in a browser by downloading the report text', async () => {
    const api = studiesApi(project({ status: 'done' }));
    await renderPage(api);
    await openFromRecent();
    fireEvent.click(screen.getByRole('tab', { name: 'Report' }));
    expect((await screen.findByRole('article', { name: 'Report' })).textContent).toContain(COMMAND);
    const blobs: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:report';
    });
    const revokeObjectURL = vi.fn();
    Object.assign(URL, { createObjectURL, revokeObjectURL });
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    });
    expect(clicked).toEqual(['qwen3-8b-latency-h100.csv']);
    expect(await blobs[0]!.text()).toBe('trial,status\nengine/vllm,done\n');
    expect(api.calls.some((c) => c.name === 'studies:export')).toBe(false);
    expect(screen.getByText('Downloaded qwen3-8b-latency-h100.csv')).toBeTruthy();
    click.mockRestore();
  });

  it('exports on the desktop through the save dialog and studies:export', async () => {
    const api = studiesApi(project({ status: 'done' }));
    api.handle('dialogs:saveFile', () => ({ path: '/home/me/report.html', saveHandle: 'h-1' }));
    api.handle('studies:export', () => ({ path: '/home/me/report.html' }));
    await renderPage(api);
    await openFromRecent();
    fireEvent.click(screen.getByRole('tab', { name: 'Report' }));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Export HTML' }));
    });
    expect(api.calls.find((c) => c.name === 'dialogs:saveFile')?.input).toMatchObject({ defaultName: 'qwen3-8b-latency-h100.html', extensions: ['html'] });
    expect(api.calls.find((c) => c.name === 'studies:export')?.input).toEqual({ path: PATH, format: 'html', lang: 'en', out: { saveHandle: 'h-1' } });
    expect(screen.getByText('Saved /home/me/report.html')).toBeTruthy();
  });

  it("writes the report in the UI's language unless another is chosen for the export", async () => {
    const api = studiesApi(project({ status: 'done' }));
    api.handle('dialogs:saveFile', () => ({ path: '/home/me/report.md', saveHandle: 'h-2' }));
    api.handle('studies:export', () => ({ path: '/home/me/report.md' }));
    await renderPage(api);
    await openFromRecent();
    fireEvent.click(screen.getByRole('tab', { name: 'Report' }));
    const choice = (await screen.findByLabelText('Report language')) as HTMLSelectElement;
    expect(choice.value).toBe('en');
    await waitFor(() => expect(api.calls.filter((c) => c.name === 'studies:report').at(-1)?.input).toEqual({ path: PATH, format: 'md', lang: 'en' }));
    // Another language for this report: the preview and the export follow it, the UI stays English.
    await act(async () => {
      fireEvent.change(choice, { target: { value: 'tr' } });
    });
    await waitFor(() => expect(api.calls.filter((c) => c.name === 'studies:report').at(-1)?.input).toEqual({ path: PATH, format: 'md', lang: 'tr' }));
    // The report says which language it is in, for a screen reader in an English UI.
    await waitFor(() => expect(screen.getByRole('article', { name: 'Report' }).getAttribute('lang')).toBe('tr'));
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Export Markdown' }));
    });
    expect(api.calls.find((c) => c.name === 'studies:export')?.input).toEqual({ path: PATH, format: 'md', lang: 'tr', out: { saveHandle: 'h-2' } });
    // Untouched, the choice follows the UI's language.
    cleanup();
    const again = studiesApi(project({ status: 'done' }));
    const { store } = await renderPage(again);
    act(() => store.getState().setLocale('tr'));
    try {
      const recent = await screen.findByRole('button', { name: `Son projeyi aç: ${STUDY.name}` });
      await act(async () => {
        fireEvent.click(recent);
      });
      fireEvent.click(screen.getByRole('tab', { name: 'Rapor' }));
      expect(((await screen.findByLabelText('Rapor dili')) as HTMLSelectElement).value).toBe('tr');
      await waitFor(() => expect(again.calls.filter((c) => c.name === 'studies:report').at(-1)?.input).toEqual({ path: PATH, format: 'md', lang: 'tr' }));
    } finally {
      act(() => store.getState().setLocale('en'));
    }
  });

  it('names the examples in the app’s language, from their own translations', async () => {
    const api = studiesApi();
    api.handle('studies:examples', () => [
      { name: STUDY.name, path: EXAMPLE_FILE, description: 'Reference study A on the demo lab.', translations: { tr: { name: 'Örnek A', description: 'Demo laboratuvarında referans çalışma A.' } } },
    ]);
    let rendered!: ReturnType<typeof renderWithStore>;
    await act(async () => {
      rendered = renderWithStore(<StudiesPage />, api);
      rendered.store.getState().setLocale('tr');
      syncStoreWithCore(api, rendered.store);
    });
    try {
      expect(await screen.findByRole('heading', { name: 'Örnek A' })).toBeTruthy();
      expect(screen.getByText('Demo laboratuvarında referans çalışma A.')).toBeTruthy();
      expect(screen.getByRole('button', { name: 'Örnekten yeni: Örnek A' })).toBeTruthy();
      expect(screen.queryByRole('heading', { name: STUDY.name })).toBeNull();
    } finally {
      act(() => rendered.store.getState().setLocale('en'));
    }
  });

  it('names recent projects in the app’s language, from their study’s translations, and as written otherwise', async () => {
    const api = studiesApi();
    api.handle('studies:recent', () => [
      { path: PATH, name: STUDY.name, names: { tr: 'Örnek A' }, openedAt: '2026-02-01T09:00:00.000Z' },
      { path: '/data/studies/mine.servelab', name: 'My own study', openedAt: '2026-02-01T08:00:00.000Z' },
    ]);
    let rendered!: ReturnType<typeof renderWithStore>;
    await act(async () => {
      rendered = renderWithStore(<StudiesPage />, api);
      rendered.store.getState().setLocale('tr');
      syncStoreWithCore(api, rendered.store);
    });
    try {
      const list = await screen.findByRole('list', { name: 'Son projeler' });
      expect(within(list).getByText('Örnek A')).toBeTruthy();
      expect(within(list).getByText('My own study')).toBeTruthy();
      expect(within(list).queryByText(STUDY.name)).toBeNull();
    } finally {
      act(() => rendered.store.getState().setLocale('en'));
    }
  });

  it('opens a project through the desktop dialog', async () => {
    const api = studiesApi();
    api.handle('dialogs:openFile', () => ({ path: PATH }));
    await renderPage(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Open project…' }));
    });
    expect(api.calls.find((c) => c.name === 'studies:open')?.input).toEqual({ path: PATH });
    expect(screen.getByRole('heading', { level: 1, name: new RegExp(STUDY.name) })).toBeTruthy();
  });

  it('names the field the core refused when a typed path is wrong', async () => {
    const api = studiesApi();
    api.handle('studies:open', () =>
      coreError({ code: 'BAD_INPUT', message: 'The input is not valid.', issues: [{ path: 'path', message: 'must end with .servelab' }] }),
    );
    await renderPage(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Open project…' }));
    });
    const dialog = screen.getByRole('dialog', { name: 'Open project' });
    fireEvent.change(within(dialog).getByLabelText('Project file'), { target: { value: '/tmp/x.json' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Open' }));
    });
    expect(within(dialog).getByText(/must end with \.servelab/)).toBeTruthy();
  });

  it('shows the wizard for a new study, and the landing again when it is cancelled', async () => {
    const api = studiesApi();
    await renderPage(api);
    fireEvent.click(screen.getByRole('button', { name: 'New study' }));
    expect(screen.queryByRole('button', { name: 'New study' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('button', { name: 'New study' })).toBeTruthy();
  });
});

describe('Studies in the app shell', () => {
  it('says a study runs in the navigation, and announces its end', async () => {
    const api = studiesApi();
    await renderApp(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Studies' }));
    });
    await openFromRecent();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Run' }));
    });
    const nav = screen.getByRole('navigation', { name: 'Main' });
    expect(within(nav).getByRole('status').textContent).toBe('1 study running');
    act(() => {
      api.emit('studies:state', { path: PATH, state: { status: 'done', trials: [], decisions: [] } });
    });
    expect(within(nav).getByRole('status').textContent).toBe('');
    await waitFor(() => expect(screen.getByText(`Study “${STUDY.name}” finished.`)).toBeTruthy());
    fireEvent.click(screen.getByRole('button', { name: 'Dismiss' }));
    expect(screen.queryByText(`Study “${STUDY.name}” finished.`)).toBeNull();
  });

  it('keeps the wizard’s draft and step across a visit to another page, and still asks before discarding it', async () => {
    const api = studiesApi();
    const { store } = await renderApp(api);
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Studies' }));
    });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'New study' }));
    });
    fireEvent.change(screen.getByLabelText('Model', { exact: true }), { target: { value: 'Qwen/Qwen3-8B' } });
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    });
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Step 2 of 8 · Hardware');
    expect(document.title).toBe('• Servelab — New study');

    fireEvent.click(screen.getByRole('button', { name: 'Hosts' }));
    expect(screen.queryByRole('region', { name: 'New study' })).toBeNull();
    expect(document.title).toBe('• Servelab — New study');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Studies' }));
    });
    expect(screen.getByRole('heading', { level: 2 }).textContent).toBe('Step 2 of 8 · Hardware');
    fireEvent.click(screen.getByRole('button', { name: 'Back' }));
    expect((screen.getByLabelText('Model', { exact: true }) as HTMLInputElement).value).toBe('Qwen/Qwen3-8B');

    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    const dialog = screen.getByRole('dialog', { name: 'Discard this study?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Discard' }));
    expect(screen.getByRole('button', { name: 'New study' })).toBeTruthy();
    expect(store.getState().wizard).toBeNull();
    expect(document.title).toBe('Servelab');
  });
});
