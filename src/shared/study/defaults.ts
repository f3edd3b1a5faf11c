import { getAdapter } from '../engines/adapters';
import type { ServerConfig } from '../engines/server-config';
import type { EngineId } from '../engines/types';
import { applyPatch } from './planner';
import type { Candidate, ConfigPatch, GoalKind, ModelVariant, Stage } from './study';

/**
 * The stages the reference studies tuned, as defaults for one engine. Candidates are typed settings; each is kept
 * only when the engine can run it at the study's version of the engine, and labelled with the flags it adds there.
 */

/** EAGLE3 draft heads trained for a base model (the reference studies, Study A stage 5). */
const EAGLE3_DRAFTS: Readonly<Record<string, readonly string[]>> = {
  'qwen/qwen3-8b': ['Tengyunw/qwen3_8b_eagle3', 'AngelSlim/Qwen3-8B_eagle3'],
};

/** Attention backends to try besides each engine's default, in its own spelling. */
const ATTENTION_CANDIDATES: Readonly<Record<EngineId, readonly string[]>> = {
  sglang: ['triton', 'flashinfer'],
  vllm: ['FLASHINFER', 'TRITON_ATTN'],
  trtllm: ['FLASHINFER'],
};

// reference Study A stage 5's grid.
const SPEC_STEPS = [2, 4, 8];
const SPEC_TOPK = [1, 4, 8];
const SPEC_DRAFT_TOKENS = [4, 8, 16, 32];
const MAX_BATCHED_TOKENS = [16384, 32768];

const LABEL_MODEL = 'model';

function baseOf(): ServerConfig {
  return { model: LABEL_MODEL, extraArgs: [], env: {} };
}


/** The words the patch adds to the engine's command (`--cuda-graph-max-bs 8`), or `fallback` when they go into an options file. */
function flagLabel(engine: EngineId, patch: ConfigPatch, version: string, fallback: string): string {
  const adapter = getAdapter(engine);
  const base = adapter.buildArgv(baseOf(), version);
  const built = adapter.buildArgv(applyPatch(baseOf(), patch), version);
  if (built.extraFiles && built.extraFiles.length > 0) return fallback;
  const words = [...Object.entries(built.env).map(([k, v]) => `${k}=${v}`), ...built.argv.slice(base.argv.length)];
  const text = words.join(' ');
  return text.length > 0 && text.length <= 200 ? text : fallback;
}

/** A candidate the engine can run at `version` (its adapter expresses the patch and the engine's own checks pass), else null. */
function candidate(engine: EngineId, version: string, id: string, patch: ConfigPatch, description: string): Candidate | null {
  if (getAdapter(engine).buildArgv(applyPatch(baseOf(), patch), version).unsupported.length > 0) return null;
  return { id, label: flagLabel(engine, patch, version, description), config: patch };
}

function stage(id: string, label: string, engines: EngineId[] | undefined, candidates: (Candidate | null)[]): Stage | null {
  const kept = candidates.filter((c): c is Candidate => c !== null);
  if (kept.length === 0) return null;
  return { id, label, ...(engines ? { engines } : {}), candidates: kept };
}

function quantizationStage(engine: EngineId, version: string, variants: readonly ModelVariant[]): Stage | null {
  if (variants.length > 0) {
    // A checkpoint works on every engine that can load it, so the stage is not tied to one engine's flags.
    return stage(
      'quantization',
      'Quantization',
      undefined,
      variants.map((v) => ({ id: v.id, label: v.label ?? `${v.model} checkpoint`, config: {}, variant: v.id })),
    );
  }
  // No quantized checkpoint: the engine's own FP8 quantization at load time, where it has one.
  return stage('quantization', 'Quantization', [engine], [candidate(engine, version, 'fp8', { quantization: 'fp8' }, 'FP8 quantization at load time')]);
}

function draftSlug(draft: string, taken: Set<string>): string {
  const org = (draft.split('/')[0] ?? draft).toLowerCase().replace(/[^a-z0-9._-]/g, '-');
  let slug = org;
  for (let n = 2; taken.has(slug); n++) slug = `${org}${n}`;
  taken.add(slug);
  return slug;
}

function speculativeStage(engine: EngineId, version: string, modelId: string): Stage | null {
  const drafts = EAGLE3_DRAFTS[modelId.toLowerCase().replace(/-(fp8|awq)$/, '')] ?? [];
  const taken = new Set<string>();
  const candidates: (Candidate | null)[] = [];
  for (const draft of drafts) {
    const slug = draftSlug(draft, taken);
    candidates.push(candidate(engine, version, `${slug}-defaults`, { speculative: { algorithm: 'eagle3', draftModel: draft } }, `EAGLE3 with ${draft}, engine defaults`));
    const treeShaped = getAdapter(engine).buildArgv(applyPatch(baseOf(), { speculative: { algorithm: 'eagle3', draftModel: draft, numSteps: 2, eagleTopK: 4, numDraftTokens: 8 } }), version).unsupported.length === 0;
    for (const steps of SPEC_STEPS) {
      if (!treeShaped) {
        // Engines that draft one chain take only the number of steps.
        candidates.push(candidate(engine, version, `${slug}-s${steps}`, { speculative: { algorithm: 'eagle3', draftModel: draft, numSteps: steps } }, `EAGLE3 with ${draft}, ${steps} draft steps`));
        continue;
      }
      for (const topk of SPEC_TOPK) {
        // With top-k 1 the tree is a chain of steps + 1 tokens; SGLang sets that count itself whatever is asked.
        const tokenCounts = topk === 1 ? [steps + 1] : SPEC_DRAFT_TOKENS;
        for (const tokens of tokenCounts) {
          candidates.push(
            candidate(
              engine,
              version,
              `${slug}-s${steps}-k${topk}-t${tokens}`,
              { speculative: { algorithm: 'eagle3', draftModel: draft, numSteps: steps, eagleTopK: topk, numDraftTokens: tokens } },
              `EAGLE3 with ${draft}, ${steps} steps, top-k ${topk}, ${tokens} draft tokens`,
            ),
          );
        }
      }
    }
  }
  return stage('speculative', 'Speculative decoding (EAGLE3)', [engine], candidates);
}

/** The reference studies' stage defaults per engine (Study A order for latency, Study B for throughput); only settings the adapter supports. */
export function defaultStages(goal: GoalKind, engine: EngineId, model: { id: string; variants: ModelVariant[] }, version = getAdapter(engine).defaultVersion): Stage[] {
  const stages: (Stage | null)[] =
    goal === 'latency'
      ? [
          stage('cuda-graph', 'CUDA graph max batch size', [engine], [candidate(engine, version, 'bs8', { cudaGraphMaxBatchSize: 8 }, 'CUDA graphs up to batch size 8')]),
          quantizationStage(engine, version, model.variants),
          stage(
            'attention-backend',
            'Attention backend',
            [engine],
            ATTENTION_CANDIDATES[engine].map((b) => candidate(engine, version, b.toLowerCase().replace(/_/g, '-'), { attentionBackend: b }, `attention backend ${b}`)),
          ),
          speculativeStage(engine, version, model.id),
          // vLLM already compiles with torch.compile by default, so there is nothing to switch on.
          engine === 'vllm' ? null : stage('torch-compile', 'torch.compile', [engine], [candidate(engine, version, 'on', { torchCompile: true }, 'torch.compile')]),
        ]
      : [
          quantizationStage(engine, version, model.variants),
          stage(
            'max-batched-tokens',
            'Max batched tokens',
            [engine],
            MAX_BATCHED_TOKENS.map((n) => candidate(engine, version, `t${n}`, { maxBatchedTokens: n }, `max batched tokens ${n}`)),
          ),
        ];
  return stages.filter((s): s is Stage => s !== null);
}
