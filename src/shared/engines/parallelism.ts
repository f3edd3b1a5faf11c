import type { ServerConfig } from './server-config';
import type { EngineId } from './types';

/** The settings of a server's parallel layout, in the order editors show them. */
export const PARALLEL_LAYOUT_KNOBS = [
  'tensorParallelSize',
  'pipelineParallelSize',
  'dataParallelSize',
  'expertParallelSize',
  'dpAttention',
  'decodeContextParallelSize',
  'moeAllToAllBackend',
] as const satisfies readonly (keyof ServerConfig)[];

/**
 * How many GPUs one server takes, from its parallel layout, as each engine lays its ranks out.
 *
 * - vLLM: tensor × pipeline × data parallel ranks, one GPU each (`ParallelConfig.world_size_across_dp`); expert
 *   parallelism and decode context parallelism reuse those GPUs.
 * - SGLang: tensor × pipeline GPUs per data-parallel rank; without DP attention every DP rank is a whole engine on
 *   its own GPUs (`data_parallel_controller.py` `launch_dp_schedulers`: `base_gpu_id += tp_size * pp_size`), with DP
 *   attention the DP ranks share the tensor-parallel group (`launch_dp_attention_schedulers`). Expert parallelism
 *   splits the tensor-parallel group (`moe_ep_rank = tp_rank // (tp_size // ep_size)`).
 * - TensorRT-LLM: tensor × pipeline (`--tp_size`, `--pp_size`); expert parallelism and attention DP reuse the
 *   tensor-parallel ranks.
 */
export function serverGpuCount(engine: EngineId, config: Pick<ServerConfig, 'tensorParallelSize' | 'pipelineParallelSize' | 'dataParallelSize' | 'dpAttention'>): number {
  const tp = config.tensorParallelSize ?? 1;
  const pp = config.pipelineParallelSize ?? 1;
  const dp = config.dataParallelSize ?? 1;
  switch (engine) {
    case 'vllm':
      return tp * pp * dp;
    case 'sglang':
      return config.dpAttention ? tp * pp : tp * pp * dp;
    case 'trtllm':
      return tp * pp;
  }
}

/** The layout in the words studies use: "TP4", "TP4×DP2", "TP2×PP2", "TP8 EP8", "TP8 DP-attn 8". */
export function parallelLayoutLabel(config: Pick<ServerConfig, 'tensorParallelSize' | 'pipelineParallelSize' | 'dataParallelSize' | 'expertParallelSize' | 'dpAttention' | 'decodeContextParallelSize'>): string {
  const parts = [`TP${config.tensorParallelSize ?? 1}`];
  if ((config.pipelineParallelSize ?? 1) > 1) parts.push(`PP${config.pipelineParallelSize}`);
  if ((config.dataParallelSize ?? 1) > 1) parts.push(config.dpAttention ? `DP-attn${config.dataParallelSize}` : `DP${config.dataParallelSize}`);
  let label = parts.join('×');
  if ((config.expertParallelSize ?? 1) > 1) label += ` EP${config.expertParallelSize}`;
  if ((config.decodeContextParallelSize ?? 1) > 1) label += ` DCP${config.decodeContextParallelSize}`;
  return label;
}
