import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import latencyExampleText from '../../../../../examples/qwen3-8b-latency-h100.servelab?raw';
import { ServelabError, type CallOutput } from '../../../../shared/contract';
import { PROJECT_SCHEMA_VERSION, ProjectFileSchema, StudyDefinitionSchema, type StudyDefinition, type Trial } from '../../../../shared/study/study';
import { createFakeApi, type FakeApi } from '../../testing/fake-api';
import { H200_INVENTORY, makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { StudyWizard } from './StudyWizard';

afterEach(cleanup);

const DEMO = makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab' });
const BOX = makeHost({ id: 'h200', label: 'h200-box' });

function rejectedTrial(over: Partial<Trial>): Trial {
  return {
    id: 'engine/trtllm/sharegpt-c4/r1',
    stageId: 'engine',
    candidateId: 'trtllm',
    label: 'TensorRT-LLM 1.2.0rc1 defaults',
    engine: 'trtllm',
    version: '1.2.0rc1',
    mode: 'env',
    config: { model: 'Qwen/Qwen3-8B', extraArgs: [], env: {} },
    serverKey: 'k-trt',
    command: 'trtllm-serve Qwen/Qwen3-8B',
    workloadId: 'sharegpt-c4',
    repeat: 1,
    status: 'rejected',
    ...over,
  };
}

const PLAN: CallOutput<'studies:plan'> = {
  trials: [
    rejectedTrial({ status: 'planned', engine: 'vllm', version: '0.11.0', label: 'vLLM 0.11.0 defaults', serverKey: 'k-vllm' }),
    rejectedTrial({ rejectReason: 'FP8 block-scaled GEMMs need sm 8.9 or newer; the A100 is sm 8.0' }),
    rejectedTrial({ id: 'engine/trtllm/sharegpt-c4/r2', repeat: 2, rejectReason: 'FP8 block-scaled GEMMs need sm 8.9 or newer; the A100 is sm 8.0' }),
  ],
  estimate: { trials: 3, rejected: 2, launches: 1, expectedRepeats: 0, gpuSeconds: 3900, perTrialSeconds: {}, perServerSeconds: {}, wallSeconds: 1800, peakGpus: 1 },
  gpus: [{ hostId: 'demo-lab', index: '0', name: 'NVIDIA A100-SXM4-80GB', memoryMiB: 81920, computeCapability: '8.0' }],
};

function makeApi(): FakeApi {
  return createFakeApi({
    'hosts:list': () => [DEMO, BOX],
    'hosts:inventory': () => H200_INVENTORY,
    'engines:list': ({ hostId }) =>
      hostId === 'demo-lab' ? [{ engine: 'vllm', version: '0.11.0', dir: '~/.servelab/engines/vllm-0.11.0', installedAt: '2026-01-01T00:00:00Z', verifiedVersion: '0.11.0', tool: 'uv', mode: 'env' }] : [],
    'app:info': () => ({ name: 'Servelab', version: '0.1.0', dataDir: '/data', problems: [] }),
    'studies:create': ({ study }) => ProjectFileSchema.parse({ schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { status: 'draft' } }),
    'studies:save': ({ study }) => ProjectFileSchema.parse({ schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { status: 'draft' } }),
    'studies:plan': () => PLAN,
  });
}

function renderWizard(api = makeApi()) {
  const onCreated = vi.fn();
  const onCancel = vi.fn();
  renderWithStore(<StudyWizard onCreated={onCreated} onCancel={onCancel} />, api);
  return { api, onCreated, onCancel };
}

const isDisabled = (el: HTMLElement) => (el as HTMLButtonElement).disabled;
const isChecked = (el: HTMLElement) => (el as HTMLInputElement).checked;
const valueOf = (el: HTMLElement) => (el as HTMLInputElement).value;
const textOf = (el: HTMLElement | null) => el?.textContent ?? '';
/** The text of the elements aria-describedby points at (the field's error, or its hint). */
const descriptionOf = (el: HTMLElement) =>
  (el.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ')
    .trim();
const nextButton = () => buttonNamed('Next');
const stepHeading = () => screen.getByRole('heading', { level: 2 }).textContent;
/** The controls a visible <label> with exactly this text names; getAllByLabelText takes minutes on the stages step in jsdom. */
function labelled(root: HTMLElement, text: string): HTMLElement[] {
  const norm = (value: string) => value.replace(/\s+/g, ' ').trim();
  // A label's "optional" note is not part of the name a test asks for.
  const withoutNote = (label: HTMLLabelElement) => norm([...label.childNodes].filter((n) => !(n instanceof HTMLElement && n.classList.contains('field-note'))).map((n) => n.textContent).join(''));
  return [...root.querySelectorAll('label')]
    .filter((label) => label.htmlFor && (norm(label.textContent ?? '') === text || withoutNote(label) === text))
    .map((label) => document.getElementById(label.htmlFor))
    .filter((el): el is HTMLElement => el !== null);
}
function field(text: string, root: HTMLElement = document.body): HTMLElement {
  const found = labelled(root, text);
  if (found.length !== 1) throw new Error(`expected one control labelled "${text}", found ${found.length}`);
  return found[0]!;
}
const type = (label: string, value: string, root: HTMLElement = document.body) => fireEvent.change(field(label, root), { target: { value } });
const tick = (label: string, root: HTMLElement = document.body) => fireEvent.click(within(root).getByRole('checkbox', { name: label }));
// Text and label queries, not role queries: the stages step renders hundreds of controls and role queries are slow in jsdom.
const buttonNamed = (name: string, root: HTMLElement = document.body) =>
  within(root).queryByText(name, { selector: 'button' }) ?? only(root.querySelectorAll<HTMLElement>(`button[aria-label="${name}"]`), name);
function only(found: NodeListOf<HTMLElement>, name: string): HTMLElement {
  if (found.length !== 1) throw new Error(`expected one element named "${name}", found ${found.length}`);
  return found[0]!;
}
const click = (name: string, root?: HTMLElement) => fireEvent.click(buttonNamed(name, root));
const stageNames = () => [...document.querySelectorAll('section[aria-label^="Stage "]')].map((el) => el.getAttribute('aria-label'));
const stage = (name: string) => only(document.querySelectorAll<HTMLElement>(`section[aria-label="${name}"]`), name);

async function next() {
  expect(isDisabled(nextButton())).toBe(false);
  fireEvent.click(nextButton());
  await act(async () => {});
}

async function modelStep(model = 'Qwen/Qwen3-8B') {
  type('Model', model);
  await next();
}

async function hardwareStep() {
  await screen.findByRole('checkbox', { name: 'Demo lab' });
  tick('Demo lab');
  await next();
}

describe('StudyWizard', { timeout: 60_000 }, () => {
  it('validates each step as the user types, naming the field, and keeps Next disabled until it is valid', async () => {
    renderWizard();
    expect(isDisabled(nextButton())).toBe(true);
    expect(textOf(screen.getByRole('status'))).toContain('Model is required');

    type('Model', '-oops');
    expect(descriptionOf(screen.getByLabelText('Model'))).toBe('Model must not start with "-"');
    expect(isDisabled(nextButton())).toBe(true);

    type('Model', 'Qwen/Qwen3-8B');
    click('Add variant');
    type('Id', 'FP 8', screen.getByRole('group', { name: 'Variant 1' }));
    expect(descriptionOf(within(screen.getByRole('group', { name: 'Variant 1' })).getByLabelText('Id'))).toMatch(/^Variant 1 id may only hold lower-case letters/);
    expect(isDisabled(nextButton())).toBe(true);
    click('Remove variant 1');
    await next();

    // Hardware: a host is required; the simulated count is bounded; GPUs per trial must fit the hosts.
    expect(stepHeading()).toContain('Hardware');
    expect(isDisabled(nextButton())).toBe(true);
    await screen.findByRole('checkbox', { name: 'Demo lab' });
    expect(textOf(screen.getByRole('status'))).toContain('Hosts needs at least one host');
    tick('Demo lab');
    type('Simulated GPU count', '9');
    expect(descriptionOf(screen.getByLabelText('Simulated GPU count'))).toBe('Simulated GPU count must be at most 8');
    type('Simulated GPU count', '2');
    type('Fewest GPUs per trial', '4');
    expect(descriptionOf(screen.getByLabelText('Fewest GPUs per trial'))).toBe('Fewest GPUs per trial is more than any chosen host offers (2)');
    type('Fewest GPUs per trial', '2');
    await next();

    // Goal: an SLO needs its value, the margin its range.
    click('Add SLO');
    expect(isDisabled(nextButton())).toBe(true);
    type('Value', 'fast', screen.getByRole('group', { name: 'SLO 1' }));
    expect(descriptionOf(field('Value', screen.getByRole('group', { name: 'SLO 1' })))).toBe('SLO 1 value must be a number');
    type('Value', '200', screen.getByRole('group', { name: 'SLO 1' }));
    type('Margin (%)', '150');
    expect(descriptionOf(field('Margin (%)'))).toBe('Margin must be at most 100');
    type('Margin (%)', '2');
    await next();

    // Engines: at least one; base settings are checked against the config schema.
    expect(isDisabled(nextButton())).toBe(true);
    expect(textOf(screen.getByRole('status'))).toContain('Engines needs at least one engine');
    tick('Use vLLM');
    const settings = 'vLLM other base settings (JSON)';
    type(settings, '{"maxModelLenX": 5}');
    expect(descriptionOf(field(settings))).toBe('vLLM settings: has no setting "maxModelLenX"');
    type(settings, '{"chunkedPrefill": tru');
    expect(descriptionOf(field(settings))).toBe('vLLM settings is not valid JSON');
    type(settings, '{"chunkedPrefill": true}');
    await next();

    // Stages: a candidate's settings are a ConfigPatch.
    const cuda = stage('Stage 1: CUDA graph max batch size');
    type('Settings (JSON)', '{"cudaGraphMaxBatchSize": 0}', cuda);
    expect(descriptionOf(field('Settings (JSON)', cuda))).toBe('Stage 1 candidate 1 settings: cudaGraphMaxBatchSize must be at least 1');
    expect(isDisabled(nextButton())).toBe(true);
    type('Settings (JSON)', '{"cudaGraphMaxBatchSize": 16}', cuda);
    await next();

    // Workloads: prompts are required and whole.
    type('Prompts', '');
    expect(descriptionOf(field('Prompts'))).toBe('Primary workload prompts is required');
    type('Prompts', '2.5');
    expect(descriptionOf(field('Prompts'))).toBe('Primary workload prompts must be a whole number');
    type('Prompts', '50');
    await next();

    type('Repeats', '11');
    expect(descriptionOf(field('Repeats'))).toBe('Repeats must be at most 10');
    type('Repeats', '2');
    await next();
    expect(stepHeading()).toContain('Review');
    // Counts in words, singular or plural, never "repeat(s)".
    expect(screen.getByText(/, 2 repeats$/)).toBeTruthy();
    expect(screen.getByText('2 GPUs per trial')).toBeTruthy();
    expect(document.body.textContent).not.toContain('(s)');
  });

  it('keeps what was entered when going back and forth', async () => {
    renderWizard();
    type('Model', 'Qwen/Qwen3-32B');
    click('Add Qwen/Qwen3-32B-AWQ');
    await next();
    await screen.findByRole('checkbox', { name: 'Demo lab' });
    tick('Demo lab');
    fireEvent.change(screen.getByLabelText('Simulated GPU'), { target: { value: 'a100' } });
    tick('GPU 0 · A100 (simulated)');
    expect(isDisabled(nextButton())).toBe(true);
    tick('GPU 0 · A100 (simulated)');
    await next();
    fireEvent.click(screen.getByRole('radio', { name: /Highest throughput/ }));
    await next();

    click('Back');
    expect(isChecked(screen.getByRole('radio', { name: /Highest throughput/ }))).toBe(true);
    click('Back');
    expect(isChecked(screen.getByRole('checkbox', { name: 'Demo lab' }))).toBe(true);
    expect(valueOf(screen.getByLabelText('Simulated GPU'))).toBe('a100');
    click('Back');
    expect(valueOf(screen.getByLabelText('Model'))).toBe('Qwen/Qwen3-32B');
    expect(valueOf(within(screen.getByRole('group', { name: 'Variant 1' })).getByLabelText('Checkpoint'))).toBe('Qwen/Qwen3-32B-AWQ');

    // The step list jumps back to a step already reached, with its values.
    fireEvent.click(within(screen.getByRole('navigation', { name: 'Study steps' })).getByRole('button', { name: /Goal/ }));
    expect(isChecked(screen.getByRole('radio', { name: /Highest throughput/ }))).toBe(true);
    // The throughput goal switched the untouched primary workload to the reference throughput study's unbounded ShareGPT run.
    await next();
    tick('Use SGLang');
    await next();
    await next();
    expect(valueOf(screen.getByLabelText('Workload'))).toBe('sharegpt-1000-unbounded');
  });

  it('offers a throughput goal per GPU or on a GPU budget, the budget the box’s GPUs unless typed, and says why latency has none', async () => {
    renderWizard();
    await modelStep();
    await screen.findByRole('checkbox', { name: 'Demo lab' });
    tick('Demo lab');
    type('Simulated GPU count', '8');
    await next();
    expect(screen.getByText(/A latency goal compares each server as it runs/)).toBeTruthy();
    expect(screen.queryByRole('radio', { name: /Per GPU/ })).toBeNull();
    fireEvent.click(screen.getByRole('radio', { name: /Highest throughput/ }));
    expect(isChecked(screen.getByRole('radio', { name: /Per server/ }))).toBe(true);
    fireEvent.click(screen.getByRole('radio', { name: /On a GPU budget/ }));
    expect(descriptionOf(field('GPU budget'))).toBe("Empty: the box's GPUs (8).");
    expect(isDisabled(nextButton())).toBe(false);
    type('GPU budget', 'eight');
    expect(descriptionOf(field('GPU budget'))).toBe('GPU budget must be a number');
    expect(isDisabled(nextButton())).toBe(true);
    type('GPU budget', '4');
    expect(isDisabled(nextButton())).toBe(false);
  });

  it('moves on with Enter and asks before Escape discards what was entered', async () => {
    const { onCancel } = renderWizard();
    const model = screen.getByLabelText('Model');
    fireEvent.keyDown(model, { key: 'Enter' });
    expect(stepHeading()).toContain('Model');
    fireEvent.change(model, { target: { value: 'Qwen/Qwen3-8B' } });
    fireEvent.keyDown(model, { key: 'Enter' });
    await act(async () => {});
    expect(stepHeading()).toContain('Hardware');

    fireEvent.keyDown(screen.getByRole('button', { name: 'Back' }), { key: 'Escape' });
    const dialog = screen.getByRole('dialog', { name: 'Discard this study?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep editing' }));
    expect(onCancel).not.toHaveBeenCalled();
    fireEvent.keyDown(screen.getByRole('button', { name: 'Back' }), { key: 'Escape' });
    fireEvent.click(screen.getByRole('button', { name: 'Discard' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('cancels at once with Escape when nothing was entered', () => {
    const { onCancel } = renderWizard();
    fireEvent.keyDown(screen.getByLabelText('Model'), { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('suggests -FP8 and -AWQ variants for a Qwen3 id only', () => {
    renderWizard();
    type('Model', 'meta-llama/Llama-3.1-8B');
    expect(screen.queryByRole('group', { name: 'Suggested:' })).toBeNull();
    type('Model', 'Qwen/Qwen3-8B');
    const suggested = screen.getByRole('group', { name: 'Suggested:' });
    expect(within(suggested).getAllByRole('button').map((b) => b.textContent)).toEqual(['Add Qwen/Qwen3-8B-FP8', 'Add Qwen/Qwen3-8B-AWQ']);
    click('Add Qwen/Qwen3-8B-FP8');
    const variant = screen.getByRole('group', { name: 'Variant 1' });
    expect(valueOf(within(variant).getByLabelText('Id'))).toBe('fp8');
    expect(valueOf(within(variant).getByLabelText('Precision'))).toBe('fp8');
    expect(isChecked(within(variant).getByRole('checkbox', { name: 'FP8 block-scaled' }))).toBe(true);
    expect(within(suggested).getAllByRole('button').map((b) => b.textContent)).toEqual(['Add Qwen/Qwen3-8B-AWQ']);
  });

  it('shows the GPUs of a real host from its inventory and which engine versions are installed', async () => {
    renderWizard();
    await modelStep();
    await screen.findByRole('checkbox', { name: 'h200-box' });
    tick('h200-box');
    tick('Demo lab');
    expect(isChecked(await screen.findByRole('checkbox', { name: 'GPU 0 · NVIDIA H200 · 143771 MiB · sm 9.0' }))).toBe(true);
    await next();
    await next();
    tick('Use vLLM');
    expect(textOf(screen.getByTestId('wizard-install-vllm'))).toContain('Installed on Demo lab · Will be installed on h200-box');
    expect(screen.getByRole('option', { name: '0.11.0 (will be installed)' })).toBeTruthy();
    tick('Use SGLang');
    expect(textOf(screen.getByTestId('wizard-install-sglang'))).toContain('Will be installed on h200-box, Demo lab');
  });

  it('names the GPUs of a host whose box says it is the simulated one as simulated', async () => {
    const api = makeApi();
    api.handle('hosts:inventory', () => ({ ...H200_INVENTORY, simulated: true }));
    renderWizard(api);
    await modelStep();
    await screen.findByRole('checkbox', { name: 'h200-box' });
    tick('h200-box');
    expect(isChecked(await screen.findByRole('checkbox', { name: 'GPU 0 · NVIDIA H200 · 143771 MiB · sm 9.0 (simulated)' }))).toBe(true);
  });

  it('prefills the reference stages for SGLang and the latency goal', async () => {
    renderWizard();
    type('Model', 'Qwen/Qwen3-8B');
    click('Add Qwen/Qwen3-8B-FP8');
    await next();
    await hardwareStep();
    await next();
    tick('Use SGLang');
    await next();
    expect(stageNames()).toEqual([
      'Stage 1: CUDA graph max batch size',
      'Stage 2: Quantization',
      'Stage 3: Attention backend',
      'Stage 4: Speculative decoding (EAGLE3)',
      'Stage 5: torch.compile',
    ]);
    const value = (region: string, label: string) =>
      labelled(stage(region), label).map((input) => (input as HTMLInputElement).value);
    expect(value('Stage 1: CUDA graph max batch size', 'Candidate label')).toEqual(['--cuda-graph-max-bs 8']);
    expect(value('Stage 2: Quantization', 'Candidate label')).toEqual(['FP8 checkpoint (Qwen/Qwen3-8B-FP8)']);
    expect(value('Stage 3: Attention backend', 'Candidate label')).toEqual(['--attention-backend triton', '--attention-backend flashinfer']);
    expect(value('Stage 4: Speculative decoding (EAGLE3)', 'Candidate label')).toContain(
      '--speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
    );
    expect(value('Stage 5: torch.compile', 'Candidate label')).toEqual(['--enable-torch-compile']);
    expect(value('Stage 1: CUDA graph max batch size', 'Settings (JSON)')).toEqual(['{"cudaGraphMaxBatchSize":8}']);
    expect(textOf(stage('Stage 1: CUDA graph max batch size'))).toContain('Only for SGLang');

    // Reordering, removing and adding are edits; "Reset to the defaults" brings the method's stages back.
    click('Move torch.compile up');
    expect(stageNames()[3]).toBe('Stage 4: torch.compile');
    click('Remove candidate flashinfer');
    click('Add candidate to Attention backend');
    expect(value('Stage 3: Attention backend', 'Candidate id')).toEqual(['triton', 'c2']);
    click('Reset to the defaults');
    expect(value('Stage 3: Attention backend', 'Candidate id')).toEqual(['triton', 'flashinfer']);
    expect(stageNames()[4]).toBe('Stage 5: torch.compile');
  });

  it('builds a definition equal to the latency example when the same options are picked', async () => {
    // The wizard has no fields for translations: what a user enters is the study as written.
    const { translations: _translations, ...example } = StudyDefinitionSchema.parse((JSON.parse(latencyExampleText) as { study: unknown }).study);
    const { api, onCreated } = renderWizard();
    type('Model', 'Qwen/Qwen3-8B');
    fireEvent.change(screen.getByLabelText('Weight precision'), { target: { value: 'bf16' } });
    click('Add Qwen/Qwen3-8B-FP8');
    await next();
    await hardwareStep();
    type('Margin (%)', String(example.goal.marginPct));
    await next();
    tick('Use vLLM');
    tick('Use SGLang');
    fireEvent.change(screen.getByLabelText('SGLang version'), { target: { value: '0.5.3.post3' } });
    tick('Use TensorRT-LLM');
    await next();

    // The example tunes SGLang only, with a reduced EAGLE3 grid.
    tick('vLLM');
    tick('TensorRT-LLM');
    const keep = new Set(example.stages.find((s) => s.id === 'speculative')!.candidates.map((c) => c.id));
    const speculative = stage('Stage 4: Speculative decoding (EAGLE3)');
    for (const input of labelled(speculative, 'Candidate id')) {
      const id = (input as HTMLInputElement).value;
      if (!keep.has(id)) click(`Remove candidate ${id}`, speculative);
    }
    await next();

    for (const id of ['ShareGPT, 100 prompts, concurrency 1', 'ShareGPT, 100 prompts, concurrency 2', 'ShareGPT, 100 prompts, concurrency 8']) tick(id);
    await next();
    await next();

    expect(valueOf(screen.getByLabelText('Study name'))).toBe(example.name);
    fireEvent.change(field('Description'), { target: { value: example.description } });
    expect(valueOf(screen.getByLabelText('Project file'))).toBe('/data/studies/qwen3-8b-lowest-latency-on-one-h100.servelab');
    click('Save draft');
    await screen.findByRole('region', { name: 'Plan' });

    const created = api.calls.find((c) => c.name === 'studies:create')?.input as { path: string; study: StudyDefinition };
    expect(created.path).toBe('/data/studies/qwen3-8b-lowest-latency-on-one-h100.servelab');
    expect(created.study).toEqual(example);

    click('Create');
    await waitFor(() => expect(onCreated).toHaveBeenCalledWith('/data/studies/qwen3-8b-lowest-latency-on-one-h100.servelab'));
    // Nothing changed since the draft was saved: no second write.
    expect(api.calls.filter((c) => c.name === 'studies:create' || c.name === 'studies:save')).toHaveLength(1);
  });

  it('shows the plan with its estimate and the pre-flight rejections with their reasons', async () => {
    renderWizard();
    await modelStep();
    await hardwareStep();
    await next();
    tick('Use vLLM');
    tick('Use TensorRT-LLM');
    await next();
    await next();
    await next();
    await next();
    click('Save draft');
    const plan = await screen.findByRole('region', { name: 'Plan' });
    expect(textOf(within(plan).getByTestId('plan-trials'))).toContain('3');
    expect(textOf(within(plan).getByTestId('plan-launches'))).toContain('1');
    expect(textOf(within(plan).getByTestId('plan-gpu-time'))).toContain('1 h 05 min');
    expect(textOf(within(plan).getByTestId('plan-rejected'))).toContain('2');
    expect(textOf(within(plan).getByTestId('plan-wall-time'))).toContain('30 min');
    expect(textOf(within(plan).getByTestId('plan-peak-gpus'))).toContain('1');
    // The servers that will run, by layout; the refused ones start nothing.
    expect(within(plan).getByText('Servers: TP1 · 1 GPU')).toBeTruthy();
    // The GPUs are named by their host's label, not its id.
    expect(within(plan).getByText('GPUs: Demo lab GPU 0 · NVIDIA A100-SXM4-80GB (sm 8.0)')).toBeTruthy();
    const rejections = within(plan).getByRole('list', { name: 'Pre-flight rejections' });
    // Two repeats of one refused configuration are one reason.
    expect(within(rejections).getAllByRole('listitem')).toHaveLength(1);
    expect(textOf(rejections)).toContain('TensorRT-LLM 1.2.0rc1 · TensorRT-LLM 1.2.0rc1 defaults');
    expect(textOf(rejections)).toContain('FP8 block-scaled GEMMs need sm 8.9 or newer; the A100 is sm 8.0');
  });

  it('maps issues the core reports back to the step and field they belong to', async () => {
    const api = makeApi();
    api.handle('studies:create', () => {
      throw new ServelabError('BAD_INPUT', 'Invalid study', { issues: [{ path: 'study.workloads.primary.numPrompts', message: 'must be at most 500 on this box' }] });
    });
    renderWizard(api);
    await modelStep();
    await hardwareStep();
    await next();
    tick('Use vLLM');
    await next();
    await next();
    await next();
    await next();
    click('Save draft');
    expect(await screen.findByText('Primary workload prompts must be at most 500 on this box')).toBeTruthy();
    expect(textOf(screen.getByRole('alert'))).toContain('Could not save the study: Invalid study');
    fireEvent.click(screen.getByRole('button', { name: 'Go to step 6' }));
    expect(stepHeading()).toContain('Workloads');
    expect(descriptionOf(screen.getByLabelText('Prompts'))).toBe('Primary workload prompts must be at most 500 on this box');
  });
});
