import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import latencyExampleText from '../../../../../examples/qwen3-8b-latency-h100.servelab?raw';
import { ProjectFileSchema, type ProjectFile } from '../../../../shared/study/study';
import { hasUnsavedChanges } from '../../store';
import { coreError, createFakeApi, type FakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderApp } from '../../testing/render';
import { commandForKey } from './use-app-commands';

afterEach(cleanup);

const PATH = '/data/studies/latency.servelab';
/** On-demand pages load their modules first; a busy machine takes longer than findBy's one-second default. */
const PAGE_LOAD = { timeout: 15_000 };
const EXAMPLE: ProjectFile = ProjectFileSchema.parse({ ...(JSON.parse(latencyExampleText) as object), state: { status: 'draft', trials: [], decisions: [] } });
const NAME = EXAMPLE.study.name;

function shellApi(): FakeApi {
  return createFakeApi({
    'hosts:list': () => [makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab' })],
    'prompts:pending': () => [],
    'app:info': () => ({ name: 'Servelab', version: '0.1.0', dataDir: '/data', problems: [] }),
    'studies:examples': () => [],
    'studies:recent': () => [{ path: PATH, name: NAME, openedAt: '2026-02-01T09:00:00.000Z' }],
    'studies:open': () => EXAMPLE,
    'studies:save': ({ study }) => ProjectFileSchema.parse({ ...EXAMPLE, study }),
    'studies:saveAs': () => EXAMPLE,
    'studies:plan': () => ({ trials: [], estimate: { trials: 0, rejected: 0, launches: 0, expectedRepeats: 0, gpuSeconds: 0, perTrialSeconds: {}, perServerSeconds: {} }, gpus: [] }),
    'studies:report': () => ({ text: `# ${NAME}\n` }),
    'engines:list': () => [],
    'dialogs:openFile': () => coreError({ code: 'NOT_SUPPORTED', message: 'File dialogs exist only in the desktop app.' }),
    'dialogs:saveFile': () => coreError({ code: 'NOT_SUPPORTED', message: 'File dialogs exist only in the desktop app.' }),
  });
}

const renderShell = (api = shellApi()) => renderApp(api);

async function press(key: string, mods: { ctrl?: boolean; shift?: boolean } = {}, target: Element = document.body) {
  await act(async () => {
    fireEvent.keyDown(target, { key, ctrlKey: mods.ctrl ?? false, shiftKey: mods.shift ?? false });
  });
}

async function openRecent() {
  await press('3', { ctrl: true });
  const recent = await screen.findByRole('button', { name: `Open recent project ${NAME}` });
  await act(async () => {
    fireEvent.click(recent);
  });
  await screen.findByRole('heading', { level: 1, name: new RegExp(NAME) });
}

const statusBar = () => screen.getByRole('status', { name: 'Status' });

// The whole app renders in each test; the first one also pays for loading it, which a busy machine makes slow.
describe('app commands', { timeout: 30_000 }, () => {
  it('maps keys to commands: Ctrl or ⌘ with a letter or digit, ? only outside a text field', () => {
    const key = (k: string, over: Partial<KeyboardEvent> = {}) => commandForKey({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, target: document.body, ...over });
    expect(key('n', { ctrlKey: true })).toBe('newStudy');
    expect(key('o', { metaKey: true })).toBe('open');
    expect(key('s', { ctrlKey: true })).toBe('save');
    expect(key('S', { ctrlKey: true, shiftKey: true })).toBe('saveAs');
    expect(key('e', { ctrlKey: true })).toBe('export');
    expect(['1', '2', '3', '4'].map((d) => key(d, { ctrlKey: true }))).toEqual(['page:hosts', 'page:engines', 'page:studies', 'page:results']);
    expect(key('/', { ctrlKey: true })).toBe('shortcuts');
    expect(key('?')).toBe('shortcuts');
    expect(key('?', { target: document.createElement('input') })).toBeNull();
    expect(key('?', { target: document.createElement('textarea') })).toBeNull();
    expect(key('n')).toBeNull();
    expect(key('n', { ctrlKey: true, altKey: true })).toBeNull();
    expect(key('x', { ctrlKey: true })).toBeNull();
  });

  it('runs the same commands from keys and from the desktop menu’s app:command events', async () => {
    const { api } = await renderShell();
    await press('3', { ctrl: true });
    // Pages other than Hosts load on demand.
    expect(await screen.findByRole('heading', { level: 1, name: 'Studies' }, PAGE_LOAD)).toBeTruthy();
    await act(async () => {
      api.emit('app:command', { command: 'page:results' });
    });
    expect(screen.getByRole('button', { name: 'Results' }).getAttribute('aria-current')).toBe('page');
    await press('1', { ctrl: true });
    expect(screen.getByRole('button', { name: 'Hosts' }).getAttribute('aria-current')).toBe('page');

    await press('?');
    const dialog = screen.getByRole('dialog', { name: 'Keyboard shortcuts' });
    expect(within(dialog).getByText('Save the open project as a copy')).toBeTruthy();
    expect(within(dialog).getAllByText('Ctrl').length).toBeGreaterThan(5);
    // While a dialog is open, it owns the keyboard.
    await press('3', { ctrl: true });
    expect(screen.getByRole('button', { name: 'Hosts' }).getAttribute('aria-current')).toBe('page');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    await act(async () => {
      api.emit('app:command', { command: 'shortcuts' });
    });
    expect(screen.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy();
  });

  it('asks before New study or Open replace a wizard with unsaved changes: cancel keeps it, discard replaces it', async () => {
    const { store } = await renderShell();
    await press('n', { ctrl: true });
    expect(await screen.findByRole('region', { name: 'New study' }, PAGE_LOAD)).toBeTruthy();
    expect(within(statusBar()).queryByText('unsaved changes')).toBeNull();
    fireEvent.change(screen.getByLabelText('Model', { exact: true }), { target: { value: 'Qwen/Qwen3-8B' } });
    expect(within(statusBar()).getByText('unsaved changes')).toBeTruthy();
    expect(within(statusBar()).getByText('New study')).toBeTruthy();

    await press('o', { ctrl: true });
    let dialog = screen.getByRole('dialog', { name: 'Save the study draft first?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect((screen.getByLabelText('Model', { exact: true }) as HTMLInputElement).value).toBe('Qwen/Qwen3-8B');

    await press('n', { ctrl: true });
    dialog = screen.getByRole('dialog', { name: 'Save the study draft first?' });
    // The draft cannot be saved yet (no host, no engine): saving says so and keeps everything.
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Save draft' }));
    });
    expect(within(dialog).getByRole('alert').textContent).toMatch(/problems to fix/);
    expect(store.getState().wizard?.draft.modelId).toBe('Qwen/Qwen3-8B');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Discard changes' }));
    expect((screen.getByLabelText('Model', { exact: true }) as HTMLInputElement).value).toBe('');
    expect(hasUnsavedChanges(store.getState())).toBe(false);
  });

  it('shows the connection and the open project in the status bar, and saves a copy at a typed path in a browser', async () => {
    const { api, store } = await renderShell();
    expect(within(statusBar()).getByText('Browser · loopback')).toBeTruthy();
    expect(within(statusBar()).getByText('v0.1.0')).toBeTruthy();
    expect(statusBar().getAttribute('aria-live')).toBe('polite');
    await openRecent();
    expect(within(statusBar()).getByText(NAME)).toBeTruthy();
    expect(document.title).toBe(`Servelab — ${NAME}`);

    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Save as…' }));
    });
    const dialog = screen.getByRole('dialog', { name: 'Save as' });
    const field = within(dialog).getByLabelText('Project file') as HTMLInputElement;
    expect(field.value).toBe('/data/studies/latency-copy.servelab');
    fireEvent.change(field, { target: { value: '/data/studies/other.servelab' } });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Save copy' }));
    });
    expect(api.calls.find((c) => c.name === 'studies:saveAs')?.input).toEqual({ path: PATH, out: '/data/studies/other.servelab' });
    expect(store.getState().openStudy?.path).toBe('/data/studies/other.servelab');
    expect(screen.queryByRole('dialog')).toBeNull();

    // Export report… shows the report tab, where the exports are.
    await press('e', { ctrl: true });
    expect(screen.getByRole('tab', { name: 'Report' }).getAttribute('aria-selected')).toBe('true');
  });

  it('edits a study that has not run in the wizard, filled in from its file, and saves it back to the same file', async () => {
    const { api, store } = await renderShell();
    await openRecent();
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Edit' }));
    });
    expect(screen.getByRole('region', { name: 'Edit study' })).toBeTruthy();
    expect((screen.getByLabelText('Model', { exact: true }) as HTMLInputElement).value).toBe(EXAMPLE.study.model.id);
    expect(hasUnsavedChanges(store.getState())).toBe(false);
    expect(document.title).toBe(`Servelab — ${NAME}`);
    // Every step can be visited at once: the draft is complete.
    expect((screen.getByRole('button', { name: /Review/ }) as HTMLButtonElement).disabled).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: /Review/ }));
    fireEvent.change(screen.getByLabelText('Study name'), { target: { value: 'Renamed study' } });
    expect(document.title).toBe('• Servelab — Renamed study');
    await press('s', { ctrl: true });
    const save = api.calls.find((c) => c.name === 'studies:save');
    // The study's other translations stay; its Turkish name named the old name, so it goes.
    const { name: _translatedName, ...turkish } = EXAMPLE.study.translations?.tr ?? {};
    expect(turkish.description).toBeDefined();
    expect(save?.input).toEqual({ path: PATH, study: { ...EXAMPLE.study, name: 'Renamed study', translations: { tr: turkish } } });
    expect(hasUnsavedChanges(store.getState())).toBe(false);
    expect(document.title).toBe('Servelab — Renamed study');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Save and open' }));
    });
    expect(screen.queryByRole('region', { name: 'Edit study' })).toBeNull();
    expect(store.getState().openStudy?.path).toBe(PATH);
  });

  it('offers no Edit for a study that has run', async () => {
    const api = shellApi();
    api.handle('studies:open', () => ({ ...EXAMPLE, state: { ...EXAMPLE.state, status: 'done' } }));
    await renderShell(api);
    await openRecent();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
  });
});

/** The core's queue of projects the system asked to open, as the fake answers `app:openRequests`: taken once. */
function openRequestsOf(api: FakeApi, initial: string[]): { ask(paths: string[]): void } {
  let pending = initial;
  api.handle('app:openRequests', () => {
    const paths = pending;
    pending = [];
    return { paths };
  });
  return { ask: (paths) => void (pending = paths) };
}

describe('projects the system asks to open (double-click, command line, second launch)', { timeout: 30_000 }, () => {
  it('opens the project the app was launched with, once, on the Studies page', async () => {
    const api = shellApi();
    openRequestsOf(api, [PATH]);
    renderShell(api);
    expect(await screen.findByRole('heading', { level: 1, name: new RegExp(NAME) }, PAGE_LOAD)).toBeTruthy();
    expect(api.calls.filter((c) => c.name === 'studies:open')).toEqual([{ name: 'studies:open', input: { path: PATH } }]);
  });

  it('takes the requests again when the core announces one, showing the last of several', async () => {
    const api = shellApi();
    const requests = openRequestsOf(api, []);
    renderShell(api);
    await screen.findByRole('heading', { level: 1, name: 'Hosts' }, PAGE_LOAD);
    expect(api.calls.filter((c) => c.name === 'studies:open')).toEqual([]);
    requests.ask(['/data/studies/older.servelab', PATH]);
    await act(async () => {
      api.emit('app:openRequested', {});
    });
    expect(await screen.findByRole('heading', { level: 1, name: new RegExp(NAME) }, PAGE_LOAD)).toBeTruthy();
    expect(api.calls.filter((c) => c.name === 'studies:open').map((c) => c.input)).toEqual([{ path: PATH }]);
  });

  it('looks again when a lost connection is back, as an announcement sent meanwhile is lost', async () => {
    const api = shellApi();
    const requests = openRequestsOf(api, []);
    renderShell(api);
    await screen.findByRole('heading', { level: 1, name: 'Hosts' }, PAGE_LOAD);
    await act(async () => {
      api.setStatus('reconnecting');
    });
    requests.ask([PATH]);
    await act(async () => {
      api.setStatus('open');
    });
    expect(await screen.findByRole('heading', { level: 1, name: new RegExp(NAME) }, PAGE_LOAD)).toBeTruthy();
  });

  it('says why a project asked for could not be opened', async () => {
    const api = shellApi();
    openRequestsOf(api, ['/data/gone.servelab']);
    api.handle('studies:open', () => coreError({ code: 'NOT_FOUND', message: 'No project file at /data/gone.servelab.' }));
    renderShell(api);
    expect(await screen.findByText(/No project file at \/data\/gone\.servelab\./, undefined, PAGE_LOAD)).toBeTruthy();
  });
});
