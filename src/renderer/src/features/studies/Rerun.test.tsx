import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServelabError } from '../../../../shared/contract';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { rerunProvenance } from '../../../../shared/study/rerun';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type ProjectFile, type Trial } from '../../../../shared/study/study';
import { syncStoreWithCore } from '../../store';
import { createFakeApi, type FakeApi } from '../../testing/fake-api';
import { makeTrial } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { StudiesPage } from './StudiesPage';

vi.mock('../../components/EChart', () => ({
  EChart: ({ title }: { title: string }) => <figure aria-label={title} />,
  useThemeMode: () => 'light',
}));

afterEach(cleanup);

// Marked edge case: hand-written one-run results, to see the dialog and the view; the comparison's statistics are
// tested on whole studies with the simulated box's noise (tests/integration/study-rerun.test.ts).
const PATH = '/data/studies/latency.servelab';
const OUT = '/data/studies/latency-rerun.servelab';

const STUDY = StudyDefinitionSchema.parse({
  name: 'Latency',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: 'demo-lab' }],
  goal: { kind: 'latency', marginPct: 3 },
  engines: [
    { engine: 'vllm', version: '0.11.0' },
    { engine: 'sglang', version: '0.5.3.post3' },
  ],
  stages: [{ id: 'quantization', label: 'Quantization', candidates: [{ id: 'fp8', label: 'FP8 checkpoint' }] }],
  workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 } },
});

function result(meanLatencyS: number): ResultEntry {
  return { id: 'res-t-00000000', kind: 'measured', status: 'ok', addedAt: '2026-01-01T00:00:00.000Z', title: 'r', result: { schemaVersion: 1, metrics: { mean_latency_s: meanLatencyS }, extra: {} } };
}

function ran(id: string, over: Partial<Trial>, latency: number): Trial {
  return makeTrial({ id: `${id}/sharegpt-c4/r1`, candidateId: id.split('/')[1] as string, stageId: id.split('/')[0] as string, serverKey: id, result: result(latency), finishedAt: '2026-01-01T01:00:00.000Z', ...over });
}

const ORIGINAL: ProjectFile = {
  schemaVersion: PROJECT_SCHEMA_VERSION,
  study: STUDY,
  state: {
    status: 'done',
    finishedAt: '2026-01-01T02:00:00.000Z',
    decisions: [],
    trials: [
      ran('engine/vllm-0.11.0', { label: 'vLLM 0.11.0' }, 2.0),
      ran('engine/sglang-0.5.3.post3', { label: 'SGLang 0.5.3.post3', engine: 'sglang', version: '0.5.3.post3' }, 1.8),
      ran('quantization/fp8', { label: 'FP8 checkpoint', engine: 'sglang', version: '0.5.3.post3' }, 1.5),
    ],
  },
};

const RERUN: ProjectFile = {
  schemaVersion: PROJECT_SCHEMA_VERSION,
  study: { ...STUDY, name: 'Latency (re-run)', engines: [{ ...STUDY.engines[0]!, version: '0.12.0' }, STUDY.engines[1]!], rerunOf: rerunProvenance(PATH, ORIGINAL) },
  state: {
    status: 'done',
    decisions: [],
    trials: [
      ran('engine/vllm-0.12.0', { label: 'vLLM 0.12.0', version: '0.12.0' }, 2.6),
      ran('engine/sglang-0.5.3.post3', { label: 'SGLang 0.5.3.post3', engine: 'sglang', version: '0.5.3.post3' }, 1.8),
      ran('quantization/fp8', { label: 'FP8 checkpoint', engine: 'sglang', version: '0.5.3.post3' }, 1.52),
    ],
  },
};

function api(): FakeApi {
  return createFakeApi({
    'hosts:list': () => [],
    'prompts:pending': () => [],
    'app:info': () => ({ name: 'Servelab', version: '0.1.0', dataDir: '/data', problems: [] }),
    'studies:examples': () => [],
    'studies:recent': () => [{ path: PATH, name: STUDY.name, openedAt: '2026-02-01T09:00:00.000Z' }],
    'studies:open': ({ path }) => (path === OUT ? RERUN : ORIGINAL),
    'studies:gpuMemory': () => [],
    'studies:report': () => ({ text: '# Latency\n' }),
    'studies:rerun': ({ out }) => ({
      path: out,
      project: { ...RERUN, state: { status: 'draft', trials: [], decisions: [] } },
      lost: [{ engine: 'vllm', version: '0.12.0', stageId: 'quantization', candidateId: 'fp8', label: 'FP8 checkpoint', reason: 'vLLM 0.12.0 cannot apply quantization' }],
      untabled: [],
    }),
    'studies:rerunOriginal': () => ({ path: PATH, project: ORIGINAL }),
  });
}

async function renderPage(fake: FakeApi) {
  let rendered!: ReturnType<typeof renderWithStore>;
  await act(async () => {
    rendered = renderWithStore(<StudiesPage />, fake);
  });
  act(() => {
    syncStoreWithCore(fake, rendered.store);
  });
  return rendered;
}

async function click(element: HTMLElement) {
  await act(async () => {
    fireEvent.click(element);
  });
}

describe('Re-run with…', () => {
  it('writes the re-run at the chosen versions, lists what the new version cannot launch, and opens it', async () => {
    const fake = api();
    await renderPage(fake);
    await click(await screen.findByRole('button', { name: `Open recent project ${STUDY.name}` }));
    await click(await screen.findByRole('button', { name: 'Re-run with…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Re-run with other versions' });
    const vllm = within(dialog).getByLabelText('vLLM version') as HTMLSelectElement;
    expect(vllm.value).toBe('0.11.0');
    expect(within(vllm).getByRole('option', { name: '0.11.0 (this study)' })).toBeTruthy();
    fireEvent.change(vllm, { target: { value: '0.12.0' } });
    expect((within(dialog).getByLabelText('New project file') as HTMLInputElement).value).toBe(OUT);
    expect((within(dialog).getByLabelText('Host') as HTMLSelectElement).value).toBe('');
    await click(within(dialog).getByRole('button', { name: 'Create the re-run' }));
    expect(fake.calls.find((c) => c.name === 'studies:rerun')?.input).toEqual({ path: PATH, out: OUT, engineVersions: { vllm: '0.12.0', sglang: '0.5.3.post3' } });
    expect(within(dialog).getByText(`The re-run was written to ${OUT}.`)).toBeTruthy();
    expect(within(dialog).getByText('vLLM 0.12.0 · Quantization · FP8 checkpoint: vLLM 0.12.0 cannot apply quantization')).toBeTruthy();
    const openIt = within(dialog).getByRole('button', { name: 'Open the re-run' });
    expect(document.activeElement).toBe(openIt);
    await click(openIt);
    expect(fake.calls.filter((c) => c.name === 'studies:open').map((c) => c.input)).toContainEqual({ path: OUT });
    expect(await screen.findByRole('heading', { level: 1, name: /Latency \(re-run\)/ })).toBeTruthy();
    expect(screen.getByText('Re-run of “Latency” (vLLM 0.11.0, SGLang 0.5.3.post3)')).toBeTruthy();
  });

  it('is offered only on a finished study', async () => {
    const fake = api();
    fake.handle('studies:open', () => ({ ...ORIGINAL, state: { status: 'draft', trials: [], decisions: [] } }));
    fake.handle('studies:plan', () => ({ trials: [], estimate: { trials: 0, rejected: 0, launches: 0, expectedRepeats: 0, gpuSeconds: 0, perTrialSeconds: {}, perServerSeconds: {} }, gpus: [] }));
    await renderPage(fake);
    await click(await screen.findByRole('button', { name: `Open recent project ${STUDY.name}` }));
    await screen.findByRole('heading', { level: 1, name: /Latency/ });
    expect(screen.queryByRole('button', { name: 'Re-run with…' })).toBeNull();
    expect(screen.queryByRole('tab', { name: 'Versus original' })).toBeNull();
  });
});

describe('Versus original', () => {
  it('shows each configuration against the original with its change, interval and verdict, the regression marked, reached by keyboard', async () => {
    const fake = api();
    fake.handle('studies:recent', () => [{ path: OUT, name: RERUN.study.name, openedAt: '2026-02-01T09:00:00.000Z' }]);
    await renderPage(fake);
    await click(await screen.findByRole('button', { name: `Open recent project ${RERUN.study.name}` }));
    const report = screen.getByRole('tab', { name: 'Report' });
    await click(report);
    await act(async () => {
      fireEvent.keyDown(report, { key: 'ArrowRight' });
    });
    const tab = screen.getByRole('tab', { name: 'Versus original' });
    expect(tab.getAttribute('aria-selected')).toBe('true');
    expect(document.activeElement).toBe(tab);
    expect(fake.calls.find((c) => c.name === 'studies:rerunOriginal')?.input).toEqual({ path: OUT });

    const table = await screen.findByRole('table', { name: 'Changes from the original' });
    const rows = within(table).getAllByTestId('versus-row');
    expect(rows).toHaveLength(3);
    const vllm = rows.find((r) => within(r).queryByText(/vLLM 0\.12\.0/)) as HTMLElement;
    expect(vllm.className).toContain('versus-regression');
    expect(within(vllm).getByText('Regression: worse')).toBeTruthy();
    expect(within(vllm).getByText(/^\+30\.0% \[\+\d+\.\d, \+\d+\.\d\]$/)).toBeTruthy();
    const sglang = rows.find((r) => within(r).queryByText(/SGLang 0\.5\.3\.post3$/)) as HTMLElement;
    expect(within(sglang).getByText('no difference')).toBeTruthy();
    expect(sglang.className).not.toContain('versus-regression');
    const fp8 = rows.find((r) => within(r).queryByText(/FP8 checkpoint/)) as HTMLElement;
    // +1.3% on one run each, its interval reaching past the +3% margin on the worse side: neither a regression nor no difference.
    expect(within(fp8).getByText('inconclusive')).toBeTruthy();
    const list = screen.getByRole('note');
    expect(within(list).getByText('Regressions (1): the same settings worse than the margin over the whole interval, or failing where the original measured them')).toBeTruthy();
    expect(within(list).getByText(/^Engine selection · vLLM 0\.12\.0 · sharegpt-c4 · Mean latency: \+30\.0%/)).toBeTruthy();
  });
});

describe('Versus original, a configuration lost', () => {
  it('lists a configuration the original measured and the re-run failed as a regression, and marks its row', async () => {
    const fake = api();
    const failedFp8 = { ...(RERUN.state.trials[2] as Trial), status: 'failed' as const, error: 'the server died' };
    const { result: _result, ...withoutResult } = failedFp8;
    fake.handle('studies:recent', () => [{ path: OUT, name: RERUN.study.name, openedAt: '2026-02-01T09:00:00.000Z' }]);
    fake.handle('studies:open', () => ({ ...RERUN, state: { ...RERUN.state, trials: [...RERUN.state.trials.slice(0, 2), withoutResult] } }));
    await renderPage(fake);
    await click(await screen.findByRole('button', { name: `Open recent project ${RERUN.study.name}` }));
    await click(screen.getByRole('tab', { name: 'Versus original' }));
    const table = await screen.findByRole('table', { name: 'Changes from the original' });
    const fp8 = within(table).getAllByTestId('versus-row').find((r) => within(r).queryByText(/FP8 checkpoint/)) as HTMLElement;
    expect(fp8.className).toContain('versus-regression');
    expect(within(fp8).getByText('failed')).toBeTruthy();
    expect(within(fp8).getByText('Regression')).toBeTruthy();
    const list = screen.getByRole('note');
    expect(within(list).getByText('Quantization · FP8 checkpoint · sharegpt-c4: measured in the original, failed in the re-run')).toBeTruthy();
  });
});

describe('Versus original, the original gone', () => {
  it('says where the original was, and reads it again when asked once it is back', async () => {
    const fake = api();
    let back = false;
    fake.handle('studies:recent', () => [{ path: OUT, name: RERUN.study.name, openedAt: '2026-02-01T09:00:00.000Z' }]);
    fake.handle('studies:rerunOriginal', () => {
      if (!back) throw new ServelabError('NOT_FOUND', `The original study "Latency" is no longer at ${PATH}; put it back at ${PATH} to compare with it.`);
      return { path: PATH, project: ORIGINAL };
    });
    await renderPage(fake);
    await click(await screen.findByRole('button', { name: `Open recent project ${RERUN.study.name}` }));
    await click(screen.getByRole('tab', { name: 'Versus original' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(`The original study “Latency” is neither at ${PATH} nor beside this re-run: put it back, then try again.`);
    back = true;
    await click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table', { name: 'Changes from the original' })).toBeTruthy();
    expect(fake.calls.filter((c) => c.name === 'studies:rerunOriginal')).toHaveLength(2);
  });
});

describe('Versus original, before the re-run ran', () => {
  it('says there is nothing to compare yet and claims no absence of regressions', async () => {
    const fake = api();
    fake.handle('studies:recent', () => [{ path: OUT, name: RERUN.study.name, openedAt: '2026-02-01T09:00:00.000Z' }]);
    fake.handle('studies:open', () => ({ ...RERUN, state: { status: 'draft', trials: [], decisions: [] } }));
    fake.handle('studies:plan', () => ({ trials: [], estimate: { trials: 0, rejected: 0, launches: 0, expectedRepeats: 0, gpuSeconds: 0, perTrialSeconds: {}, perServerSeconds: {} }, gpus: [] }));
    await renderPage(fake);
    await click(await screen.findByRole('button', { name: `Open recent project ${RERUN.study.name}` }));
    await click(screen.getByRole('tab', { name: 'Versus original' }));
    expect(await screen.findByText('Nothing to compare yet: the re-run has measured no configuration that the original also measured.')).toBeTruthy();
    expect(screen.queryByText(/^No regression/)).toBeNull();
    expect(screen.getByText('Only in the original (3)')).toBeTruthy();
  });
});
