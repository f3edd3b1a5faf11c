// What vLLM's own config code does with the speculative config and the attention backend, per release, where the
// simulation models the feature: which value it accepts, what it refuses and with which exception, and what it logs.
// Facts from scripts/flag-tables/VALIDATION.md and vLLM's source at the release tags (file@commit:line below; the
// commits are those of resources/engine-flags/vllm.json). Failures are returned, not printed: the server prints
// them where the real one raises them (the API server process while it builds the config, or the engine core).

import { versionCompare } from './version.mjs';

const atLeast = (version, v) => versionCompare(version, v) >= 0;
const SITE = '/usr/lib/python3/dist-packages/vllm';

/**
 * The attention-backend enum's member names (`__members__.keys()`, aliases included): `_Backend` in
 * vllm/platforms/interface.py@v0.11.0:41; `AttentionBackendEnum` in vllm/attention/backends/registry.py@v0.11.1:34
 * (0.12.0 drops XFORMERS, adds ROCM_AITER_TRITON_MLA and ROCM_AITER_MLA_SPARSE) and
 * vllm/v1/attention/backends/registry.py from 0.14.0 (adds FLASH_ATTN_DIFFKV, drops PALLAS; 0.16.0 drops IPEX;
 * 0.17.0 adds FLASHINFER_MLA_SPARSE). Keyed by the first release with that list.
 */
const BACKEND_NAMES = [
  ['0.11.0', 'FLASH_ATTN TRITON_ATTN XFORMERS ROCM_FLASH ROCM_AITER_MLA ROCM_AITER_FA TORCH_SDPA FLASHINFER FLASHINFER_MLA TRITON_MLA CUTLASS_MLA FLASHMLA FLASH_ATTN_MLA PALLAS IPEX DUAL_CHUNK_FLASH_ATTN DIFFERENTIAL_FLASH_ATTN NO_ATTENTION FLEX_ATTENTION TREE_ATTN ROCM_ATTN'],
  ['0.11.1', 'FLASH_ATTN TRITON_ATTN XFORMERS ROCM_ATTN ROCM_AITER_MLA ROCM_AITER_FA TORCH_SDPA FLASHINFER FLASHINFER_MLA TRITON_MLA CUTLASS_MLA FLASHMLA FLASHMLA_SPARSE FLASH_ATTN_MLA PALLAS IPEX NO_ATTENTION FLEX_ATTENTION TREE_ATTN ROCM_AITER_UNIFIED_ATTN CPU_ATTN CUSTOM'],
  ['0.12.0', 'FLASH_ATTN TRITON_ATTN ROCM_ATTN ROCM_AITER_MLA ROCM_AITER_TRITON_MLA ROCM_AITER_FA ROCM_AITER_MLA_SPARSE TORCH_SDPA FLASHINFER FLASHINFER_MLA TRITON_MLA CUTLASS_MLA FLASHMLA FLASHMLA_SPARSE FLASH_ATTN_MLA PALLAS IPEX NO_ATTENTION FLEX_ATTENTION TREE_ATTN ROCM_AITER_UNIFIED_ATTN CPU_ATTN CUSTOM'],
  ['0.14.0', 'FLASH_ATTN FLASH_ATTN_DIFFKV TRITON_ATTN ROCM_ATTN ROCM_AITER_MLA ROCM_AITER_TRITON_MLA ROCM_AITER_FA ROCM_AITER_MLA_SPARSE TORCH_SDPA FLASHINFER FLASHINFER_MLA TRITON_MLA CUTLASS_MLA FLASHMLA FLASHMLA_SPARSE FLASH_ATTN_MLA IPEX NO_ATTENTION FLEX_ATTENTION TREE_ATTN ROCM_AITER_UNIFIED_ATTN CPU_ATTN CUSTOM'],
  ['0.16.0', 'FLASH_ATTN FLASH_ATTN_DIFFKV TRITON_ATTN ROCM_ATTN ROCM_AITER_MLA ROCM_AITER_TRITON_MLA ROCM_AITER_FA ROCM_AITER_MLA_SPARSE TORCH_SDPA FLASHINFER FLASHINFER_MLA TRITON_MLA CUTLASS_MLA FLASHMLA FLASHMLA_SPARSE FLASH_ATTN_MLA NO_ATTENTION FLEX_ATTENTION TREE_ATTN ROCM_AITER_UNIFIED_ATTN CPU_ATTN CUSTOM'],
  ['0.17.0', 'FLASH_ATTN FLASH_ATTN_DIFFKV TRITON_ATTN ROCM_ATTN ROCM_AITER_MLA ROCM_AITER_TRITON_MLA ROCM_AITER_FA ROCM_AITER_MLA_SPARSE TORCH_SDPA FLASHINFER FLASHINFER_MLA FLASHINFER_MLA_SPARSE TRITON_MLA CUTLASS_MLA FLASHMLA FLASHMLA_SPARSE FLASH_ATTN_MLA NO_ATTENTION FLEX_ATTENTION TREE_ATTN ROCM_AITER_UNIFIED_ATTN CPU_ATTN CUSTOM'],
];

export function backendNames(version) {
  let names = BACKEND_NAMES[0][1];
  for (const [since, list] of BACKEND_NAMES) if (atLeast(version, since)) names = list;
  return names.split(' ');
}

/**
 * 0.11.0's CUDA branches for a non-MLA model (vllm/platforms/cuda.py@v0.11.0:311-334) and the line each logs; any
 * other valid name reaches "# Default backends for V1 engine" (:336) with no message that the choice was ignored.
 */
const V0110_BRANCHES = {
  FLASHINFER: 'Using FlashInfer backend on V1 engine.',
  FLEX_ATTENTION: 'Using FlexAttention backend on V1 engine.',
  TRITON_ATTN: 'Using Triton backend on V1 engine.',
  FLASH_ATTN: 'Using Flash Attention backend on V1 engine.',
  TREE_ATTN: 'Using Tree Attention backend on V1 engine.',
  XFORMERS: 'Using XFormers backend on V1 engine.',
};

/** The performance model's name for a backend (lib/perf-model.mjs ATTENTION_FACTORS). */
const MODEL_NAME = { FLASHINFER: 'flashinfer', FLEX_ATTENTION: 'flex_attention', TRITON_ATTN: 'triton_attn', FLASH_ATTN: 'flash_attn', TREE_ATTN: 'tree_attn', XFORMERS: 'xformers' };

/**
 * Whether a selected backend passes `validate_configuration` (vllm/v1/attention/backends/abstract.py from 0.11.1) for the
 * simulated models (dense decoders, bfloat16, head size 128), as far as the simulation models it: the four backends
 * vLLM's CUDA priority lists hold (vllm/platforms/cuda.py@v0.12.0:46-85), with their KV-cache dtypes
 * (flash_attn.py: fp8 only with FlashAttention 3, i.e. sm 9.x; flex_attention.py: "auto" only; flashinfer.py and
 * triton_attn.py: auto, fp8, fp8_e4m3, fp8_e5m2). null: a name whose validation the simulation does not model.
 */
function validationReasons(name, { kvCacheDtype, computeCap }) {
  const fp8 = String(kvCacheDtype ?? 'auto').startsWith('fp8');
  if (name === 'FLASH_ATTN') return fp8 && !String(computeCap).startsWith('9') ? ['kv_cache_dtype not supported'] : [];
  if (name === 'FLEX_ATTENTION') return fp8 ? ['kv_cache_dtype not supported'] : [];
  if (name === 'FLASHINFER' || name === 'TRITON_ATTN') return [];
  return null;
}

/** A source line number that moves between releases: the entry of the newest release not newer than `version`. */
function lineAt(version, lines) {
  let line = lines[0][1];
  for (const [since, n] of lines) if (atLeast(version, since)) line = n;
  return line;
}

const pyList = (names) => `[${names.map((n) => `'${n}'`).join(', ')}]`;

/** pydantic's wrapping of a ValueError raised while a config dataclass validates (the shape the simbox prints). */
const validationError = (cls, message) => `pydantic_core._pydantic_core.ValidationError: 1 validation error for ${cls}\n  Value error, ${message}`;

/**
 * The attention backend a vLLM server runs with, from VLLM_ATTENTION_BACKEND and (from 0.13.0) --attention-backend.
 * Returns {backend (performance-model name or null for the default), apiWarnings: [[file, msg]], engineLines:
 * [[file, msg]], error?: {where: 'api'|'engine', frames, exception}, unsupported?: message}.
 */
export function vllmAttention(version, { env, cliBackend, kvCacheDtype, computeCap }) {
  const result = { backend: null, apiWarnings: [], engineLines: [], error: null, unsupported: null };
  const names = backendNames(version);
  const envValue = atLeast(version, '0.15.0') ? undefined : env.VLLM_ATTENTION_BACKEND;
  // 0.15.0 on: the variable appears nowhere in the package (VALIDATION.md §1.5), so it is ignored without a word.
  let selected = null;
  if (envValue !== undefined) {
    // envs.py env_with_choices (vllm/envs.py@v0.11.0:236-275, :612-615; the same at 0.11.1–0.14.1), case-sensitive.
    if (!names.includes(envValue)) {
      const message = `Invalid value '${envValue}' for VLLM_ATTENTION_BACKEND. Valid options: ${pyList(names)}.`;
      // Read first by ModelConfig.__post_init__ up to 0.12.0 (vllm/config/model.py@v0.11.0:417, @v0.11.1:480,
      // @v0.12.0:472), by AttentionConfig.__post_init__ from 0.13.0 (vllm/config/attention.py@v0.13.0:93): in the
      // API server, while the engine config is built; both are pydantic dataclasses.
      const cls = atLeast(version, '0.13.0') ? 'AttentionConfig' : 'ModelConfig';
      const caller = atLeast(version, '0.13.0')
        ? [`${SITE}/config/attention.py`, 93, '__post_init__', 'self._set_from_env_if_set("backend", "VLLM_ATTENTION_BACKEND")']
        : [`${SITE}/config/model.py`, lineAt(version, [['0.11.0', 417], ['0.11.1', 480], ['0.12.0', 472]]), '__post_init__', '(backend := envs.VLLM_ATTENTION_BACKEND)'];
      result.error = {
        where: 'api',
        frames: [caller, [`${SITE}/envs.py`, lineAt(version, [['0.11.0', 269], ['0.11.1', 314], ['0.12.0', 324], ['0.13.0', 332], ['0.14.0', 345]]), '_get_validated_env', 'raise ValueError(']],
        exception: validationError(cls, message),
        beforeModel: true,
      };
      return result;
    }
    if (atLeast(version, '0.13.0')) {
      // vllm/config/attention.py@v0.13.0:82-90 (warning_once, in the API server).
      result.apiWarnings.push([
        'attention.py',
        'Using VLLM_ATTENTION_BACKEND environment variable is deprecated and will be removed in v0.14.0 or v1.0.0, whichever is soonest. Please use --attention-config.backend command line argument or AttentionConfig(backend=...) config field instead.',
      ]);
    }
    selected = envValue;
  }
  if (cliBackend !== undefined && cliBackend !== null) {
    // vllm/engine/arg_utils.py@v0.13.0:1644-1658: both set → ValueError; the name is upper-cased and looked up
    // through the enum's metaclass, which raises ValueError for an unknown name (registry.py@v0.13.0:21-31).
    if (selected !== null) {
      const line = lineAt(version, [['0.13.0', 1648], ['0.15.0', 1701], ['0.16.0', 1728], ['0.17.0', 1809]]);
      result.error = { where: 'api', frames: [[`${SITE}/engine/arg_utils.py`, line, 'create_engine_config', 'raise ValueError(']], exception: 'ValueError: attention_backend and attention_config.backend are mutually exclusive' };
      return result;
    }
    const upper = String(cliBackend).toUpperCase();
    if (!names.includes(upper)) {
      result.error = {
        where: 'api',
        frames: [
          [`${SITE}/engine/arg_utils.py`, lineAt(version, [['0.13.0', 1654], ['0.15.0', 1706], ['0.16.0', 1733], ['0.17.0', 1814]]), 'create_engine_config', 'attention_config.backend = AttentionBackendEnum['],
          [`${SITE}/${atLeast(version, '0.14.0') ? 'v1/' : ''}attention/backends/registry.py`, 28, '__getitem__', 'raise ValueError('],
        ],
        exception: `ValueError: Unknown attention backend: '${upper}'. Valid options are: ${names.join(', ')}`,
      };
      return result;
    }
    selected = upper;
  }

  if (!atLeast(version, '0.11.1')) {
    // vllm/platforms/cuda.py@v0.11.0: a selected name with a CUDA branch is used; any other falls through to the
    // default, which on sm 8.0+ is FlashAttention, or Triton with an fp8 KV cache below sm 9.0 (:357-367).
    if (selected && V0110_BRANCHES[selected]) {
      result.backend = MODEL_NAME[selected];
      result.engineLines.push(['cuda.py', V0110_BRANCHES[selected]]);
    } else {
      const triton = String(kvCacheDtype ?? 'auto').startsWith('fp8') && !String(computeCap).startsWith('9');
      result.engineLines.push(['cuda.py', triton ? 'Using Triton backend on V1 engine.' : 'Using Flash Attention backend on V1 engine.']);
    }
    return result;
  }
  if (selected === null) return result;
  // From 0.11.1 a selected backend is validated, and used or refused (vllm/platforms/cuda.py@v0.11.1:354-378,
  // @v0.13.0:290-316, @v0.17.1:342-369); it logs "Using %s backend." with the enum member.
  const reasons = validationReasons(selected, { kvCacheDtype, computeCap });
  if (reasons === null) {
    result.unsupported = `the simulated box does not model how vLLM ${version} validates the attention backend ${selected} on CUDA (it models FLASH_ATTN, FLASHINFER, TRITON_ATTN and FLEX_ATTENTION)`;
    return result;
  }
  if (reasons.length > 0) {
    result.error = {
      where: 'engine',
      frames: [[`${SITE}/platforms/cuda.py`, lineAt(version, [['0.11.1', 372], ['0.12.0', 359], ['0.13.0', 310], ['0.15.0', 323], ['0.16.0', 326], ['0.17.0', 363]]), 'get_attn_backend_cls', 'raise ValueError(']],
      exception: `ValueError: Selected backend AttentionBackendEnum.${selected} is not valid for this configuration. Reason: ${pyList(reasons)}`,
    };
    return result;
  }
  result.backend = MODEL_NAME[selected];
  result.engineLines.push(['cuda.py', `Using AttentionBackendEnum.${selected} backend.`]);
  return result;
}

/**
 * vLLM's SpeculativeConfig for `--speculative-config` (VALIDATION.md §1.1-1.4; vllm/config/speculative.py at the
 * tags): {spec: {algorithm, draftModel, steps, topk, draftTokens} | null, error?: {where, frames, exception}}.
 * The simulated draft checkpoints (lib/catalog.mjs DRAFT_MODELS) carry no `n_predict` in their configs, and no
 * simulated model is an MTP model type, so `mtp` ends in the detection's failure as VALIDATION.md §1.3-1.4 describes.
 */
export function vllmSpeculative(version, sc, targetModel) {
  if (sc === undefined || sc === null) return { spec: null, error: null };
  const frames = [[`${SITE}/engine/arg_utils.py`, 1109, 'create_speculative_config', 'return SpeculativeConfig(**self.speculative_config)']];
  const fail = (exception) => ({ spec: null, error: { where: 'api', frames, exception } });
  const valueError = (message) => fail(validationError('SpeculativeConfig', message));
  let method = sc.method ?? null;
  let model = sc.model ?? null;
  const n = sc.num_speculative_tokens ?? null;
  // __post_init__ step 1 (speculative.py@v0.11.0:218-239; 0.11.1 adds suffix, @v0.11.1:263-264)
  if (model === null && n !== null) {
    if (method === 'mtp') model = targetModel;
    else if (method === 'ngram' || method === '[ngram]') model = 'ngram';
    else if (method === 'suffix' && atLeast(version, '0.11.1')) model = 'suffix';
    else return valueError('num_speculative_tokens was provided but without speculative model.');
  }
  if (method === null && (model === 'ngram' || model === '[ngram]')) method = 'ngram';
  if (method !== 'ngram' && method !== '[ngram]' && method !== 'suffix' && model !== null) {
    // Method detection (speculative.py@v0.11.0:313-353; @v0.15.0:368-408)
    const lower = String(model).toLowerCase();
    if (method === 'eagle' || method === 'eagle3') {
      // kept
    } else if (lower.includes('eagle-')) method = 'eagle';
    else if (lower.includes('eagle3')) method = 'eagle3';
    else if (!atLeast(version, '0.15.0')) {
      // speculative.py@v0.11.0:347-353; the same text up to 0.14.1 (@v0.14.1:390)
      return fail('NotImplementedError: Speculative decoding with draft model is not supported yet. Please consider using other speculative decoding methods such as ngram, medusa, eagle, or mtp.');
    } else if (method !== 'draft_model') {
      return fail(`NotImplementedError: Unsupported speculative method: '${method ?? 'None'}'`);
    }
    // No n_predict in the draft's config: the token tree is built from num_speculative_tokens.
    if (n === null) {
      // 0.17.0 checks first (speculative.py@v0.17.1:552-558); before, range(None) (@v0.11.0:398-401).
      if (atLeast(version, '0.17.0')) return valueError('A speculative model was provided, but neither `speculative_token_tree` nor `num_speculative_tokens` was provided');
      return { spec: null, error: { where: 'api', frames: [...frames, [`${SITE}/config/speculative.py`, 400, '__post_init__', 'for i in range(self.num_speculative_tokens)']], exception: "TypeError: 'NoneType' object cannot be interpreted as an integer" } };
    }
  }
  // _verify_args, a model_validator(mode='after') (speculative.py@v0.11.0:518-528; unchanged through 0.17.1)
  if (n === null) return valueError('num_speculative_tokens must be provided with speculative model unless the draft model config contains an n_predict parameter.');
  if (!(n > 0)) return valueError(`Expected num_speculative_tokens to be greater than zero (${n}).`);
  return {
    spec: { algorithm: String(method ?? 'draft_model').toUpperCase(), draftModel: model, steps: n, topk: 1, draftTokens: n + 1 },
    error: null,
  };
}
