import { describe, expect, it } from 'vitest';
import { configFileOf, type ConfigFile } from '../../../shared/engines/config-files';
import { currentMessages } from '../i18n';
import { assemble } from './assemble';
import { draftFromDefinition, initialDraft, rowKey, type WizardDraft } from './draft';
import { attachFile, detachFile, refsOf } from './draft-files';

const isDemo = (hostId: string) => hostId === 'demo-lab';
const file = (name: string, content: string) => configFileOf(name, content) as ConfigFile;
const v1 = file('tool-chat.jinja', '{{ messages }}\n');
const v2 = file('tool-chat.jinja', '{{ messages | tojson }}\n');
const options = file('opts.yaml', 'max-num-seqs: 64\n');

/** A valid draft: vLLM on the demo lab, one stage of one candidate. */
function draft(): WizardDraft {
  const base = initialDraft();
  return {
    ...base,
    name: 'Files',
    modelId: 'Qwen/Qwen3-8B',
    hosts: [{ hostId: 'demo-lab', gpus: ['0'], allGpus: ['0'] }],
    engines: base.engines.map((e) => (e.engine === 'vllm' ? { ...e, enabled: true } : e)),
    stages: [{ key: 's1', id: 'tmpl', label: 'Template', engines: undefined, candidates: [{ key: 'c1', id: 'other', label: 'Other template', config: '{}', variant: '' }] }],
    stagesEdited: true,
  };
}
const engine = { kind: 'engine', engine: 'vllm' } as const;
const candidate = { kind: 'candidate', stageKey: 's1', candidateKey: 'c1' } as const;

describe('files in the wizard draft', () => {
  it('assembles the attached files into the definition, named by reference, and reads them back', () => {
    let d = attachFile(draft(), engine, 'chatTemplate', v1);
    d = attachFile(d, candidate, 'optionsFile', options);
    const made = assemble(d, isDemo, currentMessages());
    expect(made.issues).toEqual([]);
    expect(made.parsed?.engines[0]?.config).toEqual({ chatTemplate: { file: 'tool-chat.jinja' } });
    expect(made.parsed?.stages[0]?.candidates[0]?.config).toEqual({ optionsFile: { file: 'opts.yaml' } });
    expect(made.parsed?.files).toEqual([v1, options]);
    const back = draftFromDefinition(made.parsed!);
    expect(back.engines[0]).toMatchObject({ engine: 'vllm', settings: '', files: { chatTemplate: 'tool-chat.jinja' } });
    expect(back.stages[0]?.candidates[0]).toMatchObject({ config: '{}', files: { optionsFile: 'opts.yaml' } });
    expect(assemble(back, isDemo, currentMessages()).parsed).toEqual(made.parsed);
  });

  it('replaces a file nothing else names, and renames a new version another row still uses', () => {
    const one = attachFile(draft(), engine, 'chatTemplate', v1);
    const replaced = attachFile(one, engine, 'chatTemplate', v2);
    expect(replaced.files).toEqual([v2]);
    const shared = attachFile(one, candidate, 'chatTemplate', v1);
    expect(shared.files).toEqual([v1]);
    const diverged = attachFile(shared, candidate, 'chatTemplate', v2);
    expect(refsOf(diverged, engine)).toEqual({ chatTemplate: 'tool-chat.jinja' });
    expect(refsOf(diverged, candidate)).toEqual({ chatTemplate: 'tool-chat-2.jinja' });
    expect(diverged.files.map((f) => [f.name, f.sha256])).toEqual([
      ['tool-chat.jinja', v1.sha256],
      ['tool-chat-2.jinja', v2.sha256],
    ]);
    expect(assemble(diverged, isDemo, currentMessages()).issues).toEqual([]);
  });

  it('leaves a removed file out of the definition', () => {
    const d = detachFile(attachFile(draft(), engine, 'chatTemplate', v1), engine, 'chatTemplate');
    expect(refsOf(d, engine)).toEqual({});
    const made = assemble(d, isDemo, currentMessages());
    expect(made.parsed).not.toBeNull();
    expect(made.parsed).not.toHaveProperty('files');
    expect(made.parsed?.engines[0]?.config).toEqual({});
  });

  it('places a reference to a file the draft lacks on the engine\'s file field', () => {
    const d: WizardDraft = { ...draft(), engines: draft().engines.map((e) => (e.engine === 'vllm' ? { ...e, files: { chatTemplate: 'gone.jinja' } } : e)) };
    const made = assemble(d, isDemo, currentMessages());
    expect(made.issues).toEqual([{ step: 'engines', field: 'engines.vllm.files.chatTemplate', message: 'vLLM chat template names no file of the study (it has none)' }]);
    expect(rowKey()).toMatch(/^row/);
  });
});
