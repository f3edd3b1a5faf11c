// Every command a study plans from the default stages is one the engine's own parser and validation accept, at
// every release Servelab has the engine's flag tables for.
import { describe, expect, it } from 'vitest';
import { getAdapter, extraArgsSyntax } from '../engines/adapters';
import { trtllmYamlKeys } from '../engines/flag-tables';
import { parseServerConfig, type ServerConfig } from '../engines/server-config';
import { ENGINE_IDS, type EngineId } from '../engines/types';
import { defaultStages } from './defaults';
import type { PlanContext } from './plan-context';
import { applyPatch, bestConfigOf, planStage } from './planner';
import { GOALS, StudyDefinitionSchema, type ModelVariant, type StudyDefinitionInput } from './study';

const H100: PlanContext = { gpus: [{ hostId: 'lab', index: '0', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, computeCapability: '9.0' }] };
const MODEL = {
  id: 'Qwen/Qwen3-8B',
  variants: [{ id: 'fp8', model: 'Qwen/Qwen3-8B-FP8', precision: 'fp8', fp8BlockScaled: true }] as ModelVariant[],
};

/** The words after the program and the model: what the engine's parser reads as flags. */
function flagWords(engine: EngineId, argv: readonly string[]): string[] {
  const skip = engine === 'vllm' ? 3 : engine === 'sglang' ? 5 : 2; // vllm serve M · python3 -m sglang.launch_server --model-path M · trtllm-serve M
  return argv.slice(skip);
}

describe('commands built from the default stages', () => {
  it.each(ENGINE_IDS)('%s: every candidate of every default stage, at every tabled release, passes the parser and the engine’s checks', (engine) => {
    const adapter = getAdapter(engine);
    let checked = 0;
    for (const version of adapter.knownVersions) {
      for (const goal of GOALS) {
        for (const stage of defaultStages(goal, engine, MODEL, version)) {
          for (const candidate of stage.candidates) {
            const variant = MODEL.variants.find((v) => v.id === candidate.variant);
            const config: ServerConfig = applyPatch(parseServerConfig({ model: MODEL.id, port: 8000, host: '127.0.0.1' }), candidate.config ?? {}, variant?.model ?? MODEL.id);
            const built = adapter.buildArgv(config, version, { filesDir: '/box/run' });
            const where = `${engine} ${version} ${stage.id}/${candidate.id}`;
            expect(built.unsupported, where).toEqual([]);
            const check = extraArgsSyntax(engine, version, flagWords(engine, built.argv));
            expect(check.issues.filter((i) => i.severity === 'error'), where).toEqual([]);
            for (const file of built.extraFiles ?? []) {
              const accepted = new Set(trtllmYamlKeys(version).map((k) => k.name));
              // toYaml writes block style: a top-level key starts a line.
              for (const key of file.content.split('\n').flatMap((l) => /^([A-Za-z_]\w*):/.exec(l)?.[1] ?? [])) expect(accepted.has(key), `${where}: ${key}`).toBe(true);
            }
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(adapter.knownVersions.length);
  });
});

describe("vLLM's speculative configs, decided before any launch", () => {
  const study = (stage: NonNullable<StudyDefinitionInput['stages']>[number], version = '0.11.0') =>
    StudyDefinitionSchema.parse({
      name: 'spec',
      model: { id: 'Qwen/Qwen3-8B', variants: [] },
      hosts: [{ hostId: 'lab' }],
      goal: { kind: 'latency' },
      engines: [{ engine: 'vllm', version }],
      stages: [stage],
      workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 }, generalisation: [] },
    });
  const best = (version = '0.11.0') => bestConfigOf({ engine: 'vllm', version, mode: 'env' }, parseServerConfig({ model: 'Qwen/Qwen3-8B' }), [`vllm-${version}`], 1.7);

  it('refuses EAGLE3 without num_speculative_tokens, with vLLM’s reason', () => {
    const s = study({ id: 'spec', label: 'EAGLE3', candidates: [{ id: 'eagle3', label: 'EAGLE3', config: { speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3' } } }] });
    const [trial] = planStage(s, 0, best(), H100);
    expect(trial?.status).toBe('rejected');
    expect(trial?.rejectReason).toMatch(/num_speculative_tokens must be provided with speculative model/);
    // With the number of tokens it is a command vLLM starts.
    const ok = study({ id: 'spec', label: 'EAGLE3', candidates: [{ id: 'eagle3-4', label: 'EAGLE3', config: { speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4 } } }] });
    expect(planStage(ok, 0, best(), H100)[0]?.status).toBe('planned');
  });

  it('refuses a draft-model speculator before vLLM 0.15.0, where it raises NotImplementedError, and plans it from 0.15.0', () => {
    const stage = { id: 'spec', label: 'Draft model', candidates: [{ id: 'draft', label: 'Qwen3-0.6B draft', config: { speculative: { algorithm: 'draft-model' as const, draftModel: 'Qwen/Qwen3-0.6B', numSteps: 4 } } }] };
    const [old] = planStage(study(stage), 0, best(), H100);
    expect(old?.status).toBe('rejected');
    expect(old?.rejectReason).toMatch(/NotImplementedError: Speculative decoding with draft model is not supported yet.*from vLLM 0\.15\.0/);
    expect(planStage(study(stage, '0.15.0'), 0, best('0.15.0'), H100)[0]?.status).toBe('planned');
  });
});
