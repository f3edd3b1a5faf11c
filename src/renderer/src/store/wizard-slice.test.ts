import { describe, expect, it, vi } from 'vitest';
import latencyExampleText from '../../../../examples/qwen3-8b-latency-h100.servelab?raw';
import { PROJECT_SCHEMA_VERSION, ProjectFileSchema, StudyDefinitionSchema } from '../../../shared/study/study';
import { draftFromDefinition } from '../study-draft/draft';
import { createFakeApi } from '../testing/fake-api';
import { setLocale } from '../i18n';
import { assembledOf, createAppStore, hasUnsavedChanges } from './index';

const STUDY = StudyDefinitionSchema.parse((JSON.parse(latencyExampleText) as { study: unknown }).study);

function setup() {
  const api = createFakeApi({
    'studies:create': ({ study }) => ProjectFileSchema.parse({ schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { status: 'draft' } }),
    'studies:save': ({ study }) => ProjectFileSchema.parse({ schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { status: 'draft' } }),
    'studies:plan': () => ({ trials: [], estimate: { trials: 0, rejected: 0, launches: 0, expectedRepeats: 0, gpuSeconds: 0, perTrialSeconds: {}, perServerSeconds: {} }, gpus: [] }),
  });
  const store = createAppStore(api, { storage: null, prefersDark: false });
  return { api, store, state: () => store.getState() };
}

describe('wizard session', () => {
  it('says the draft’s problems again in the language switched to', () => {
    const { state } = setup();
    state().startWizard();
    state().updateWizard('draft', (d) => ({ ...d, repeats: '' }));
    const repeats = () => assembledOf(state().wizard!).issues.find((i) => i.field === 'repeats')?.message;
    expect(repeats()).toBe('Repeats is required');
    try {
      setLocale('tr');
      expect(repeats()).toBe('Tekrar sayısı zorunludur');
    } finally {
      setLocale('en');
    }
    expect(repeats()).toBe('Repeats is required');
  });

  it('has unsaved changes when changed and never saved, or when the definition differs from the one last written', async () => {
    const { api, state } = setup();
    expect(hasUnsavedChanges(state())).toBe(false);
    state().startWizard();
    expect(hasUnsavedChanges(state())).toBe(false);
    state().updateWizard('draft', (d) => ({ ...d, modelId: 'Qwen/Qwen3-8B' }));
    expect(hasUnsavedChanges(state())).toBe(true);

    const complete = draftFromDefinition(STUDY);
    state().updateWizard('draft', complete);
    state().updateWizard('path', '/data/studies/a.servelab');
    expect(await state().saveWizard()).toBe(true);
    expect(api.calls.filter((c) => c.name === 'studies:create')).toHaveLength(1);
    expect(hasUnsavedChanges(state())).toBe(false);
    expect(state().wizard?.plan.status).toBe('ready');

    state().updateWizard('draft', (d) => ({ ...d, repeats: '2' }));
    expect(hasUnsavedChanges(state())).toBe(true);
    // Back to what the file holds: nothing unsaved, though the draft object is another one.
    state().updateWizard('draft', (d) => ({ ...d, repeats: complete.repeats }));
    expect(hasUnsavedChanges(state())).toBe(false);
    // A draft that no longer assembles differs from its file.
    state().updateWizard('draft', (d) => ({ ...d, name: '' }));
    expect(hasUnsavedChanges(state())).toBe(true);
    state().updateWizard('draft', (d) => ({ ...d, name: STUDY.name, repeats: '3' }));
    expect(await state().saveWizard()).toBe(true);
    // The second save writes over the session's own file.
    expect(api.calls.filter((c) => c.name === 'studies:save').map((c) => (c.input as { path: string }).path)).toEqual(['/data/studies/a.servelab']);
  });

  it('leaves at once when nothing would be lost, else waits for save, discard or cancel', async () => {
    const { state } = setup();
    const then = vi.fn();
    state().startWizard();
    state().leaveWizardThen(then);
    expect(then).toHaveBeenCalledOnce();
    expect(state().wizard).toBeNull();

    state().startWizard({ path: '/data/studies/a.servelab', study: STUDY });
    expect(hasUnsavedChanges(state())).toBe(false);
    state().updateWizard('draft', (d) => ({ ...d, description: 'changed' }));
    const after = vi.fn();
    state().leaveWizardThen(after);
    expect(state().wizardLeave).not.toBeNull();
    await state().resolveWizardLeave('cancel');
    expect(after).not.toHaveBeenCalled();
    expect(state().wizard?.draft.description).toBe('changed');

    state().leaveWizardThen(after);
    await state().resolveWizardLeave('save');
    expect(after).toHaveBeenCalledOnce();
    expect(state().wizard).toBeNull();

    state().startWizard();
    state().updateWizard('draft', (d) => ({ ...d, modelId: 'x' }));
    const discarded = vi.fn();
    state().leaveWizardThen(discarded);
    await state().resolveWizardLeave('discard');
    expect(discarded).toHaveBeenCalledOnce();
    expect(state().wizard).toBeNull();
  });
});
