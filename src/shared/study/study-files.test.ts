// A study's files (chat template, options file): kept in the definition, checked on load with the field named, pinned
// by the planner so a changed file is another server launch, and named by their box path in the commands shown.
import { describe, expect, it } from 'vitest';
import { configFileOf, type ConfigFile } from '../engines/config-files';
import { planEngineStage, planGrid, planStage, bestConfigOf } from './planner';
import type { PlanContext } from './plan-context';
import { StudyDefinitionSchema, type StudyDefinition, type StudyDefinitionInput } from './study';

const H100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };
const file = (name: string, content: string) => configFileOf(name, content) as ConfigFile;
const v1 = file('tool-chat.jinja', '{% for m in messages %}{{ m.content }}{% endfor %}\n');
const v2 = file('tool-chat.jinja', '{% for m in messages %}{{ m.role }}: {{ m.content }}{% endfor %}\n');

function definition(overrides: Partial<StudyDefinitionInput> = {}): StudyDefinitionInput {
  return {
    name: 'Tool calling',
    model: { id: 'Qwen/Qwen3-8B', variants: [] },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'latency' },
    engines: [{ engine: 'vllm', version: '0.11.0', config: { chatTemplate: { file: 'tool-chat.jinja' } } }],
    stages: [{ id: 'batch', label: 'Batch', candidates: [{ id: 'seqs64', label: '64 sequences', config: { maxRunningRequests: 64 } }] }],
    workloads: { primary: { id: 'c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 } },
    files: [v1],
    ...overrides,
  };
}
const parse = (input: StudyDefinitionInput): StudyDefinition => StudyDefinitionSchema.parse(input);
const issues = (input: StudyDefinitionInput) => (StudyDefinitionSchema.safeParse(input).error?.issues ?? []).map((i) => [i.path.join('.'), i.message]);

describe('a study\'s files', () => {
  it('reads back exactly as written, and a study without files has no files field', () => {
    expect(parse(definition()).files).toEqual([v1]);
    const { files: _files, ...without } = definition({ engines: [{ engine: 'vllm', version: '0.11.0' }] });
    expect(parse(without)).not.toHaveProperty('files');
  });

  it('names the field of a reference to a file the study does not have, or to another version of it', () => {
    expect(issues(definition({ files: [] }))).toEqual([['engines.0.config.chatTemplate.file', 'names no file of the study (it has none)']]);
    expect(issues(definition({ stages: [{ id: 'tmpl', label: 'Template', candidates: [{ id: 'other', label: 'Other', config: { optionsFile: { file: 'opts.yaml' } } }] }] }))).toEqual([
      ['stages.0.candidates.0.config.optionsFile.file', 'names no file of the study (tool-chat.jinja)'],
    ]);
    expect(issues(definition({ engines: [{ engine: 'vllm', version: '0.11.0', config: { chatTemplate: { file: 'tool-chat.jinja', sha256: v2.sha256 } } }] }))).toEqual([
      ['engines.0.config.chatTemplate.sha256', `is not the checksum of the study's tool-chat.jinja (${v1.sha256})`],
    ]);
    expect(issues(definition({ files: [v1, v2] }))).toEqual([['files.1.name', '"tool-chat.jinja" is used by two files']]);
    expect(issues(definition({ files: [{ ...v1, sha256: v2.sha256 }] }))[0]?.[0]).toBe('files.0.sha256');
  });

  it('is pinned by the planner: the checksum is part of the server key, and the command names the box path', () => {
    const [first] = planEngineStage(parse(definition()), H100);
    expect(first?.config.chatTemplate).toEqual({ file: 'tool-chat.jinja', sha256: v1.sha256 });
    expect(first?.command).toBe(`vllm serve Qwen/Qwen3-8B --chat-template ~/.servelab/files/${v1.sha256}/tool-chat.jinja`);
    const [changed] = planEngineStage(parse(definition({ files: [v2] })), H100);
    expect(changed?.serverKey).not.toBe(first?.serverKey);
    expect(changed?.command).toContain(`~/.servelab/files/${v2.sha256}/tool-chat.jinja`);
    const [same] = planEngineStage(parse(definition()), H100);
    expect(same?.serverKey).toBe(first?.serverKey);
  });

  it('pins a file a candidate names on top of the best so far, and in every grid combination', () => {
    const options = file('opts.yaml', 'max-num-seqs: 32\n');
    const study = parse(
      definition({
        files: [v1, options],
        stages: [{ id: 'opts', label: 'Options', candidates: [{ id: 'yaml', label: 'Options file', config: { optionsFile: { file: 'opts.yaml' } } }] }],
      }),
    );
    const [engineTrial] = planEngineStage(study, H100);
    const best = bestConfigOf(engineTrial!, engineTrial!.config, ['vllm-0.11.0'], 1);
    const [candidate] = planStage(study, 0, best, H100);
    expect(candidate?.config).toMatchObject({ chatTemplate: { sha256: v1.sha256 }, optionsFile: { file: 'opts.yaml', sha256: options.sha256 } });
    expect(candidate?.status).toBe('planned');
    const grid = planGrid({ ...study, strategy: 'grid' }, H100);
    expect(grid.map((t) => t.config.optionsFile?.sha256 ?? null)).toEqual([null, options.sha256]);
    expect(grid.every((t) => t.config.chatTemplate?.sha256 === v1.sha256)).toBe(true);
  });

  it('refuses before launch a file the engine cannot take, naming it', () => {
    const study = parse(definition({ engines: [{ engine: 'trtllm', version: '1.2.0rc1', config: { chatTemplate: { file: 'tool-chat.jinja' } } }] }));
    const [trial] = planEngineStage(study, H100);
    expect(trial?.status).toBe('rejected');
    expect(trial?.refusal).toMatchObject({ code: 'knobs-unsupported', knobs: [{ knob: 'chatTemplate' }] });
  });
});
