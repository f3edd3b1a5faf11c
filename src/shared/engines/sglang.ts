import { buildCommand, type CommandSpec } from './command-builder';
import { classifyLog } from './classify-log';
import { engineVersions, flagTableAt } from './flag-tables';
import type { EngineAdapter, InstallSpec, KnobRow } from './types';
import { compareVersions } from './version';
import { healthReadiness, processGroupStop } from './lifecycle-plans';
import { READY_LINE } from './ready-lines';

/** The releases SGLang's flag tables cover (resources/engine-flags/sglang.json). */
export const SGLANG_KNOWN_VERSIONS = engineVersions('sglang');

/**
 * SGLang `python3 -m sglang.launch_server --model-path MODEL [flags]` (argparse).
 * Source: sgl-project/sglang python/sglang/srt/server_args.py ServerArgs.add_cli_args.
 */
export const SGLANG_KNOB_TABLE: readonly KnobRow[] = [
  { knob: 'servedModelName', to: { kind: 'option', flag: '--served-model-name' } },
  { knob: 'host', to: { kind: 'option', flag: '--host' } },
  { knob: 'port', to: { kind: 'option', flag: '--port' } },
  { knob: 'tensorParallelSize', to: { kind: 'option', flag: '--tp-size' } },
  // Parallelism (server_args.py at each tag, bytedance-iaas/sglang carrying sgl-project/sglang's tags). The short names
  // are aliases from 0.5.0rc0 and the primary names from 0.5.14.
  { knob: 'pipelineParallelSize', to: { kind: 'option', flag: '--pp-size' } },
  { knob: 'dataParallelSize', to: { kind: 'option', flag: '--dp-size' } },
  // Splits the tensor-parallel group (distributed/parallel_state.py: moe_tp_size = tp_size // moe_ep_size).
  { knob: 'expertParallelSize', to: { kind: 'option', flag: '--ep-size' } },
  // _handle_data_parallelism: with DP attention, assert tp_size % dp_size == 0; with dp_size 1 it is turned off.
  { knob: 'dpAttention', to: { kind: 'switch', on: ['--enable-dp-attention'] } },
  { knob: 'decodeContextParallelSize', until: '0.5.15', to: { kind: 'unsupported', reason: 'SGLang has decode context parallelism (--dcp-size) from 0.5.15' } },
  { knob: 'decodeContextParallelSize', since: '0.5.15', to: { kind: 'option', flag: '--dcp-size' } },
  // Choices per release are the parser's (none/deepep from 0.5.1, mooncake 0.5.3.post2, … pplx 0.5.17).
  { knob: 'moeAllToAllBackend', to: { kind: 'option', flag: '--moe-a2a-backend' } },
  { knob: 'maxModelLen', to: { kind: 'option', flag: '--context-length' } },
  {
    knob: 'gpuMemoryFraction',
    to: { kind: 'option', flag: '--mem-fraction-static' },
    note: 'fraction of GPU memory for weights and the KV cache pool (default: computed); "use a smaller value if you see out-of-memory errors"',
  },
  // Choices of these three are the parser's, per release (resources/engine-flags/sglang.json).
  { knob: 'quantization', to: { kind: 'option', flag: '--quantization' } },
  { knob: 'kvCacheDtype', to: { kind: 'option', flag: '--kv-cache-dtype' } },
  { knob: 'maxRunningRequests', to: { kind: 'option', flag: '--max-running-requests' } },
  // Chunked prefill is on by default (size chosen automatically); -1 turns it off.
  { knob: 'chunkedPrefill', to: { kind: 'switch', off: ['--chunked-prefill-size', '-1'] } },
  {
    knob: 'maxBatchedTokens',
    when: { knob: 'chunkedPrefill', in: [false] },
    to: { kind: 'unsupported', reason: 'SGLang sets the prefill chunk with --chunked-prefill-size, which is -1 when chunked prefill is off' },
  },
  {
    knob: 'maxBatchedTokens',
    to: { kind: 'option', flag: '--chunked-prefill-size' },
    note: 'the largest prefill chunk in tokens',
  },
  { knob: 'cudaGraphMaxBatchSize', to: { kind: 'option', flag: '--cuda-graph-max-bs' } },
  { knob: 'attentionBackend', to: { kind: 'option', flag: '--attention-backend' } },
  { knob: 'torchCompile', to: { kind: 'switch', on: ['--enable-torch-compile'] } },
  {
    // NEXTN is SGLang's MTP spelling and is rewritten to EAGLE internally; STANDALONE runs a plain draft model.
    knob: 'speculative.algorithm',
    to: { kind: 'option', flag: '--speculative-algorithm' },
    values: { eagle: 'EAGLE', eagle3: 'EAGLE3', mtp: 'NEXTN', 'draft-model': 'STANDALONE', ngram: 'NGRAM' },
  },
  { knob: 'speculative.draftModel', to: { kind: 'option', flag: '--speculative-draft-model-path' } },
  { knob: 'speculative.numSteps', to: { kind: 'option', flag: '--speculative-num-steps' } },
  { knob: 'speculative.eagleTopK', to: { kind: 'option', flag: '--speculative-eagle-topk' } },
  { knob: 'speculative.numDraftTokens', to: { kind: 'option', flag: '--speculative-num-draft-tokens' } },
  { knob: 'trustRemoteCode', to: { kind: 'switch', on: ['--trust-remote-code'] } },
];


const FILE_FLAGS: EngineAdapter['fileFlags'] = {
  // TemplateManager._load_explicit_chat_template (python/sglang/srt/managers/template_manager.py@v0.5.5.post1): a
  // file is read as Jinja when its name ends in .jinja, and otherwise asserted to be a .json conversation template.
  chatTemplate: {
    flag: '--chat-template',
    accepts: (name) =>
      /\.(jinja|json)$/.test(name) ? undefined : `SGLang reads a chat template file as Jinja only when its name ends in .jinja (any other must be a .json conversation template); rename ${name}`,
  },
  // ConfigArgumentMerger (python/sglang/srt/server_args_config_parser.py@v0.5.5.post1, from 0.5.3): the YAML's
  // keys become flags placed before the command line's own, so a typed flag wins over the file.
  optionsFile: { flag: '--config' },
};

const SPEC: CommandSpec = {
  engine: 'sglang',
  displayName: 'SGLang',
  command: ['python3', '-m', 'sglang.launch_server'],
  modelFlag: '--model-path',
  valueStyle: 'separate',
  knobTable: SGLANG_KNOB_TABLE,
  flagTable: (version) => flagTableAt('sglang', version),
  fileFlags: FILE_FLAGS,
};

/** SGLang's install guide (docs/get_started/install.md, python/pyproject.toml, .github/workflows/release-docker.yml). */
function installSpec(version: string): InstallSpec {
  // 0.5.3.post3 has an `all` extra; 0.5.5 dropped it (pip would only warn that the extra is missing).
  const hasAllExtra = compareVersions(version, '0.5.5') < 0;
  return {
    pipSpecs: [hasAllExtra ? `sglang[all]==${version}` : `sglang==${version}`],
    pythonRequires: '>=3.10',
    verifyImport: 'import sglang; print(sglang.__version__)',
    dockerImage: `lmsysorg/sglang:v${version}`,
    notes: [
      'On "OSError: CUDA_HOME environment variable is not set", export CUDA_HOME=/usr/local/cuda-<ver>.',
      'FlashInfer (the default attention backend) needs sm75+; elsewhere use --attention-backend triton --sampling-backend pytorch.',
      'The docker image has no server entrypoint: run python3 -m sglang.launch_server … in it; docs use --shm-size 32g --ipc=host.',
    ],
  };
}

export const sglangAdapter: EngineAdapter = {
  id: 'sglang',
  displayName: 'SGLang',
  knownVersions: SGLANG_KNOWN_VERSIONS,
  defaultVersion: '0.5.5.post1',
  knobTable: SGLANG_KNOB_TABLE,
  fileFlags: FILE_FLAGS,
  flagTable: (version) => flagTableAt('sglang', version),
  installSpec,
  buildArgv: (config, version, options) => buildCommand(SPEC, config, version, options),
  // python/sglang/srt/entrypoints/http_server.py.
  readiness: healthReadiness(READY_LINE.sglang, [
    '/health is 503 until warm-up has run; /v1/models and /get_model_info answer earlier, so they are not readiness.',
    '"Uvicorn running on" and "Application startup complete." are printed before warm-up: not readiness either.',
    'After warm-up /health runs a 1-token generation; a 503 later with "Health check failed" means the scheduler stopped answering.',
  ]),
  classifyLog: (text, options) => classifyLog(text, { ...options, engine: 'sglang' }),
  stopSignals: processGroupStop(['launch_server starts scheduler and detokenizer processes per TP rank; signal the group, then check the port and nvidia-smi.']),
};
