import { describe, expect, it } from 'vitest';
import { ServelabError } from '../contract/errors';
import { getAdapter } from '../engines/adapters';
import { rerunDefinition } from './rerun';
import { PROJECT_SCHEMA_VERSION, StudyDefinitionSchema, type ProjectFile, type StudyDefinitionInput } from './study';
import { refusalWords } from './report/problem-words';
import { reportText } from './report/text';

// Edge cases written by hand: a small study whose facts come from the engines' tables (vLLM 0.12.0 drops the XFORMERS
// attention backend, src/shared/engines/engine-validation.ts, vllm/attention/backends/registry.py@4fd9d6a85c00).
const definition: StudyDefinitionInput = {
  name: 'Backends',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: 'gpu-a', gpus: ['0', '1'] }],
  goal: { kind: 'latency', marginPct: 2 },
  engines: [
    { engine: 'vllm', version: '0.11.0' },
    { engine: 'sglang', version: '0.5.3.post3' },
  ],
  stages: [
    {
      id: 'attention',
      label: 'Attention backend',
      engines: ['vllm'],
      candidates: [
        { id: 'xformers', label: 'XFORMERS', config: { attentionBackend: 'XFORMERS' } },
        { id: 'flashinfer', label: 'FLASHINFER', config: { attentionBackend: 'FLASHINFER' } },
      ],
    },
  ],
  workloads: { primary: { id: 'w', dataset: { kind: 'random', inputLen: 256, outputLen: 64 }, numPrompts: 10, maxConcurrency: 1, seed: 1 } },
};

function project(input: StudyDefinitionInput = definition): ProjectFile {
  return { schemaVersion: PROJECT_SCHEMA_VERSION, study: StudyDefinitionSchema.parse(input), state: { status: 'done', trials: [], decisions: [], finishedAt: '2026-01-02T03:04:05.000Z' } };
}

function refusal(run: () => unknown): ServelabError {
  try {
    run();
  } catch (error) {
    if (error instanceof ServelabError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('rerunDefinition', () => {
  it('moves the named engines to their new versions and keeps everything else, pointing back at the original', () => {
    const original = project();
    const { definition: next, untabled } = rerunDefinition({ path: '/p/backends.servelab', file: original }, { engineVersions: { sglang: '0.5.5.post1' } });
    expect(next.engines.map((e) => e.version)).toEqual(['0.11.0', '0.5.5.post1']);
    expect(next.stages).toEqual(original.study.stages);
    expect(next.workloads).toEqual(original.study.workloads);
    expect(next.goal).toEqual(original.study.goal);
    expect(next.hosts).toEqual(original.study.hosts);
    expect(next.name).toBe('Backends (re-run)');
    expect(next.rerunOf).toEqual({
      path: '/p/backends.servelab',
      name: 'Backends',
      engines: [
        { engine: 'vllm', version: '0.11.0', mode: 'env' },
        { engine: 'sglang', version: '0.5.3.post3', mode: 'env' },
      ],
      hostIds: ['gpu-a'],
      finishedAt: '2026-01-02T03:04:05.000Z',
    });
    expect(untabled).toEqual([]);
    expect(StudyDefinitionSchema.parse(next)).toEqual(next);
  });

  it('keeps the study’s translations but not of its name, which the re-run changes', () => {
    const translations = { tr: { name: 'Arka uçlar', description: 'Dikkat arka uçları', stages: { attention: 'Dikkat arka ucu' } } };
    const { definition: next } = rerunDefinition({ path: '/p/backends.servelab', file: project({ ...definition, translations }) }, { engineVersions: { sglang: '0.5.5.post1' } });
    expect(next.translations).toEqual({ tr: { description: 'Dikkat arka uçları', stages: { attention: 'Dikkat arka ucu' } } });
    expect(next.name).toBe('Backends (re-run)');
  });

  it('lists the candidates the new version cannot launch instead of dropping them', () => {
    const { definition: next, lost } = rerunDefinition({ path: '/p/backends.servelab', file: project() }, { engineVersions: { vllm: '0.12.0' } });
    expect(next.stages[0]?.candidates.map((c) => c.id)).toEqual(['xformers', 'flashinfer']);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ engine: 'vllm', version: '0.12.0', stageId: 'attention', candidateId: 'xformers', label: 'XFORMERS' });
    expect(lost[0]?.reason).toContain('XFORMERS');
    // Its facts too, so the dialog words it in the app's language.
    expect(lost[0]?.refusal).toMatchObject({ code: 'knobs-unsupported', engine: 'vllm', version: '0.12.0' });
    expect(refusalWords(lost[0]!.refusal!, reportText('en'))).toBe(lost[0]?.reason);
    expect(refusalWords(lost[0]!.refusal!, reportText('tr'))).toMatch(/^vLLM 0\.12\.0 şu ayarları uygulayamaz: attentionBackend/);
  });

  it('runs on another host when asked, and keeps the GPU choice only for the same host', () => {
    const file = project();
    expect(rerunDefinition({ path: '/p/b.servelab', file }, { engineVersions: {}, hostId: 'gpu-b' }).definition.hosts).toEqual([{ hostId: 'gpu-b' }]);
    expect(rerunDefinition({ path: '/p/b.servelab', file }, { engineVersions: {}, hostId: 'gpu-a' }).definition.hosts).toEqual([{ hostId: 'gpu-a', gpus: ['0', '1'] }]);
  });

  it('names a version Servelab has no flag table of, with the table its flags are checked against', () => {
    const { untabled } = rerunDefinition({ path: '/p/b.servelab', file: project() }, { engineVersions: { vllm: '0.99.0' } });
    expect(getAdapter('vllm').knownVersions).not.toContain('0.99.0');
    expect(untabled).toEqual([{ engine: 'vllm', version: '0.99.0', checkedAgainst: getAdapter('vllm').flagTable('0.99.0').version }]);
  });

  it('refuses an engine the study does not use, naming the option', () => {
    const error = refusal(() => rerunDefinition({ path: '/p/b.servelab', file: project() }, { engineVersions: { trtllm: '1.2.0rc1' } }));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.issues).toEqual([{ path: 'engineVersions.trtllm', message: expect.stringContaining('does not use') }]);
  });

  it('refuses a version that makes two engine choices the same', () => {
    const twoVllms = project({ ...definition, engines: [{ engine: 'vllm', version: '0.11.0' }, { engine: 'vllm', version: '0.11.1' }] });
    const error = refusal(() => rerunDefinition({ path: '/p/b.servelab', file: twoVllms }, { engineVersions: { vllm: '0.12.0' } }));
    expect(error.code).toBe('BAD_INPUT');
    expect(error.issues?.[0]?.path).toBe('engines.1');
  });
});
