import type { ServerConfig } from '../engines/server-config';
import type { EngineId } from '../engines/types';
import type { ModelVariant } from './study';

/**
 * What the pre-flight knows of a model without downloading it: its size and shape, from each checkpoint's own
 * config.json on Hugging Face (huggingface.co/<repo>/blob/main/config.json), and how many bytes of weights each GPU of
 * a parallel layout holds.
 */

export type WeightPrecision = NonNullable<ModelVariant['precision']>;

/**
 * Bytes per parameter. MXFP4 (OCP Microscaling): 4-bit values with one 8-bit scale per block of 32, 4.25 bits; it
 * applies to the MoE experts only (vLLM's Mxfp4MoEMethod, gpt-oss's checkpoints), the rest stays BF16.
 */
export const BYTES_PER_PARAM: Readonly<Record<WeightPrecision, number>> = {
  bf16: 2,
  fp16: 2,
  fp8: 1,
  int8: 1,
  awq: 0.5,
  int4: 0.5,
  fp4: 0.5,
  mxfp4: 4.25 / 8,
};

/** A mixture-of-experts layer stack, in config.json's terms. */
export interface MoeShape {
  /** Routed experts per MoE layer (num_experts, num_local_experts or n_routed_experts). */
  experts: number;
  /** Experts each token is routed to (num_experts_per_tok). */
  perToken: number;
  /** Layers with routed experts (num_hidden_layers less DeepSeek's and GLM's first_k_dense_replace). */
  layers: number;
  hidden: number;
  /** One expert's intermediate size (moe_intermediate_size; gpt-oss: intermediate_size). */
  intermediate: number;
}

export interface KnownModel {
  /** Parameter count, every expert included (embeddings included). */
  params: number;
  /** The context length the engines derive from the checkpoint's config.json. */
  maxLen: number;
  /** num_attention_heads, num_key_value_heads, num_hidden_layers. */
  heads: number;
  kvHeads: number;
  layers: number;
  moe?: MoeShape;
  /** The precision its checkpoint ships in, when that is not BF16 (gpt-oss: MXFP4 experts). */
  nativePrecision?: WeightPrecision;
}

const qwen3 = (params: number, layers: number, heads: number, kvHeads: number): KnownModel => ({ params, maxLen: 40960, heads, kvHeads, layers });
const llama31 = (params: number, layers: number, heads: number): KnownModel => ({ params, maxLen: 131072, heads, kvHeads: 8, layers });

// Each entry from its repository's config.json (Qwen/…, meta-llama/…, openai/…, zai-org/…, deepseek-ai/…); parameter
// counts from the model cards (MoE: total, every expert). Qwen3's max_position_embeddings is 40960, Llama 3.1's 131072.
const KNOWN_MODELS: Readonly<Record<string, KnownModel>> = {
  'qwen3-0.6b': qwen3(0.6e9, 28, 16, 8),
  'qwen3-1.7b': qwen3(1.7e9, 28, 16, 8),
  'qwen3-4b': qwen3(4.02e9, 36, 32, 8),
  'qwen3-8b': qwen3(8.19e9, 36, 32, 8),
  'qwen3-14b': qwen3(14.77e9, 40, 40, 8),
  'qwen3-32b': qwen3(32.76e9, 64, 64, 8),
  'llama-3.1-8b': llama31(8.03e9, 32, 32),
  'llama-3.1-70b': llama31(70.55e9, 80, 64),
  'meta-llama-3.1-8b': llama31(8.03e9, 32, 32),
  'meta-llama-3.1-70b': llama31(70.55e9, 80, 64),
  // Qwen3MoeForCausalLM: num_experts 128, num_experts_per_tok 8, decoder_sparse_step 1 (every layer MoE).
  'qwen3-30b-a3b': { ...qwen3(30.5e9, 48, 32, 4), moe: { experts: 128, perToken: 8, layers: 48, hidden: 2048, intermediate: 768 } },
  'qwen3-235b-a22b': { ...qwen3(235e9, 94, 64, 4), moe: { experts: 128, perToken: 8, layers: 94, hidden: 4096, intermediate: 1536 } },
  // GptOssForCausalLM: num_local_experts 128 / 32, num_experts_per_tok 4, max_position_embeddings 131072, and
  // quantization_config quant_method "mxfp4" (the experts; attention, router and embeddings stay BF16).
  'gpt-oss-120b': { params: 116.8e9, maxLen: 131072, heads: 64, kvHeads: 8, layers: 36, moe: { experts: 128, perToken: 4, layers: 36, hidden: 2880, intermediate: 2880 }, nativePrecision: 'mxfp4' },
  'gpt-oss-20b': { params: 20.9e9, maxLen: 131072, heads: 64, kvHeads: 8, layers: 24, moe: { experts: 32, perToken: 4, layers: 24, hidden: 2880, intermediate: 2880 }, nativePrecision: 'mxfp4' },
  // Glm4MoeForCausalLM: n_routed_experts 128, num_experts_per_tok 8, first_k_dense_replace 1 (45 of 46 layers MoE).
  'glm-4.5-air': { params: 106e9, maxLen: 131072, heads: 96, kvHeads: 8, layers: 46, moe: { experts: 128, perToken: 8, layers: 45, hidden: 4096, intermediate: 1408 } },
  // DeepseekV3ForCausalLM: n_routed_experts 256, num_experts_per_tok 8, first_k_dense_replace 3, MLA (128 heads,
  // num_key_value_heads 128); checkpoint in FP8 with block scales. 671B without the MTP module.
  'deepseek-v3': { params: 671e9, maxLen: 163840, heads: 128, kvHeads: 128, layers: 61, moe: { experts: 256, perToken: 8, layers: 58, hidden: 7168, intermediate: 2048 }, nativePrecision: 'fp8' },
  'deepseek-r1': { params: 671e9, maxLen: 163840, heads: 128, kvHeads: 128, layers: 61, moe: { experts: 256, perToken: 8, layers: 58, hidden: 7168, intermediate: 2048 }, nativePrecision: 'fp8' },
};

const CHECKPOINT_SUFFIX = /-(fp8|awq|gptq|gptq-int4|gptq-int8|int4|int8|instruct|thinking|base|0324|0528|2507)$/;

/** The base model of a repo id or local path (`Qwen/Qwen3-8B-FP8` → Qwen3-8B's facts), or undefined if unknown. */
export function knownModel(modelRef: string): KnownModel | undefined {
  let name = (modelRef.replace(/\/+$/, '').split('/').pop() ?? '').toLowerCase();
  for (let previous = ''; previous !== name; ) {
    previous = name;
    name = name.replace(CHECKPOINT_SUFFIX, '');
  }
  return KNOWN_MODELS[name];
}

/** Parameters in the routed experts: gate, up and down projections of every expert of every MoE layer. */
export function expertParams(model: KnownModel): number {
  const m = model.moe;
  return m ? m.layers * m.experts * 3 * m.hidden * m.intermediate : 0;
}

/** The weights' bytes, split into the routed experts and everything else (attention, dense MLPs, embeddings). */
export function weightBytes(model: KnownModel, precision: WeightPrecision): { experts: number; rest: number } {
  const inExperts = expertParams(model);
  const rest = model.params - inExperts;
  // MXFP4 quantizes the experts alone.
  if (precision === 'mxfp4') return { experts: inExperts * BYTES_PER_PARAM.mxfp4, rest: rest * BYTES_PER_PARAM.bf16 };
  return { experts: inExperts * BYTES_PER_PARAM[precision], rest: rest * BYTES_PER_PARAM[precision] };
}

type Layout = Pick<ServerConfig, 'tensorParallelSize' | 'pipelineParallelSize' | 'dataParallelSize' | 'dpAttention'>;

/**
 * The weights one GPU of a server holds: pipeline stages split the layers, and within a stage
 * - vLLM: attention and dense layers split over TP (each DP rank has its copy); the experts over TP × DP, with or
 *   without expert parallelism (fused_moe/config.py FusedMoEParallelConfig.make: flatten_tp_across_dp).
 * - SGLang: every DP rank is a whole server, except with DP attention, where attention is split over TP / DP only
 *   (dp_attention.py attn_tp_size) and the experts over the TP group; embeddings are counted with attention (an upper bound).
 * - TensorRT-LLM: everything over TP; with attention DP the attention is whole on every rank (mapping.py attn_tp_size).
 */
export function weightsPerGpu(engine: EngineId, config: Layout, model: KnownModel, precision: WeightPrecision): number {
  const tp = config.tensorParallelSize ?? 1;
  const pp = config.pipelineParallelSize ?? 1;
  const dp = config.dataParallelSize ?? 1;
  const { experts, rest } = weightBytes(model, precision);
  switch (engine) {
    case 'vllm':
      return rest / (tp * pp) + experts / (tp * dp * pp);
    case 'sglang': {
      const attentionTp = config.dpAttention && dp > 1 ? Math.max(1, Math.floor(tp / dp)) : tp;
      return rest / (attentionTp * pp) + experts / (tp * pp);
    }
    case 'trtllm':
      return rest / ((config.dpAttention ? 1 : tp) * pp) + experts / (tp * pp);
  }
}
