export * from './types';
export * from './server-config';
export * from './version';
export * from './classify-log';
export { ENGINE_ADAPTERS, getAdapter, validateExtraArgs, type ExtraArgsCheck } from './adapters';
export { canonicalizeArgv, canonicalFlag } from './flag-syntax';
export { vllmAdapter, VLLM_KNOB_TABLE, VLLM_KNOWN_VERSIONS } from './vllm';
export { sglangAdapter, SGLANG_KNOB_TABLE, SGLANG_KNOWN_VERSIONS } from './sglang';
export { trtllmAdapter, TRTLLM_KNOB_TABLE, TRTLLM_KNOWN_VERSIONS } from './trtllm';
