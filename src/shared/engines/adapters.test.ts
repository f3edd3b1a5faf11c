import { describe, expect, it } from 'vitest';
import { ServelabError } from '../contract/errors';
import { ENGINE_ADAPTERS, extraArgsSyntax, validateExtraArgs } from './adapters';
import { HINT_FLAGS } from './classify-log';
import { selectRow } from './command-builder';
import { parseServerConfig, type ServerConfigInput } from './server-config';
import { ENGINE_IDS, KNOB_NAMES, type EngineId, type KnobName } from './types';
import { compareVersions, inRange, nearestKnown } from './version';
import { sglangAdapter } from './sglang';
import { trtllmAdapter } from './trtllm';
import { vllmAdapter } from './vllm';

function issuesOf(input: unknown): { path: string; message: string }[] {
  try {
    parseServerConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).code).toBe('BAD_INPUT');
    return (error as ServelabError).issues ?? [];
  }
  throw new Error('expected the config to be refused');
}

const build = (engine: EngineId, config: ServerConfigInput, version?: string) =>
  ENGINE_ADAPTERS[engine].buildArgv(parseServerConfig(config), version ?? (ENGINE_ADAPTERS[engine].knownVersions[0] as string));

describe('ServerConfig', () => {
  it('accepts a minimal config and fills extraArgs and env', () => {
    expect(parseServerConfig({ model: 'Qwen/Qwen3-8B' })).toEqual({ model: 'Qwen/Qwen3-8B', extraArgs: [], env: {} });
  });

  it('names each wrong field', () => {
    const paths = issuesOf({
      model: '-oops',
      port: 70000,
      gpuMemoryFraction: 1.5,
      tensorParallelSize: 0,
      extraArgs: ['--ok', 3],
      speculative: { algorithm: 'eagle3', numSteps: 2.5 },
      bogus: true,
    }).map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining(['model', 'port', 'gpuMemoryFraction', 'tensorParallelSize', 'extraArgs.1', 'speculative.numSteps', 'bogus']),
    );
  });

  it('refuses extra args that are not a list of strings', () => {
    expect(issuesOf({ model: 'm', extraArgs: '--max-model-len 4096' }).map((i) => i.path)).toEqual(['extraArgs']);
  });

  it('refuses a credential given inline and a bad variable name, and accepts a secret reference', () => {
    const issues = issuesOf({ model: 'm', env: { HF_TOKEN: 'hf_abc', 'BAD-NAME': 'x', WANDB_API_KEY: 'k' } });
    expect(issues.map((i) => i.path).sort()).toEqual(['env.BAD-NAME', 'env.HF_TOKEN', 'env.WANDB_API_KEY']);
    expect(issues.find((i) => i.path === 'env.HF_TOKEN')?.message).toMatch(/secret reference/);
    const ok = parseServerConfig({ model: 'm', env: { HF_TOKEN: { secretRef: 'keychain:hf-token' }, NCCL_DEBUG: 'INFO' } });
    expect(ok.env.HF_TOKEN).toEqual({ secretRef: 'keychain:hf-token' });
  });

  it('needs a draft model for EAGLE, EAGLE3 and draft-model speculation, not for MTP or n-gram', () => {
    for (const algorithm of ['eagle', 'eagle3', 'draft-model']) {
      expect(issuesOf({ model: 'm', speculative: { algorithm } }).map((i) => i.path)).toEqual(['speculative.draftModel']);
    }
    for (const algorithm of ['mtp', 'ngram']) expect(() => parseServerConfig({ model: 'm', speculative: { algorithm } })).not.toThrow();
    expect(issuesOf({ model: 'm', speculative: { algorithm: 'medusa' } }).map((i) => i.path)).toEqual(['speculative.algorithm']);
  });
});

describe('knob tables', () => {
  it('map every knob on every engine at every known version (a flag, a file key, or a reason)', () => {
    for (const engine of ENGINE_IDS) {
      const adapter = ENGINE_ADAPTERS[engine];
      for (const version of adapter.knownVersions) {
        for (const knob of KNOB_NAMES) expect(selectRow(adapter.knobTable, knob, version), `${engine} ${version} ${knob}`).toBeDefined();
      }
    }
  });

  it("name flags the engine's own flag list knows", () => {
    for (const engine of ENGINE_IDS) {
      const adapter = ENGINE_ADAPTERS[engine];
      for (const version of adapter.knownVersions) {
        const words: string[] = [];
        for (const row of adapter.knobTable) {
          if (!inRange(version, row)) continue;
          if (row.to.kind === 'option' || row.to.kind === 'json') words.push(row.to.flag);
          if (row.to.kind === 'switch') words.push(...[...(row.to.on ?? []), ...(row.to.off ?? [])].filter((w) => w.startsWith('-') && !/^-\d/.test(w)));
          if (row.to.kind === 'sized-switch') words.push(...row.to.on);
        }
        const flagsOnly = words.map((w) => (w.startsWith('-O') && w.length === 3 ? '-O' : w));
        const check = extraArgsSyntax(engine, version, flagsOnly.flatMap((f) => [f, ...(needsValue(engine, version, f) ? [valueFor(engine, version, f)] : [])]));
        expect(check.issues.filter((i) => i.severity === 'error'), `${engine} ${version}`).toEqual([]);
      }
    }
  });

  it("use the same flag names as the classifier's hints", () => {
    const flag = (engine: EngineId, knob: KnobName) => {
      const row = selectRow(ENGINE_ADAPTERS[engine].knobTable, knob, ENGINE_ADAPTERS[engine].knownVersions[0] as string);
      return row?.to.kind === 'option' ? row.to.flag : undefined;
    };
    for (const engine of ENGINE_IDS) {
      const h = HINT_FLAGS[engine];
      expect(h.memory).toBe(flag(engine, 'gpuMemoryFraction'));
      expect(h.maxLen).toBe(flag(engine, 'maxModelLen'));
      expect(h.running).toBe(flag(engine, 'maxRunningRequests'));
      expect(h.batchTokens).toBe(flag(engine, 'maxBatchedTokens'));
      expect(h.tp).toBe(flag(engine, 'tensorParallelSize'));
      expect(h.port).toBe(flag(engine, 'port'));
    }
    expect(HINT_FLAGS.vllm.cudaGraph).toBe(flag('vllm', 'cudaGraphMaxBatchSize'));
    expect(HINT_FLAGS.sglang.cudaGraph).toBe(flag('sglang', 'cudaGraphMaxBatchSize'));
  });
});

/** A value the flag's parser accepts: its first choice when it has choices. */
function valueFor(engine: EngineId, version: string, flag: string): string {
  return ENGINE_ADAPTERS[engine].flagTable(version).flags.find((f) => f.names.includes(flag))?.choices?.[0] ?? '1';
}

function needsValue(engine: EngineId, version: string, flag: string): boolean {
  const spec = ENGINE_ADAPTERS[engine].flagTable(version).flags.find((f) => f.names.includes(flag));
  return spec !== undefined && spec.arity !== 'none' && spec.arity !== 'negatable';
}

describe('vLLM argv', () => {
  it('writes each knob as its own flag, the model positional', () => {
    const built = build('vllm', {
      model: 'Qwen/Qwen3-8B',
      servedModelName: 'qwen',
      host: '0.0.0.0',
      port: 8001,
      tensorParallelSize: 2,
      maxModelLen: 32768,
      gpuMemoryFraction: 0.85,
      quantization: 'fp8',
      kvCacheDtype: 'fp8',
      maxRunningRequests: 64,
      chunkedPrefill: true,
      maxBatchedTokens: 8192,
      cudaGraphMaxBatchSize: 16,
      torchCompile: false,
      trustRemoteCode: true,
    });
    expect(built.argv).toEqual([
      'vllm', 'serve', 'Qwen/Qwen3-8B', '--served-model-name', 'qwen', '--host', '0.0.0.0', '--port', '8001', '--tensor-parallel-size', '2',
      '--max-model-len', '32768', '--gpu-memory-utilization', '0.85', '--quantization', 'fp8', '--kv-cache-dtype', 'fp8', '--max-num-seqs', '64',
      '--enable-chunked-prefill', '--max-num-batched-tokens', '8192', '--cuda-graph-sizes', '16', '-O0', '--trust-remote-code',
    ]);
    expect(built.unsupported).toEqual([]);
  });

  it('puts speculative decoding in one --speculative-config JSON and reports what it cannot express', () => {
    const built = build('vllm', { model: 'Qwen/Qwen3-8B', speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 } });
    expect(built.argv.slice(3)).toEqual(['--speculative-config', '{"method":"eagle3","model":"Tengyunw/qwen3_8b_eagle3","num_speculative_tokens":4}']);
    expect(built.unsupported.map((u) => u.knob)).toEqual(['speculative.eagleTopK', 'speculative.numDraftTokens']);
  });

  it('selects the attention backend through VLLM_ATTENTION_BACKEND and checks the name', () => {
    expect(build('vllm', { model: 'm', attentionBackend: 'FLASHINFER' }).env).toEqual({ VLLM_ATTENTION_BACKEND: 'FLASHINFER' });
    const bad = build('vllm', { model: 'm', attentionBackend: 'triton' });
    expect(bad.env).toEqual({});
    // vllm/platforms/cuda.py at 0.11.0 replaces a backend it has no CUDA branch for with the default, without a word.
    expect(bad.unsupported[0]).toMatchObject({ knob: 'attentionBackend', reason: expect.stringMatching(/triton: on NVIDIA GPUs vLLM 0\.11\.0 silently runs its default backend.*choose one of FLASH_ATTN/) });
    expect(build('vllm', { model: 'm', attentionBackend: 'TORCH_SDPA' }).unsupported[0]?.knob).toBe('attentionBackend');
  });

  it('cannot turn chunked prefill off (V1 forces it on) and turns torch.compile on with -O3', () => {
    const built = build('vllm', { model: 'm', chunkedPrefill: false, torchCompile: true });
    expect(built.argv).toEqual(['vllm', 'serve', 'm', '-O3']);
    expect(built.unsupported).toEqual([{ knob: 'chunkedPrefill', reason: expect.stringMatching(/forces chunked prefill on/) }]);
  });

  it('follows the flag that changed across versions', () => {
    expect(build('vllm', { model: 'm', cudaGraphMaxBatchSize: 8 }, '0.12.0').argv).toEqual(['vllm', 'serve', 'm', '--max-cudagraph-capture-size', '8']);
    expect(build('vllm', { model: 'm', torchCompile: true }, '0.13.0').unsupported[0]?.knob).toBe('torchCompile');
  });

  it('appends extra args verbatim, warns when they repeat a typed flag, and keeps secrets out of env', () => {
    const built = build('vllm', {
      model: 'm',
      maxModelLen: 4096,
      extraArgs: ['--max_model_len=8192', '--enable-prefix-caching'],
      env: { NCCL_DEBUG: 'INFO', HF_TOKEN: { secretRef: 'keychain:hf' } },
    });
    expect(built.argv).toEqual(['vllm', 'serve', 'm', '--max-model-len', '4096', '--max_model_len=8192', '--enable-prefix-caching']);
    expect(built.warnings).toEqual([expect.stringMatching(/^--max-model-len is set by the typed config and again in extra args/)]);
    expect(built.env).toEqual({ NCCL_DEBUG: 'INFO' });
    expect(built.secretEnv).toEqual([{ name: 'HF_TOKEN', secretRef: 'keychain:hf' }]);
  });
});

describe('SGLang argv', () => {
  it('maps knobs to launch_server flags', () => {
    const built = build('sglang', {
      model: 'Qwen/Qwen3-8B',
      servedModelName: 'qwen',
      port: 30001,
      tensorParallelSize: 2,
      maxModelLen: 32768,
      gpuMemoryFraction: 0.8,
      quantization: 'fp8',
      kvCacheDtype: 'fp8_e4m3',
      maxRunningRequests: 128,
      maxBatchedTokens: 4096,
      trustRemoteCode: true,
    });
    expect(built.argv.join(' ')).toBe(
      'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --served-model-name qwen --port 30001 --tp-size 2 --context-length 32768 --mem-fraction-static 0.8 --quantization fp8 --kv-cache-dtype fp8_e4m3 --max-running-requests 128 --chunked-prefill-size 4096 --trust-remote-code',
    );
  });

  it('turns chunked prefill off with --chunked-prefill-size -1, and then has no chunk size to set', () => {
    const built = build('sglang', { model: 'm', chunkedPrefill: false, maxBatchedTokens: 4096 });
    expect(built.argv.slice(5)).toEqual(['--chunked-prefill-size', '-1']);
    expect(built.unsupported.map((u) => u.knob)).toEqual(['maxBatchedTokens']);
  });

  it('knows the choices each version added', () => {
    expect(build('sglang', { model: 'm', kvCacheDtype: 'bf16' }, '0.5.3.post3').unsupported[0]?.knob).toBe('kvCacheDtype');
    expect(build('sglang', { model: 'm', kvCacheDtype: 'bf16' }, '0.5.5').argv.slice(-2)).toEqual(['--kv-cache-dtype', 'bf16']);
    expect(build('sglang', { model: 'm', attentionBackend: 'intel_xpu' }, '0.5.5.post1').unsupported).toEqual([]);
    expect(build('sglang', { model: 'm', quantization: 'modelopt_fp8' }, '0.5.3.post3').unsupported[0]?.knob).toBe('quantization');
  });

  it('spells MTP as NEXTN', () => {
    expect(build('sglang', { model: 'm', speculative: { algorithm: 'mtp', numSteps: 3 } }).argv.slice(5)).toEqual([
      '--speculative-algorithm', 'NEXTN', '--speculative-num-steps', '3',
    ]);
  });
});

describe('TensorRT-LLM argv', () => {
  it('writes flags with underscores and =, the rest into the extra_llm_api_options YAML', () => {
    const built = build('trtllm', {
      model: 'Qwen/Qwen3-32B',
      host: '0.0.0.0',
      port: 8000,
      tensorParallelSize: 2,
      maxModelLen: 40960,
      maxRunningRequests: 256,
      chunkedPrefill: true,
      maxBatchedTokens: 16384,
      cudaGraphMaxBatchSize: 64,
      attentionBackend: 'FLASHINFER',
      torchCompile: true,
      trustRemoteCode: true,
    });
    expect(built.argv).toEqual([
      'trtllm-serve', 'Qwen/Qwen3-32B', '--host=0.0.0.0', '--port=8000', '--tp_size=2', '--max_seq_len=40960', '--max_batch_size=256',
      '--enable_chunked_prefill', '--max_num_tokens=16384', '--trust_remote_code', '--extra_llm_api_options=extra_llm_api_options.yaml',
    ]);
    expect(built.extraFiles).toEqual([
      { path: 'extra_llm_api_options.yaml', content: 'cuda_graph_config:\n  max_batch_size: 64\nattn_backend: "FLASHINFER"\ntorch_compile_config: {}\n' },
    ]);
  });

  it('moves the memory fraction into the YAML when the YAML holds kv_cache_config, which would replace the flag', () => {
    const alone = build('trtllm', { model: 'm', gpuMemoryFraction: 0.8 });
    expect(alone.argv).toEqual(['trtllm-serve', 'm', '--kv_cache_free_gpu_memory_fraction=0.8']);
    const withDtype = ENGINE_ADAPTERS.trtllm.buildArgv(parseServerConfig({ model: 'm', gpuMemoryFraction: 0.8, kvCacheDtype: 'fp8' }), '1.2.0rc1', { filesDir: '/runs/r1/' });
    expect(withDtype.argv).toEqual(['trtllm-serve', 'm', '--extra_llm_api_options=/runs/r1/extra_llm_api_options.yaml']);
    expect(withDtype.extraFiles?.[0]?.content).toBe('kv_cache_config:\n  dtype: "fp8"\n  free_gpu_memory_fraction: 0.8\n');
  });

  it('writes EAGLE3 as an Eagle speculative_config and reports what has no equivalent', () => {
    const built = build('trtllm', { model: 'm', speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 } });
    expect(built.extraFiles?.[0]?.content).toBe(
      'speculative_config:\n  decoding_type: "Eagle"\n  speculative_model_dir: "Tengyunw/qwen3_8b_eagle3"\n  max_draft_len: 4\n',
    );
    expect(built.unsupported.map((u) => u.knob)).toEqual(['speculative.eagleTopK', 'speculative.numDraftTokens']);
    const mtp = build('trtllm', { model: 'm', speculative: { algorithm: 'mtp', numSteps: 3 } });
    expect(mtp.extraFiles?.[0]?.content).toBe('speculative_config:\n  decoding_type: "MTP"\n  num_nextn_predict_layers: 3\n');
  });

  it('reports knobs trtllm-serve has no setting for, and everything under an unsupported algorithm', () => {
    const built = build('trtllm', { model: 'm', servedModelName: 'x', quantization: 'fp8', speculative: { algorithm: 'eagle', draftModel: 'd', numSteps: 3 } });
    expect(built.argv).toEqual(['trtllm-serve', 'm']);
    expect(built.extraFiles).toBeUndefined();
    expect(built.unsupported.map((u) => u.knob)).toEqual(['servedModelName', 'quantization', 'speculative.algorithm', 'speculative.draftModel', 'speculative.numSteps']);
  });
});

describe('extraArgsSyntax', () => {
  it('flags names the engine does not have as "unknown flag"', () => {
    const check = extraArgsSyntax('vllm', '0.11.0', ['--max-model-len', '4096', '--max-modle-len', '1']);
    expect(check.ok).toBe(false);
    expect(check.issues).toEqual([{ index: 2, arg: '--max-modle-len', severity: 'error', message: 'unknown flag: --max-modle-len' }]);
  });

  it("reads vLLM's spellings: underscores, =, --no-x, dotted JSON keys, -O3, short aliases", () => {
    const args = ['--max_model_len=4096', '--no-enable-prefix-caching', '--speculative-config.method', 'ngram', '-O3', '-O.cudagraph_mode=FULL', '-tp', '2', '--api-key', 'a', 'b', '--seed', '-1'];
    expect(extraArgsSyntax('vllm', '0.11.0', args).issues).toEqual([]);
  });

  it('tells TensorRT-LLM users about underscores and refuses abbreviations (click has none)', () => {
    const check = extraArgsSyntax('trtllm', '1.2.0rc1', ['--max-seq-len', '4096', '--max_seq', '1', '--max_num_tokens=8192']);
    expect(check.issues.map((i) => i.message)).toEqual(['unknown flag: --max-seq-len (trtllm-serve spells it --max_seq_len)', 'unknown flag: --max_seq']);
  });

  it("refuses a flag the version's parser lacks, and warns on argparse abbreviations", () => {
    const trt = extraArgsSyntax('trtllm', '1.2.0rc1', ['--config', 'x.yaml']);
    expect(trt.ok).toBe(false);
    expect(trt.issues[0]).toMatchObject({ severity: 'error', message: 'unknown flag: --config' });
    const sgl = extraArgsSyntax('sglang', '0.5.3.post3', ['--tp', '2', '--model', 'x', '--enable-torch-comp']);
    expect(sgl.issues.map((i) => [i.severity, i.message])).toEqual([
      ['warning', '--tp is read as --tensor-parallel-size; write the full name, a later flag could make it ambiguous'],
      ['warning', '--enable-torch-comp is read as --enable-torch-compile; write the full name, a later flag could make it ambiguous'],
    ]);
    // 0.5.3.post3's parser also has --enable-torch-symm-mem, so the shorter prefix is ambiguous there.
    expect(extraArgsSyntax('sglang', '0.5.3.post3', ['--enable-torch']).issues[0]?.message).toBe('ambiguous option: --enable-torch could match --enable-torch-compile, --enable-torch-symm-mem');
  });

  it('refuses ambiguous abbreviations, missing values and values given to switches', () => {
    const check = extraArgsSyntax('sglang', '0.5.5', ['--speculative-num', '3', '--context-length', '--trust-remote-code=yes']);
    expect(check.issues.map((i) => i.message)).toEqual([
      'ambiguous option: --speculative-num could match --speculative-num-draft-tokens, --speculative-num-steps',
      'argument --context-length: expected one argument',
      "argument --trust-remote-code: ignored explicit argument 'yes'",
    ]);
  });

  it('checks a version it does not know against the nearest known list, and says so', () => {
    const check = extraArgsSyntax('sglang', '0.5.4.post9', ['--cuda-graph-max-bs', '8']);
    expect(check).toMatchObject({ ok: true, checkedAgainst: '0.5.4.post3' });
    expect(check.issues[0]?.message).toMatch(/0\.5\.4\.post9 is not a version Servelab has the flags of; they are checked against 0\.5\.4\.post3's/);
  });
});

describe('validateExtraArgs refuses flags Servelab writes itself', () => {
  const refused = (engine: EngineId, version: string, args: string[]) =>
    validateExtraArgs(engine, version, args).issues.filter((i) => i.severity === 'error').map((i) => [i.arg, i.message]);

  it('names the typed field to use for --host, --port, the model and each typed knob, in every spelling', () => {
    expect(refused('vllm', '0.11.0', ['--host', '0.0.0.0', '--port=9999', '--model', 'x'])).toEqual([
      ['--host', "--host is set by Servelab (the server listens on the box's 127.0.0.1 unless the host field says otherwise); set the host field instead of passing it in the extra arguments"],
      ['--port=9999', '--port is set by Servelab (the port readiness and the stop checks watch); set the port field instead of passing it in the extra arguments'],
      ['--model', '--model is set by Servelab from the model field; set the model there instead of in the extra arguments'],
    ]);
    expect(refused('vllm', '0.11.0', ['-tp', '2', '--max_model_len=8192', '--gpu-memory-utilization', '0.8', '--trust-remote-code']).map(([, m]) => m)).toEqual([
      '-tp duplicates the typed setting tensorParallelSize; set tensorParallelSize instead (a copy in the extra arguments would silently override it)',
      '--max_model_len duplicates the typed setting maxModelLen; set maxModelLen instead (a copy in the extra arguments would silently override it)',
      '--gpu-memory-utilization duplicates the typed setting gpuMemoryFraction; set gpuMemoryFraction instead (a copy in the extra arguments would silently override it)',
      '--trust-remote-code duplicates the typed setting trustRemoteCode; set trustRemoteCode instead (a copy in the extra arguments would silently override it)',
    ]);
    expect(refused('sglang', '0.5.3.post3', ['--tp', '2', '--model', 'x', '--mem-fraction-static', '0.8']).map(([a]) => a)).toEqual(['--tp', '--model', '--mem-fraction-static']);
    expect(refused('trtllm', '1.2.0rc1', ['--port', '1', '--tp_size', '2', '--max_seq_len=4096']).map(([a]) => a)).toEqual(['--port', '--tp_size', '--max_seq_len=4096']);
  });

  it('still takes what the typed config cannot say', () => {
    for (const [engine, version, args] of [
      ['vllm', '0.11.0', ['--enable-prefix-caching', '--seed', '1', '--speculative-config.method', 'ngram', '-O.cudagraph_mode=FULL']],
      ['vllm', '0.11.0', ['-O3']],
      ['sglang', '0.5.3.post3', ['--disable-radix-cache', '--enable-mixed-chunk']],
      ['trtllm', '1.2.0rc1', ['--backend', 'pytorch']],
    ] as [EngineId, string, string[]][]) {
      expect(validateExtraArgs(engine, version, args).ok, `${engine} ${args.join(' ')}`).toBe(true);
    }
  });
});

describe("install specs (the engines' install guides)", () => {
  it('pins each engine exactly', () => {
    expect(vllmAdapter.installSpec('0.11.0')).toMatchObject({
      pipSpecs: ['vllm==0.11.0'],
      uvArgs: ['--torch-backend=auto'],
      python: '3.12',
      verifyImport: 'import vllm; print(vllm.__version__)',
      dockerImage: 'vllm/vllm-openai:v0.11.0',
    });
    expect(sglangAdapter.installSpec('0.5.3.post3')).toMatchObject({ pipSpecs: ['sglang[all]==0.5.3.post3'], dockerImage: 'lmsysorg/sglang:v0.5.3.post3' });
    expect(sglangAdapter.installSpec('0.5.5').pipSpecs).toEqual(['sglang==0.5.5']);
    expect(sglangAdapter.installSpec('0.5.5.post1').pipSpecs).toEqual(['sglang==0.5.5.post1']);
    expect(trtllmAdapter.installSpec('1.2.0rc1')).toMatchObject({
      pipSpecs: ['tensorrt_llm==1.2.0rc1'],
      vendorIndex: { url: 'https://pypi.nvidia.com', specs: ['tensorrt_llm==1.2.0rc1'] },
      pipArgs: ['--pre'],
      systemPackages: ['libopenmpi-dev'],
      verifyImport: 'import tensorrt_llm; print(tensorrt_llm.__version__)',
      dockerImage: 'nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc1',
    });
  });

  it('knows at least the versions the studies use', () => {
    expect(vllmAdapter.knownVersions).toContain('0.11.0');
    expect(sglangAdapter.knownVersions).toEqual(expect.arrayContaining(['0.5.3.post3', '0.5.5.post1']));
    expect(trtllmAdapter.knownVersions).toContain('1.2.0rc1');
  });
});

describe('readiness (the engines\' servers print their own ready line)', () => {
  it('uses /health and each engine’s ready line', () => {
    for (const engine of ENGINE_IDS) {
      const r = ENGINE_ADAPTERS[engine].readiness;
      expect(r.healthPath).toBe('/health');
      expect(r.healthIsReadyWhen(200)).toBe(true);
      expect(r.healthIsReadyWhen(503)).toBe(false);
    }
    const ready = (engine: EngineId, line: string) => ENGINE_ADAPTERS[engine].readiness.readyLogPatterns.some((p) => p.test(line));
    expect(ready('vllm', 'INFO:     Application startup complete.')).toBe(true);
    expect(ready('trtllm', 'INFO:     Application startup complete.')).toBe(true);
    // SGLang prints that line before its warm-up.
    expect(ready('sglang', 'INFO:     Application startup complete.')).toBe(false);
    expect(ready('sglang', '[2025-10-01 12:00:09] The server is fired up and ready to roll!')).toBe(true);
  });

  it('stops the process group with SIGTERM, then SIGKILL', () => {
    for (const engine of ENGINE_IDS) {
      const stop = ENGINE_ADAPTERS[engine].stopSignals;
      expect(stop.processGroup).toBe(true);
      expect(stop.steps.map((s) => s.signal)).toEqual(['SIGTERM', 'SIGKILL']);
    }
  });
});

describe('versions', () => {
  it('orders PEP 440 versions as pip does', () => {
    const sorted = ['0.5.5.post1', '1.2.0rc1', '0.5.5', '1.2.0', '0.5.3.post3', '0.11.0', '1.2.0rc10', '0.5.5.dev1', '1.2.0rc2'].sort(compareVersions);
    expect(sorted).toEqual(['0.5.3.post3', '0.5.5.dev1', '0.5.5', '0.5.5.post1', '0.11.0', '1.2.0rc1', '1.2.0rc2', '1.2.0rc10', '1.2.0']);
    expect(nearestKnown('0.5.4', ['0.5.3.post3', '0.5.5'])).toBe('0.5.3.post3');
    expect(nearestKnown('0.4.0', ['0.5.3.post3', '0.5.5'])).toBe('0.5.3.post3');
    expect(inRange('0.11.0', { until: '0.12.0' })).toBe(true);
    expect(inRange('0.12.0', { until: '0.12.0' })).toBe(false);
  });
});

describe('parallel layouts', () => {
  it('writes vLLM’s layouts, expert parallelism as the switch whose size is TP × DP', () => {
    expect(build('vllm', { model: 'm', tensorParallelSize: 4, pipelineParallelSize: 2 }, '0.11.0').argv).toEqual(['vllm', 'serve', 'm', '--tensor-parallel-size', '4', '--pipeline-parallel-size', '2']);
    const ep = build('vllm', { model: 'm', tensorParallelSize: 2, dataParallelSize: 4, expertParallelSize: 8, decodeContextParallelSize: 2 }, '0.11.0');
    expect(ep.argv.slice(3)).toEqual(['--tensor-parallel-size', '2', '--data-parallel-size', '4', '--enable-expert-parallel', '--decode-context-parallel-size', '2']);
    expect(ep.unsupported).toEqual([]);
    const odd = build('vllm', { model: 'm', tensorParallelSize: 8, expertParallelSize: 4 }, '0.11.0');
    expect(odd.argv).not.toContain('--enable-expert-parallel');
    expect(odd.unsupported).toEqual([{ knob: 'expertParallelSize', reason: expect.stringMatching(/always TP × DP/) }]);
    expect(build('vllm', { model: 'm', tensorParallelSize: 8, expertParallelSize: 1 }, '0.11.0').unsupported).toEqual([]);
  });

  it('sets vLLM’s all-to-all backend through the variable before 0.11.1 and the flag after', () => {
    const old = build('vllm', { model: 'm', moeAllToAllBackend: 'pplx' }, '0.11.0');
    expect(old.env).toEqual({ VLLM_ALL2ALL_BACKEND: 'pplx' });
    expect(build('vllm', { model: 'm', moeAllToAllBackend: 'mori' }, '0.11.0').unsupported[0]?.knob).toBe('moeAllToAllBackend');
    expect(build('vllm', { model: 'm', moeAllToAllBackend: 'pplx' }, '0.11.1').argv.slice(3)).toEqual(['--all2all-backend', 'pplx']);
    // mori arrives in the parser's choices at 0.15.0 (resources/engine-flags/vllm.json).
    expect(build('vllm', { model: 'm', moeAllToAllBackend: 'mori' }, '0.14.0').unsupported[0]?.knob).toBe('moeAllToAllBackend');
    expect(build('vllm', { model: 'm', moeAllToAllBackend: 'mori' }, '0.15.0').unsupported).toEqual([]);
  });

  it('has no DP-attention switch on vLLM and says how to write that layout', () => {
    expect(build('vllm', { model: 'm', dpAttention: false }).unsupported).toEqual([]);
    expect(build('vllm', { model: 'm', dpAttention: true }).unsupported).toEqual([{ knob: 'dpAttention', reason: expect.stringMatching(/TP1 × DP8 with expertParallelSize 8/) }]);
  });

  it('writes SGLang’s layouts, and DCP only from the release that added it', () => {
    const built = build('sglang', { model: 'm', tensorParallelSize: 8, dataParallelSize: 8, dpAttention: true, expertParallelSize: 8, moeAllToAllBackend: 'deepep', pipelineParallelSize: 1 }, '0.5.5.post1');
    expect(built.argv.slice(5)).toEqual(['--tp-size', '8', '--pp-size', '1', '--dp-size', '8', '--ep-size', '8', '--enable-dp-attention', '--moe-a2a-backend', 'deepep']);
    expect(build('sglang', { model: 'm', decodeContextParallelSize: 2 }, '0.5.14').unsupported).toEqual([{ knob: 'decodeContextParallelSize', reason: expect.stringMatching(/from 0\.5\.15/) }]);
    expect(build('sglang', { model: 'm', decodeContextParallelSize: 2 }, '0.5.15').argv.slice(-2)).toEqual(['--dcp-size', '2']);
    // The parser's choices per release: mooncake from 0.5.3.post2.
    expect(build('sglang', { model: 'm', moeAllToAllBackend: 'mooncake' }, '0.5.3.post1').unsupported[0]?.knob).toBe('moeAllToAllBackend');
    expect(build('sglang', { model: 'm', moeAllToAllBackend: 'mooncake' }, '0.5.3.post2').unsupported).toEqual([]);
  });

  it('writes TensorRT-LLM’s PP and EP as flags and attention DP into the options YAML; it has no plain DP', () => {
    const built = build('trtllm', { model: 'm', tensorParallelSize: 8, pipelineParallelSize: 1, expertParallelSize: 8, dpAttention: true, dataParallelSize: 8 });
    expect(built.argv).toEqual(['trtllm-serve', 'm', '--tp_size=8', '--pp_size=1', '--ep_size=8', '--extra_llm_api_options=extra_llm_api_options.yaml']);
    expect(built.extraFiles?.[0]?.content).toBe('enable_attention_dp: true\n');
    expect(built.unsupported).toEqual([]);
    expect(build('trtllm', { model: 'm', tensorParallelSize: 8, dpAttention: true, dataParallelSize: 4 }).unsupported).toEqual([{ knob: 'dataParallelSize', reason: expect.stringMatching(/spans the whole tensor-parallel group/) }]);
    expect(build('trtllm', { model: 'm', tensorParallelSize: 4, dataParallelSize: 2 }).unsupported).toEqual([{ knob: 'dataParallelSize', reason: expect.stringMatching(/no data-parallel option/) }]);
    expect(build('trtllm', { model: 'm', dataParallelSize: 1 }).unsupported).toEqual([]);
    expect(build('trtllm', { model: 'm', decodeContextParallelSize: 2, moeAllToAllBackend: 'x' }).unsupported.map((u) => u.knob)).toEqual(['decodeContextParallelSize', 'moeAllToAllBackend']);
  });

  it('refuses the layout flags in extra arguments, since typed settings write them', () => {
    const refused = validateExtraArgs('vllm', '0.11.0', ['-pp', '2', '--enable-expert-parallel']).issues.map((i) => i.message);
    expect(refused).toEqual([expect.stringMatching(/^-pp duplicates the typed setting pipelineParallelSize/), expect.stringMatching(/^--enable-expert-parallel duplicates the typed setting expertParallelSize/)]);
  });
});
