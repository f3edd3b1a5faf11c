import { buildCommand, type CommandSpec } from './command-builder';
import { classifyLog } from './classify-log';
import { engineVersions, flagTableAt } from './flag-tables';
import type { EngineAdapter, InstallSpec, KnobRow } from './types';
import { healthReadiness, processGroupStop } from './lifecycle-plans';
import { READY_LINE } from './ready-lines';

/** The releases vLLM's flag tables cover (resources/engine-flags/vllm.json). */
export const VLLM_KNOWN_VERSIONS = engineVersions('vllm');

// From vllm/model_executor/layers/quantization/__init__.py @f4e4088c9.
const QUANTIZATION = [
  'awq', 'deepspeedfp', 'tpu_int8', 'fp8', 'ptpc_fp8', 'fbgemm_fp8', 'modelopt', 'modelopt_fp4', 'bitblas', 'gguf',
  'gptq_marlin_24', 'gptq_marlin', 'gptq_bitblas', 'awq_marlin', 'gptq', 'compressed-tensors', 'bitsandbytes', 'hqq',
  'experts_int8', 'ipex', 'quark', 'moe_wna16', 'torchao', 'auto-round', 'rtn', 'inc', 'mxfp4', 'petit_nvfp4',
];
/**
 * vLLM `vllm serve MODEL [flags]` (positional model, argparse with `-` in names).
 * Sources: vllm-project/vllm vllm/engine/arg_utils.py, vllm/config/{cache,scheduler,compilation,speculative}.py,
 * vllm/entrypoints/openai/cli_args.py (near v0.11.0, @f4e4088c9).
 */
export const VLLM_KNOB_TABLE: readonly KnobRow[] = [
  { knob: 'servedModelName', to: { kind: 'option', flag: '--served-model-name' } },
  { knob: 'host', to: { kind: 'option', flag: '--host' } },
  { knob: 'port', to: { kind: 'option', flag: '--port' } },
  { knob: 'tensorParallelSize', to: { kind: 'option', flag: '--tensor-parallel-size' } },
  // Parallelism, read at each release tag (CentML/vllm, which carries vllm-project/vllm's tags; v0.11.0 = b8b302cde434,
  // v0.11.1 = 439368496db4, v0.14.0 = b17039bccc17).
  { knob: 'pipelineParallelSize', to: { kind: 'option', flag: '--pipeline-parallel-size' } },
  { knob: 'dataParallelSize', to: { kind: 'option', flag: '--data-parallel-size' } },
  {
    // vllm/model_executor/layers/fused_moe/config.py FusedMoEParallelConfig.make (v0.11.0): with enable_expert_parallel
    // and TP × DP > 1 the MoE layers spread their experts over all TP × DP ranks (flatten_tp_across_dp, ep_size = tp_size).
    knob: 'expertParallelSize',
    to: {
      kind: 'sized-switch',
      on: ['--enable-expert-parallel'],
      of: ['tensorParallelSize', 'dataParallelSize'],
      reason:
        "vLLM's expert parallelism is a switch (--enable-expert-parallel) whose size is always TP × DP (fused_moe/config.py FusedMoEParallelConfig.make: ep_size = tp_size × dp_size); set expertParallelSize to TP × DP, or leave it out",
    },
  },
  // No setting to turn off, so "off" is what vLLM always does.
  { knob: 'dpAttention', when: { knob: 'dpAttention', in: [false] }, to: { kind: 'switch' } },
  {
    knob: 'dpAttention',
    to: {
      kind: 'unsupported',
      reason:
        'vLLM has no DP-attention switch: each data-parallel rank (--data-parallel-size) runs attention on its own GPUs, and --enable-expert-parallel shares the MoE layers across them (config/parallel.py); write TP8 with DP attention 8 as TP1 × DP8 with expertParallelSize 8',
    },
  },
  // arg_utils.py create_engine_config asserts tp_size % dcp_size == 0: DCP splits the TP group, it adds no GPUs.
  { knob: 'decodeContextParallelSize', to: { kind: 'option', flag: '--decode-context-parallel-size' } },
  {
    // Before 0.11.1 only the environment chooses it (vllm/envs.py@b8b302cde434 VLLM_ALL2ALL_BACKEND, env_with_choices).
    knob: 'moeAllToAllBackend',
    until: '0.11.1',
    to: { kind: 'env', name: 'VLLM_ALL2ALL_BACKEND' },
    choices: ['naive', 'pplx', 'deepep_high_throughput', 'deepep_low_latency', 'allgather_reducescatter', 'flashinfer_all2allv'],
  },
  // 0.11.1 adds ParallelConfig.all2all_backend (the variable is read only when the flag is unset, and deprecated).
  { knob: 'moeAllToAllBackend', since: '0.11.1', to: { kind: 'option', flag: '--all2all-backend' } },
  { knob: 'maxModelLen', to: { kind: 'option', flag: '--max-model-len' } },
  {
    knob: 'gpuMemoryFraction',
    to: { kind: 'option', flag: '--gpu-memory-utilization' },
    note: 'fraction of the whole GPU for weights, activations and KV cache (default 0.9); startup fails if less is free',
  },
  // The parser takes any string; vLLM checks the name against QUANTIZATION_METHODS when it builds the model config.
  { knob: 'quantization', until: '0.12.0', to: { kind: 'option', flag: '--quantization' }, choices: QUANTIZATION },
  { knob: 'quantization', to: { kind: 'option', flag: '--quantization' } },
  { knob: 'kvCacheDtype', to: { kind: 'option', flag: '--kv-cache-dtype' } },
  { knob: 'maxRunningRequests', to: { kind: 'option', flag: '--max-num-seqs' } },
  {
    knob: 'chunkedPrefill',
    when: { knob: 'chunkedPrefill', in: [false] },
    to: { kind: 'unsupported', reason: "vLLM's V1 engine forces chunked prefill on for generative models (arg_utils.py _set_default_args)" },
  },
  { knob: 'chunkedPrefill', to: { kind: 'switch', on: ['--enable-chunked-prefill'] } },
  { knob: 'maxBatchedTokens', to: { kind: 'option', flag: '--max-num-batched-tokens' } },
  {
    // One value N captures [1, 2, 4] + range(8, N + 1, 8) (SchedulerConfig.cuda_graph_sizes docstring).
    knob: 'cudaGraphMaxBatchSize',
    until: '0.12.0',
    to: { kind: 'option', flag: '--cuda-graph-sizes' },
  },
  {
    // Later arg_utils.py deprecates --cuda-graph-sizes (a plain capture list) in favour of this flag.
    knob: 'cudaGraphMaxBatchSize',
    since: '0.12.0',
    to: { kind: 'option', flag: '--max-cudagraph-capture-size' },
  },
  // Before 0.13.0 the backend is chosen only by the environment (vllm/attention/selector.py); 0.13.0 adds the flag, and
  // from 0.15.0 the variable is not read at all (VALIDATION.md §1.5). Which names work is engine-validation.ts's.
  { knob: 'attentionBackend', until: '0.13.0', to: { kind: 'env', name: 'VLLM_ATTENTION_BACKEND' } },
  { knob: 'attentionBackend', since: '0.13.0', to: { kind: 'option', flag: '--attention-backend' } },
  {
    // -O<level>: 0 = no compilation, 3 = piecewise torch.compile (the V1 default), vllm/config/compilation.py.
    knob: 'torchCompile',
    until: '0.12.0',
    to: { kind: 'switch', on: ['-O3'], off: ['-O0'] },
  },
  {
    // FlexibleArgumentParser turns -O<n> into --optimization-level <n> from 0.12.0 (vllm/utils/argparse_utils.py).
    knob: 'torchCompile',
    since: '0.12.0',
    to: { kind: 'unsupported', reason: 'from vLLM 0.12.0, -O0..-O3 are optimization levels with other meanings (vLLM #26847); not mapped yet' },
  },
  {
    knob: 'speculative.algorithm',
    to: { kind: 'json', flag: '--speculative-config', key: 'method' },
    values: { eagle: 'eagle', eagle3: 'eagle3', mtp: 'mtp', ngram: 'ngram', 'draft-model': 'draft_model' },
  },
  { knob: 'speculative.draftModel', to: { kind: 'json', flag: '--speculative-config', key: 'model' } },
  {
    knob: 'speculative.numSteps',
    to: { kind: 'json', flag: '--speculative-config', key: 'num_speculative_tokens' },
    note: 'tokens the drafter proposes per step, one chain',
  },
  {
    knob: 'speculative.eagleTopK',
    to: { kind: 'unsupported', reason: "vLLM's --speculative-config drafts one chain of num_speculative_tokens; it has no top-k key (vllm/config/speculative.py)" },
  },
  {
    knob: 'speculative.numDraftTokens',
    to: { kind: 'unsupported', reason: "vLLM's --speculative-config has no draft-token-count key; the count is num_speculative_tokens (set it with numSteps)" },
  },
  { knob: 'trustRemoteCode', to: { kind: 'switch', on: ['--trust-remote-code'] } },
];


const FILE_FLAGS: EngineAdapter['fileFlags'] = {
  // vllm/entrypoints/chat_utils.py load_chat_template opens the path (v0.11.0–v0.17.1).
  chatTemplate: { flag: '--chat-template' },
  // FlexibleArgumentParser._pull_args_from_config (vllm/utils/__init__.py@v0.11.0): the YAML's keys become flags
  // placed before the command line's own, so a typed flag wins over the file ("cli > config > defaults").
  optionsFile: { flag: '--config' },
};

const SPEC: CommandSpec = {
  engine: 'vllm',
  displayName: 'vLLM',
  command: ['vllm', 'serve'],
  valueStyle: 'separate',
  knobTable: VLLM_KNOB_TABLE,
  flagTable: (version) => flagTableAt('vllm', version),
  fileFlags: FILE_FLAGS,
};

/** vLLM's install guide (docs/getting_started/installation/gpu.md, docker/Dockerfile @f4e4088c9). */
function installSpec(version: string): InstallSpec {
  return {
    pipSpecs: [`vllm==${version}`],
    // vLLM's PyPI wheels are built against the public PyTorch release on PyPI (docs/getting_started/installation), so
    // pip takes everything from one index; uv picks the torch build for the driver with --torch-backend=auto.
    uvArgs: ['--torch-backend=auto'],
    python: '3.12',
    pythonRequires: '>=3.9,<3.14',
    verifyImport: 'import vllm; print(vllm.__version__)',
    dockerImage: `vllm/vllm-openai:v${version}`,
    notes: [
      'Install into a fresh environment: vLLM pins torch (2.8.0 for 0.11.0).',
      'The docker image runs python3 -m vllm.entrypoints.openai.api_server: pass --model MODEL, not a positional model.',
      'The driver must support CUDA 12.8 (R570+).',
    ],
  };
}

export const vllmAdapter: EngineAdapter = {
  id: 'vllm',
  displayName: 'vLLM',
  knownVersions: VLLM_KNOWN_VERSIONS,
  defaultVersion: '0.11.0',
  knobTable: VLLM_KNOB_TABLE,
  fileFlags: FILE_FLAGS,
  flagTable: (version) => flagTableAt('vllm', version),
  installSpec,
  buildArgv: (config, version, options) => buildCommand(SPEC, config, version, options),
  // vllm/entrypoints/openai/api_server.py, launcher.py.
  readiness: healthReadiness(READY_LINE.vllm, [
    'The port is bound before the model loads, so an open port is not readiness: early probes are refused.',
    '/health answers 503 after the engine died (EngineDeadError); check the process is alive too.',
    'vLLM never prints "Uvicorn running on"; it hands uvicorn a pre-bound socket.',
    'SO_REUSEPORT lets a second vLLM of the same user bind the same port silently: check the port is free before launch.',
  ]),
  classifyLog: (text, options) => classifyLog(text, { ...options, engine: 'vllm' }),
  stopSignals: processGroupStop(['The API server, the EngineCore process and the TP workers share the process group; signal the group, then check the port and nvidia-smi.']),
};
