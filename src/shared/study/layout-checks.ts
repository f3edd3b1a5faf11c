import type { ServerConfig } from '../engines/server-config';
import type { EngineId } from '../engines/types';
import type { KnownModel } from './model-facts';
import type { Refusal } from './trial-problem';
import type { PlanContext } from './plan-context';
import { connectedSets } from '../model/gpu-topology';

/**
 * Parallel layouts an engine refuses at start-up, by the engine's own condition, found before any GPU time is spent.
 * Each rule names where the engine checks it, at the release read (vLLM v0.11.0 = CentML/vllm@b8b302cde434, SGLang
 * v0.5.5.post1 = bytedance-iaas/sglang@303cc957e623, TensorRT-LLM tensorrt_llm/mapping.py as stored at
 * NVIDIA/TensorRT-LLM@05ebebb2c1d3). A layout the engine runs, however slowly, is not refused.
 */

type Layout = Pick<ServerConfig, 'tensorParallelSize' | 'pipelineParallelSize' | 'dataParallelSize' | 'expertParallelSize' | 'dpAttention' | 'decodeContextParallelSize'>;

/** The tensor-parallel size attention is split over: SGLang's DP attention splits TP into DP groups (dp_attention.py attn_tp_size). */
function attentionTp(engine: EngineId, config: Layout): number {
  const tp = config.tensorParallelSize ?? 1;
  const dp = config.dataParallelSize ?? 1;
  if (engine === 'sglang' && config.dpAttention && dp > 1) return tp / dp;
  return tp;
}

/** The first start-up refusal of this layout on this engine (and model, when its shape is known), or null. */
export function layoutRefusal(engine: EngineId, version: string, config: Layout & Pick<ServerConfig, 'model'>, model: KnownModel | undefined): Refusal | null {
  const tp = config.tensorParallelSize ?? 1;
  const pp = config.pipelineParallelSize ?? 1;
  const dp = config.dataParallelSize ?? 1;
  const ep = config.expertParallelSize ?? 1;
  const dcp = config.decodeContextParallelSize ?? 1;
  const at = { engine, version };

  // vllm/engine/arg_utils.py create_engine_config: assert tp_size % decode_context_parallel_size == 0.
  if (engine === 'vllm' && tp % dcp !== 0) return { code: 'dcp-indivisible', ...at, tp, dcp };
  // sglang server_args.py _handle_data_parallelism: with enable_dp_attention, assert self.tp_size % self.dp_size == 0.
  if (engine === 'sglang' && config.dpAttention && dp > 1 && tp % dp !== 0) return { code: 'dp-attention-indivisible', ...at, tp, dp };
  // The expert-parallel groups are cut out of the TP group: SGLang distributed/parallel_state.py
  // (moe_tp_size = tensor_model_parallel_size // moe_ep_size), TensorRT-LLM mapping.py ("tp_size must equal to
  // moe_tp_size * moe_ep_size * moe_cluster_size"). vLLM's EP is always TP × DP (the knob table's rule).
  if (engine !== 'vllm' && ep > 1 && tp % ep !== 0) return { code: 'ep-indivisible', ...at, tp, ep };
  if (!model) return null;

  const heads = attentionTp(engine, config);
  // vllm/config/model.py verify_with_parallel_config: "Total number of attention heads (X) must be divisible by tensor
  // parallel size (Y)."; sglang models/qwen3.py (and the other model files): assert total_num_heads % attn_tp_size == 0.
  if ((engine === 'vllm' || engine === 'sglang') && model.heads % heads !== 0) return { code: 'heads-indivisible', ...at, model: config.model, heads: model.heads, tp: heads };
  // sglang utils/common.py make_layers: assert num_hidden_layers >= pp_size; TensorRT-LLM mapping.py pp_layers:
  // "pp size cannot be larger than num_hidden_layers". vLLM spreads what there is (distributed/utils.py get_pp_indices).
  if ((engine === 'sglang' || engine === 'trtllm') && pp > model.layers) return { code: 'pp-over-layers', ...at, model: config.model, layers: model.layers, pp };
  // vllm/config/model.py _verify_with_expert_parallelism: "Number of experts in the model must be greater than 0 when
  // expert parallelism is enabled."
  if (engine === 'vllm' && ep > 1 && !model.moe) return { code: 'ep-dense-model', ...at, model: config.model };
  // sglang layers/moe/fused_moe_triton/layer.py: assert num_experts % self.moe_ep_size == 0 (models/gpt_oss.py asserts
  // the same of num_local_experts). vLLM gives the remainder to the last rank (fused_moe/layer.py determine_expert_map).
  if (engine === 'sglang' && ep > 1 && model.moe && model.moe.experts % ep !== 0) return { code: 'experts-indivisible', ...at, model: config.model, experts: model.moe.experts, ep };
  return null;
}

/** A layout the engines run, only slower than it could: tensor parallelism with no host offering that many GPUs on NVLink. */
export interface NvlinkWarning {
  code: 'tp-without-nvlink';
  tp: number;
  /** The hosts whose link matrix is known, none of which has `tp` of the study's GPUs all on NVLink. */
  hosts: string[];
}

/**
 * Warns (never refuses: NCCL runs the tensor-parallel all-reduces over PCIe too) when no host whose topology is known
 * has `tp` of the study's GPUs pairwise on NVLink. Says nothing when no topology is known, or TP is 1.
 */
export function nvlinkWarning(config: Pick<ServerConfig, 'tensorParallelSize'>, ctx: PlanContext): NvlinkWarning | null {
  const tp = config.tensorParallelSize ?? 1;
  const known = Object.entries(ctx.topology ?? {});
  if (tp <= 1 || known.length === 0) return null;
  const usable = (hostId: string) => ctx.gpus.filter((g) => g.hostId === hostId).map((g) => g.index);
  if (known.some(([hostId, topology]) => connectedSets(topology, tp, usable(hostId)).length > 0)) return null;
  return { code: 'tp-without-nvlink', tp, hosts: known.map(([hostId]) => hostId) };
}
