import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
// The published throughput guide, verbatim (tests/fixtures/guides/README.md), read by the real guide reader.
import throughputGuide from '../../../../../tests/fixtures/guides/qwen3-32b-a100-throughput.tr.txt?raw';
import { studyFromGuide } from '../../../../shared/study/guide/study-from-guide';
import { PROJECT_SCHEMA_VERSION, ProjectFileSchema } from '../../../../shared/study/study';
import { coreError, createFakeApi, type FakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderApp } from '../../testing/render';
import { formatMetric } from '../../components/metric-text';

afterEach(cleanup);

const GUIDE = '/home/me/guides/qwen3-32b-a100-throughput.tr.txt';
const OUT = '/home/me/studies/qwen3-32b.servelab';

function projectFromGuide() {
  const read = studyFromGuide(throughputGuide, { fileName: 'qwen3-32b-a100-throughput.tr.txt' });
  const project = ProjectFileSchema.parse({
    schemaVersion: PROJECT_SCHEMA_VERSION,
    study: read.study,
    state: { status: 'draft', trials: [], decisions: [], references: read.references, guide: { file: 'qwen3-32b-a100-throughput.tr.txt', title: read.title, problems: read.problems } },
  });
  return { project, problems: read.problems };
}

function guideApi(dialogs: 'native' | 'browser'): FakeApi {
  const opened = projectFromGuide();
  const notSupported = () => coreError({ code: 'NOT_SUPPORTED', message: 'File dialogs exist only in the desktop app.' });
  return createFakeApi({
    'hosts:list': () => [makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab' })],
    'prompts:pending': () => [],
    'app:info': () => ({ name: 'Servelab', version: '0.1.0', dataDir: '/data', problems: [] }),
    'studies:examples': () => [],
    'studies:recent': () => [],
    'engines:list': () => [],
    'studies:plan': () => ({ trials: [], estimate: { trials: 0, rejected: 0, launches: 0, expectedRepeats: 0, gpuSeconds: 0, perTrialSeconds: {}, perServerSeconds: {} }, gpus: [] }),
    'dialogs:openFile': dialogs === 'native' ? () => ({ path: GUIDE }) : notSupported,
    'dialogs:saveFile': dialogs === 'native' ? () => ({ path: OUT, saveHandle: 'h1' }) : notSupported,
    'studies:fromGuide': () => opened,
  });
}

async function openGuideFromMenu(api: FakeApi) {
  await act(async () => {
    api.emit('app:command', { command: 'openGuide' });
  });
}

describe('File → Open guide…', { timeout: 30_000 }, () => {
  it('asks for a guide and where to save the study, opens it, and lists what the guide gets wrong', async () => {
    const api = guideApi('native');
    await renderApp(api);
    await openGuideFromMenu(api);
    await screen.findByRole('heading', { level: 1, name: /Qwen3-32B işlem hacmi/ });
    const open = api.calls.find((c) => c.name === 'dialogs:openFile')?.input as { extensions: string[] };
    expect(open.extensions).toEqual(['md', 'markdown', 'html', 'htm', 'txt']);
    expect(api.calls.find((c) => c.name === 'dialogs:saveFile')?.input).toMatchObject({ defaultName: 'qwen3-32b-a100-throughput.tr.servelab', extensions: ['servelab'] });
    expect(api.calls.find((c) => c.name === 'studies:fromGuide')?.input).toEqual({ path: OUT, guide: GUIDE });

    const panel = screen.getByRole('group', { name: 'Opened from a guide' });
    expect(within(panel).getByText(/Opened from qwen3-32b-a100-throughput\.tr\.txt: 17 published results kept beside yours; lines to check: 3/)).toBeTruthy();
    const problems = within(panel).getByRole('list', { name: 'What the study could not take, and what the guide gets wrong' });
    const wrong = within(problems).getAllByRole('listitem').filter((li) => li.textContent?.includes('guide is wrong'));
    expect(wrong.map((li) => li.textContent)).toEqual([expect.stringMatching(/qwen3-32b-a100-throughput\.tr\.txt:262 this command serves Qwen\/Qwen3-14B/)]);
  });

  it('shows the published results in the Results tab before anything is measured, labelled published with their line', async () => {
    const api = guideApi('native');
    await renderApp(api);
    await openGuideFromMenu(api);
    await screen.findByRole('heading', { level: 1, name: /Qwen3-32B işlem hacmi/ });
    fireEvent.click(screen.getByRole('tab', { name: 'Results' }));
    const table = screen.getByRole('table', { name: 'Trials' });
    expect(within(table).getByText('Published in the guide')).toBeTruthy();
    const row = table.querySelector('[data-reference-id="published-l146"]') as HTMLElement;
    expect(within(row).getByText('published')).toBeTruthy();
    // The guide printed "Total Token throughput (tok/s): 2054.21", shown as the app formats that metric.
    expect(within(row).getByText(formatMetric('total_token_throughput', 2054.21))).toBeTruthy();
    expect(within(row).getByText('qwen3-32b-a100-throughput.tr.txt:146')).toBeTruthy();
    const failed = table.querySelector('[data-reference-id="published-l182"]') as HTMLElement;
    expect(within(failed).getByText(/the guide’s launch failed: RuntimeError: Unsupported SM version for FP8 block scaling GEMM/)).toBeTruthy();
  });

  it('takes a typed path where there is no file dialog, writing the study beside the guide', async () => {
    const api = guideApi('browser');
    await renderApp(api);
    await openGuideFromMenu(api);
    const dialog = await screen.findByRole('dialog', { name: 'Open guide' });
    fireEvent.change(within(dialog).getByRole('textbox'), { target: { value: GUIDE } });
    await act(async () => {
      fireEvent.click(within(dialog).getByRole('button', { name: 'Open as a study' }));
    });
    await screen.findByRole('heading', { level: 1, name: /Qwen3-32B işlem hacmi/ });
    expect(api.calls.find((c) => c.name === 'studies:fromGuide')?.input).toEqual({ path: '/home/me/guides/qwen3-32b-a100-throughput.tr.servelab', guide: GUIDE });
  });

  it('is also a button on the Studies page, for a browser that has no menu', async () => {
    const api = guideApi('browser');
    await renderApp(api);
    await act(async () => {
      api.emit('app:command', { command: 'page:studies' });
    });
    await act(async () => {
      fireEvent.click(await screen.findByRole('button', { name: 'Open guide…' }));
    });
    expect(await screen.findByRole('dialog', { name: 'Open guide' })).toBeTruthy();
  });
});
