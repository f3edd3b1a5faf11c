// "Start from my command" on the wizard's first step: a pasted serve command fills the study's engine, version, model
// and baseline. The speculative settings are the latency guide's recommended command (tests/fixtures/guides), here
// run in SGLang's image as its docs do.
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROJECT_SCHEMA_VERSION, ProjectFileSchema, type StudyDefinition } from '../../../../shared/study/study';
import { setLocale } from '../../i18n';
import { createFakeApi, type FakeApi } from '../../testing/fake-api';
import { makeHost } from '../../testing/fixtures';
import { renderWithStore } from '../../testing/render';
import { StudyWizard } from './StudyWizard';

afterEach(() => {
  cleanup();
  setLocale('en');
});

const DEMO = makeHost({ id: 'demo-lab', kind: 'demo', label: 'Demo lab' });

function makeApi(): FakeApi {
  return createFakeApi({
    'hosts:list': () => [DEMO],
    'engines:list': () => [],
    'app:info': () => ({ name: 'Servelab', version: '0.1.0', dataDir: '/data', problems: [] }),
    'studies:create': ({ study }) => ProjectFileSchema.parse({ schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { status: 'draft' } }),
    'studies:plan': () => ({ trials: [], estimate: { trials: 0, rejected: 0, launches: 0, expectedRepeats: 0, gpuSeconds: 0, perTrialSeconds: {}, perServerSeconds: {} }, gpus: [] }),
  });
}

const COMMAND = `docker run --gpus all --shm-size 32g --ipc=host lmsysorg/sglang:v0.5.3.post3 \\
  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 \\
  --speculative-algorithm EAGLE3 \\
  --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 \\
  --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16 \\
  --enable-metrics --port 30000`;

const valueOf = (el: HTMLElement) => (el as HTMLInputElement).value;
const isChecked = (el: HTMLElement) => (el as HTMLInputElement).checked;
const button = (name: string) => screen.getByText(name, { selector: 'button' });

async function next() {
  fireEvent.click(button('Next'));
  await act(async () => {});
}

function paste(label: string, text: string, read: string) {
  fireEvent.change(screen.getByLabelText(label), { target: { value: text } });
  fireEvent.click(button(read));
}

describe('Start from my command', { timeout: 60_000 }, () => {
  it('fills the model, and makes the command’s engine, version, mode and settings the first engine’s base: the baseline', async () => {
    const api = makeApi();
    renderWithStore(<StudyWizard onCreated={vi.fn()} onCancel={vi.fn()} />, api);
    paste('The serve command you run today', COMMAND, 'Read the command');

    expect(valueOf(screen.getByLabelText('Model'))).toBe('Qwen/Qwen3-8B-FP8');
    const read = screen.getByRole('status', { name: 'What was read from the command' });
    expect(read.textContent).toContain('SGLang 0.5.3.post3 serving Qwen/Qwen3-8B-FP8: this configuration is the study’s baseline');
    expect(read.textContent).toContain('The version is the image tag’s.');
    expect(within(read).getByText('--enable-metrics')).toBeTruthy();
    expect(read.textContent).toContain('Not copied: port 30000.');
    // The study runs SGLang's own image with Servelab's options: what the command gave docker is named, not kept.
    expect(read.textContent).toContain('Not copied from docker run: Servelab runs SGLang’s own image for the version, with its own GPU, port and cache options, instead of --gpus all --shm-size 32g --ipc=host lmsysorg/sglang:v0.5.3.post3');

    await next();
    await screen.findByRole('checkbox', { name: 'Demo lab' });
    fireEvent.click(screen.getByRole('checkbox', { name: 'Demo lab' }));
    await next();
    await next();

    // Engines: SGLang first, at the image's version, in docker, with the command's settings.
    const legends = [...document.querySelectorAll('fieldset.wizard-row-card > legend')].map((l) => l.textContent);
    expect(legends[0]).toBe('SGLang');
    expect(isChecked(screen.getByRole('checkbox', { name: 'Use SGLang' }))).toBe(true);
    expect(valueOf(screen.getByLabelText('SGLang version'))).toBe('0.5.3.post3');
    expect(valueOf(screen.getByLabelText('SGLang runs in'))).toBe('docker');
    expect(valueOf(screen.getByLabelText(/^SGLang extra arguments/))).toBe('--enable-metrics');
    expect(JSON.parse(valueOf(screen.getByLabelText(/^SGLang other base settings/)))).toEqual({
      speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 },
    });

    // Through to the review: the saved study's first engine carries the pasted configuration.
    for (let i = 0; i < 4 && !screen.queryByText('Save draft', { selector: 'button' }); i++) await next();
    fireEvent.click(button('Save draft'));
    await waitFor(() => expect(api.calls.some((c) => c.name === 'studies:create')).toBe(true));
    const study = (api.calls.find((c) => c.name === 'studies:create')?.input as { study: StudyDefinition }).study;
    expect(study.model.id).toBe('Qwen/Qwen3-8B-FP8');
    expect(study.engines[0]).toEqual({
      engine: 'sglang',
      version: '0.5.3.post3',
      mode: 'docker',
      config: {
        speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 },
        extraArgs: ['--enable-metrics'],
      },
    });
  });

  it('shows the flags the version refuses and those kept verbatim, in Turkish too', async () => {
    const { store } = renderWithStore(<StudyWizard onCreated={vi.fn()} onCancel={vi.fn()} />, makeApi());
    act(() => store.getState().setLocale('tr'));
    // vLLM's --attention-backend exists from 0.13.0 on; the image pins 0.11.0.
    // The step was drawn in English; typing redraws the section in the language now chosen.
    const text = 'docker run --gpus all vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-32B --attention-backend FLASHINFER --enable-prefix-caching';
    fireEvent.change(screen.getByLabelText('The serve command you run today'), { target: { value: text } });
    expect(valueOf(screen.getByLabelText('Bugün çalıştırdığınız sunucu komutu'))).toBe(text);
    fireEvent.click(button('Komutu oku'));
    const read = screen.getByRole('status', { name: 'Komuttan okunanlar' });
    expect(read.textContent).toContain('vLLM 0.11.0, Qwen/Qwen3-32B modelini sunuyor');
    expect(read.textContent).toContain('Bu sürümün reddettikleri');
    expect(within(read).getByText('--attention-backend is not a flag of vLLM 0.11.0: it was added in 0.13.0')).toBeTruthy();
    expect(read.textContent).toContain('Servelab’in modellemediği, yazıldığı gibi korunan bayraklar:');
    expect(within(read).getByText('--attention-backend FLASHINFER --enable-prefix-caching')).toBeTruthy();
    expect(valueOf(screen.getByLabelText('Model'))).toBe('Qwen/Qwen3-32B');
  });

  it('keeps the pasted command and what was read from it across steps, says when it was edited since, and reads it on Ctrl+Enter', async () => {
    renderWithStore(<StudyWizard onCreated={vi.fn()} onCancel={vi.fn()} />, makeApi());
    const box = () => screen.getByLabelText('The serve command you run today');
    fireEvent.change(box(), { target: { value: COMMAND } });
    // Enter alone is a new line of the command; Ctrl+Enter reads it.
    fireEvent.keyDown(box(), { key: 'Enter' });
    expect(screen.queryByRole('status', { name: 'What was read from the command' })).toBeNull();
    fireEvent.keyDown(box(), { key: 'Enter', ctrlKey: true });
    expect(valueOf(screen.getByLabelText('Model'))).toBe('Qwen/Qwen3-8B-FP8');

    await next();
    expect(screen.queryByLabelText('The serve command you run today')).toBeNull();
    fireEvent.click(button('Back'));
    await act(async () => {});
    expect(valueOf(box())).toBe(COMMAND);
    expect(screen.getByRole('status', { name: 'What was read from the command' }).textContent).toContain('SGLang 0.5.3.post3 serving Qwen/Qwen3-8B-FP8');
    expect(screen.queryByText('The command has changed since it was read: read it again to use the change.')).toBeNull();

    fireEvent.change(box(), { target: { value: `${COMMAND} --max-running-requests 8` } });
    expect(screen.getByText('The command has changed since it was read: read it again to use the change.')).toBeTruthy();
    fireEvent.click(button('Read the command'));
    expect(screen.queryByText('The command has changed since it was read: read it again to use the change.')).toBeNull();
  });

  it('names what a pasted command loses in Turkish too: the docker options, an edit not yet read', () => {
    const { store } = renderWithStore(<StudyWizard onCreated={vi.fn()} onCancel={vi.fn()} />, makeApi());
    act(() => store.getState().setLocale('tr'));
    fireEvent.change(screen.getByLabelText('The serve command you run today'), { target: { value: COMMAND } });
    fireEvent.click(button('Komutu oku'));
    const read = screen.getByRole('status', { name: 'Komuttan okunanlar' });
    expect(read.textContent).toContain('docker run’dan kopyalanmadı: Servelab, SGLang için sürümün kendi imajını kendi GPU, port ve önbellek seçenekleriyle çalıştırır; şunun yerine: --gpus all --shm-size 32g --ipc=host lmsysorg/sglang:v0.5.3.post3');
    fireEvent.change(screen.getByLabelText('Bugün çalıştırdığınız sunucu komutu'), { target: { value: `${COMMAND} --enable-metrics` } });
    expect(screen.getByText('Komut okunduktan sonra değişti: değişikliği kullanmak için yeniden okuyun.')).toBeTruthy();
  });

  it('names the credentials it left out, never their values, and where to keep them instead, in both languages', () => {
    const { store } = renderWithStore(<StudyWizard onCreated={vi.fn()} onCancel={vi.fn()} />, makeApi());
    // Hand-written: a value that is not token-shaped, so only the names keep it out.
    const secret = 'pasted-secret-value-42';
    paste('The serve command you run today', `HF_TOKEN=${secret} vllm serve Qwen/Qwen3-8B --api-key ${secret}`, 'Read the command');
    const read = screen.getByRole('status', { name: 'What was read from the command' });
    expect(read.textContent).toContain('Left out because they carry a credential, and their values are kept nowhere: HF_TOKEN, --api-key.');
    expect(read.textContent).not.toContain(secret);
    // Only the pasted text itself holds it; no field of the draft does.
    const box = screen.getByLabelText('The serve command you run today');
    const fields = [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea, select')].filter((el) => el !== box);
    expect(fields.length).toBeGreaterThan(0);
    expect(fields.filter((el) => el.value.includes(secret))).toEqual([]);
    act(() => store.getState().setLocale('tr'));
    // As above: typing redraws the section in the language now chosen.
    fireEvent.change(box, { target: { value: `HF_TOKEN=${secret} vllm serve Qwen/Qwen3-8B --api-key ${secret} --port 8000` } });
    fireEvent.click(button('Komutu oku'));
    expect(screen.getByRole('status', { name: 'Komuttan okunanlar' }).textContent).toContain('Kimlik bilgisi taşıdıkları için alınmadı, değerleri hiçbir yerde saklanmıyor: HF_TOKEN, --api-key.');
  });

  it('says why a text is not a serve command and leaves the draft alone', () => {
    renderWithStore(<StudyWizard onCreated={vi.fn()} onCancel={vi.fn()} />, makeApi());
    paste('The serve command you run today', 'nvidia-smi', 'Read the command');
    expect(screen.getByRole('alert').textContent).toBe('The command could not be read: no vllm serve, python3 -m sglang.launch_server or trtllm-serve command found');
    expect(valueOf(screen.getByLabelText('Model'))).toBe('');
  });
});
