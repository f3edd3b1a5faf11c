import type { ServerConfig } from './server-config';
import type { EngineId, UnsupportedKnob } from './types';
import { compareVersions, inRange } from './version';

/**
 * What each engine's own validation refuses (or silently ignores) in a config its parser accepts: speculative
 * decoding set-ups and attention backends. A refusal here becomes a pre-flight refusal, so no GPU start is spent on a
 * command the engine would reject. Every rule cites the engine's source at the release it was read from
 * (scripts/flag-tables/VALIDATION.md has the full notes, with line numbers).
 */

// ---------------------------------------------------------------------------------------------------------------
// vLLM

/**
 * Attention backends that take effect on NVIDIA GPUs, per release (the `_Backend` / `AttentionBackendEnum` members
 * that `CudaPlatform.get_attn_backend_cls` handles; vllm/platforms/cuda.py). At 0.11.0 any other member is silently
 * replaced by the default (cuda.py@b8b302cde434:336); from 0.11.1 it raises "Selected backend … is not valid for this
 * configuration" (cuda.py@439368496db4:354-378). The MLA names apply to MLA models only.
 */
const VLLM_CUDA_ATTENTION: readonly { since?: string; until?: string; names: readonly string[] }[] = [
  // vllm/platforms/cuda.py@b8b302cde434:240-336 (v0.11.0)
  { until: '0.11.1', names: ['FLASH_ATTN', 'TRITON_ATTN', 'XFORMERS', 'FLASHINFER', 'FLEX_ATTENTION', 'TREE_ATTN', 'CUTLASS_MLA', 'FLASHINFER_MLA', 'FLASHMLA', 'FLASH_ATTN_MLA', 'TRITON_MLA'] },
  // vllm/attention/backends/registry.py@439368496db4:34 less the members cuda.py never references (v0.11.1, v0.11.2)
  { since: '0.11.1', until: '0.12.0', names: ['FLASH_ATTN', 'TRITON_ATTN', 'XFORMERS', 'FLASHINFER', 'FLASHINFER_MLA', 'TRITON_MLA', 'CUTLASS_MLA', 'FLASHMLA', 'FLASHMLA_SPARSE', 'FLASH_ATTN_MLA', 'FLEX_ATTENTION'] },
  // 0.12.0 drops XFORMERS (registry.py@4fd9d6a85c00); unchanged for CUDA through 0.16.0
  { since: '0.12.0', until: '0.17.0', names: ['FLASH_ATTN', 'TRITON_ATTN', 'FLASHINFER', 'FLASHINFER_MLA', 'TRITON_MLA', 'CUTLASS_MLA', 'FLASHMLA', 'FLASHMLA_SPARSE', 'FLASH_ATTN_MLA', 'FLEX_ATTENTION'] },
  // 0.17.0 adds FLASHINFER_MLA_SPARSE (vllm/v1/attention/backends/registry.py@b31e9326a7d9)
  { since: '0.17.0', names: ['FLASH_ATTN', 'TRITON_ATTN', 'FLASHINFER', 'FLASHINFER_MLA', 'FLASHINFER_MLA_SPARSE', 'TRITON_MLA', 'CUTLASS_MLA', 'FLASHMLA', 'FLASHMLA_SPARSE', 'FLASH_ATTN_MLA', 'FLEX_ATTENTION'] },
];

/** vLLM's attention backends that run on NVIDIA GPUs at `version`. */
export function vllmAttentionBackends(version: string): readonly string[] {
  return VLLM_CUDA_ATTENTION.find((r) => inRange(version, r))?.names ?? [];
}

function vllmChecks(config: ServerConfig, version: string): UnsupportedKnob[] {
  const out: UnsupportedKnob[] = [];
  const spec = config.speculative;
  if (spec?.algorithm) {
    const method = spec.algorithm;
    const needsDraft = method === 'eagle' || method === 'eagle3' || method === 'draft-model';
    if (method === 'draft-model' && compareVersions(version, '0.15.0') < 0) {
      // vllm/config/speculative.py@b8b302cde434:347-353 (the same text through 0.14.1; accepted from 0.15.0, @f176443446f6:403)
      out.push({
        knob: 'speculative.algorithm',
        reason: `vLLM ${version} refuses a draft-model speculator: "NotImplementedError: Speculative decoding with draft model is not supported yet" (vllm/config/speculative.py); it is supported from vLLM 0.15.0, or use eagle3 with an EAGLE3 draft`,
      });
    }
    if (needsDraft && !spec.draftModel) {
      // speculative.py@b8b302cde434:236-239 and _verify_args :518-524
      out.push({ knob: 'speculative.draftModel', reason: `vLLM's ${method} speculator needs a draft model (the "model" key of --speculative-config)` });
    }
    if (spec.numSteps === undefined) {
      // speculative.py@b8b302cde434:398-401 (EAGLE/EAGLE3 reach range(None)) and _verify_args :520-524 ("num_speculative_tokens
      // must be provided with speculative model unless the draft model config contains an n_predict parameter.").
      out.push({
        knob: 'speculative.numSteps',
        reason: `vLLM needs num_speculative_tokens for the ${method} speculator ("num_speculative_tokens must be provided with speculative model unless the draft model config contains an n_predict parameter", vllm/config/speculative.py): set the number of speculative tokens (numSteps)`,
      });
    }
  }
  if (config.attentionBackend !== undefined) {
    const names = vllmAttentionBackends(version);
    if (!names.includes(config.attentionBackend)) {
      const why =
        compareVersions(version, '0.11.1') < 0
          ? `on NVIDIA GPUs vLLM ${version} silently runs its default backend instead (vllm/platforms/cuda.py), so the trial would be labelled with a backend it did not use`
          : `vLLM ${version} refuses it on NVIDIA GPUs ("Selected backend … is not valid for this configuration", vllm/platforms/cuda.py)`;
      out.push({ knob: 'attentionBackend', reason: `attention backend ${config.attentionBackend}: ${why}; choose one of ${names.join(', ')}` });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// SGLang

function sglangChecks(config: ServerConfig): UnsupportedKnob[] {
  const out: UnsupportedKnob[] = [];
  const spec = config.speculative;
  if (spec?.algorithm) {
    // ServerArgs._handle_speculative_decoding (server_args.py@85ebeecf0694:1234-1236, @0c006b8809cd:1577-1579):
    // without --speculative-num-steps, topk and draft tokens must be unset too (a bare AssertionError otherwise).
    if (spec.numSteps === undefined && (spec.eagleTopK !== undefined || spec.numDraftTokens !== undefined)) {
      out.push({ knob: 'speculative.numSteps', reason: 'SGLang fails an assertion when --speculative-eagle-topk or --speculative-num-draft-tokens is set without --speculative-num-steps (server_args.py _handle_speculative_decoding): set all three, or none to let SGLang choose' });
    }
    // server_args.py@85ebeecf0694:1251, @0c006b8809cd:1594
    if (config.attentionBackend === 'trtllm_mha' && (spec.eagleTopK ?? 1) > 1) {
      out.push({ knob: 'speculative.eagleTopK', reason: 'SGLang: "trtllm_mha backend only supports topk = 1 for speculative decoding." (server_args.py)' });
    }
    if ((spec.algorithm === 'eagle' || spec.algorithm === 'eagle3' || spec.algorithm === 'draft-model') && !spec.draftModel) {
      out.push({ knob: 'speculative.draftModel', reason: `SGLang's ${spec.algorithm} speculator needs --speculative-draft-model-path (only DeepSeek-V3-style MTP models draft with their own weights)` });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// TensorRT-LLM

/**
 * The names tensorrt_llm/_torch/attention_backend/utils.py get_attention_backend dispatches on; any other value, and
 * FLASHINFER without flashinfer installed, silently becomes TRTLLM (utils.py@00dbe288d2a7:10-24).
 */
export const TRTLLM_ATTENTION_BACKENDS = ['TRTLLM', 'FLASHINFER', 'VANILLA', 'FLASHINFER_STAR_ATTENTION'] as const;

function trtllmChecks(config: ServerConfig): UnsupportedKnob[] {
  const out: UnsupportedKnob[] = [];
  const spec = config.speculative;
  if (spec?.algorithm) {
    // BaseLlmArgs.validate_speculative_config (tensorrt_llm/llmapi/llm_args.py): Eagle and DraftTarget assert
    // max_draft_len > 0 and a speculative_model_dir ("Path to EAGLE3 weights must be specified." /
    // "Path to draft model must be specified."); MTP asserts num_nextn_predict_layers > 0.
    if ((spec.algorithm === 'eagle3' || spec.algorithm === 'draft-model') && !spec.draftModel) {
      out.push({ knob: 'speculative.draftModel', reason: `TensorRT-LLM asserts a draft path for ${spec.algorithm} ("Path to ${spec.algorithm === 'eagle3' ? 'EAGLE3 weights' : 'draft model'} must be specified.", llm_args.py)` });
    }
    if (spec.numSteps === undefined && spec.algorithm !== 'mtp') {
      out.push({ knob: 'speculative.numSteps', reason: 'TensorRT-LLM asserts speculative_config.max_draft_len > 0 (llm_args.py validate_speculative_config): set numSteps' });
    }
    if (spec.algorithm === 'ngram') {
      out.push({ knob: 'speculative.algorithm', reason: 'TensorRT-LLM asserts speculative_config.max_matching_ngram_size > 0 (it defaults to 0, llm_args.py NGramDecodingConfig), which Servelab does not set: pass it in the options file' });
    }
  }
  if (config.attentionBackend !== undefined && !(TRTLLM_ATTENTION_BACKENDS as readonly string[]).includes(config.attentionBackend)) {
    out.push({ knob: 'attentionBackend', reason: `attn_backend ${config.attentionBackend}: TensorRT-LLM silently uses TRTLLM for any other name (tensorrt_llm/_torch/attention_backend/utils.py); choose one of ${TRTLLM_ATTENTION_BACKENDS.join(', ')}` });
  }
  return out;
}

/** What the engine's own validation would refuse (or silently ignore) in this config at `version`. */
export function engineRefusals(engine: EngineId, config: ServerConfig, version: string): UnsupportedKnob[] {
  if (engine === 'vllm') return vllmChecks(config, version);
  if (engine === 'sglang') return sglangChecks(config);
  return trtllmChecks(config);
}
