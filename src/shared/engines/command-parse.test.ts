// Pasted serve commands read into typed configurations and built back, on commands published on GitHub and in the
// engines' docs (URL on each). The reference guides' commands: tests/integration/command-parse-guides.test.ts.
import { describe, expect, it } from 'vitest';
import { commandOfParsed, parseServeCommand, type ParsedServeCommand } from './command-parse';
import { ENGINE_ADAPTERS } from './adapters';
import { versionsWithFlag } from './flag-tables';


function parsed(text: string, options: { engineVersion?: string } = {}): ParsedServeCommand {
  const result = parseServeCommand(text, options);
  if ('error' in result) throw new Error(result.error);
  return result;
}

/** Parse, build back, parse the built command: both readings must be the same for the engine's parser. */
function roundTrip(text: string, options: { engineVersion?: string } = {}): { first: ParsedServeCommand; again: ParsedServeCommand; printed: string } {
  const first = parsed(text, options);
  const printed = commandOfParsed(first);
  const again = parsed(printed, { engineVersion: first.version });
  expect(again.canonical).toEqual(first.canonical);
  expect(again.config).toEqual(first.config);
  return { first, again, printed };
}

describe('the version', () => {
  it('refuses a flag the version lacks, naming the version, and accepts it in the release that added it', () => {
    // vLLM's --attention-backend is in the flag tables from 0.13.0 on (resources/engine-flags/vllm.json).
    const versions = versionsWithFlag('vllm', '--attention-backend');
    expect(versions[0]).toBe('0.13.0');
    expect(versions).not.toContain('0.11.0');
    const command = 'vllm serve Qwen/Qwen3-8B --attention-backend FLASHINFER';
    const old = parsed(command, { engineVersion: '0.11.0' });
    expect(old.refused).toEqual([{ flag: '--attention-backend', message: '--attention-backend is not a flag of vLLM 0.11.0: it was added in 0.13.0' }]);
    expect(old.config.extraArgs).toEqual(['--attention-backend', 'FLASHINFER']);
    const added = parsed(command, { engineVersion: '0.13.0' });
    expect(added.refused).toEqual([]);
    // From 0.13.0 it is the typed attention backend.
    expect(added.config.attentionBackend).toBe('FLASHINFER');
    expect(added.config.extraArgs).toEqual([]);
  });

  it('refuses an SGLang flag from a later release the same way', () => {
    const versions = versionsWithFlag('sglang', '--cuda-graph-backend-decode');
    expect(versions.length).toBeGreaterThan(0);
    const first = versions[0] as string;
    const before = ENGINE_ADAPTERS.sglang.knownVersions.filter((v) => !versions.includes(v));
    const older = before[before.length - 1] as string;
    const command = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --cuda-graph-backend-decode x';
    const refused = parsed(command, { engineVersion: older }).refused;
    expect(refused).toHaveLength(1);
    expect(refused[0]?.message).toMatch(new RegExp(`^--cuda-graph-backend-decode is not a flag of SGLang ${older.replace(/\./g, '\\.')}`));
    expect(parsed(command, { engineVersion: first }).refused.filter((r) => r.flag === '--cuda-graph-backend-decode' && /not a flag/.test(r.message))).toEqual([]);
  });

  it('comes from the option, else a pip install in the snippet, else the image tag, else the newest tabled', () => {
    expect(parsed('vllm serve m/x', { engineVersion: '0.12.0' })).toMatchObject({ version: '0.12.0', versionFrom: 'option' });
    const pip = parsed('pip install vllm==0.10.1 && vllm serve m/x');
    expect(pip).toMatchObject({ version: '0.10.1', versionFrom: 'command' });
    expect(pip.warnings).toContain("vLLM 0.10.1 is not a version Servelab has the flags of; the command is checked against 0.11.0's");
    expect(parsed('docker run --gpus all vllm/vllm-openai:v0.11.0 --model m/x')).toMatchObject({ version: '0.11.0', versionFrom: 'image' });
    expect(parsed('docker run --gpus all lmsysorg/sglang:v0.5.3.post3-cu126 python3 -m sglang.launch_server --model-path m/x')).toMatchObject({
      engine: 'sglang',
      version: '0.5.3.post3',
      versionFrom: 'image',
    });
    expect(parsed('docker run --gpus all nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc1 trtllm-serve m/x')).toMatchObject({ engine: 'trtllm', version: '1.2.0rc1', versionFrom: 'image' });
    const newest = ENGINE_ADAPTERS.sglang.knownVersions.at(-1);
    expect(parsed('python3 -m sglang.launch_server --model-path m/x')).toMatchObject({ version: newest, versionFrom: 'newest' });
  });
});

describe('commands as published', () => {
  it('variables in front, `\\` lines and a JSON value over three lines (github.com/adibaral/lmcache-experiments serve_cpu_offloading.sh)', () => {
    const text = `LMCACHE_CONFIG_FILE=lmcache_config.yaml \\
vllm serve meta-llama/Llama-3.1-8B-Instruct \\
    --quantization bitsandbytes \\
    --max-model-len 8192 \\
    --gpu-memory-utilization 0.9 \\
    --kv-transfer-config \\
    '{"kv_connector":"LMCacheConnectorV1",
      "kv_role":"kv_both"
    }'
`;
    const { first, printed } = roundTrip(text, { engineVersion: '0.11.0' });
    expect(first.config).toMatchObject({ model: 'meta-llama/Llama-3.1-8B-Instruct', quantization: 'bitsandbytes', maxModelLen: 8192, gpuMemoryFraction: 0.9, env: { LMCACHE_CONFIG_FILE: 'lmcache_config.yaml' } });
    expect(first.config.extraArgs).toEqual(['--kv-transfer-config', '{"kv_connector":"LMCacheConnectorV1",\n      "kv_role":"kv_both"\n    }']);
    expect(first.refused).toEqual([]);
    expect(printed.startsWith('LMCACHE_CONFIG_FILE=lmcache_config.yaml vllm serve meta-llama/Llama-3.1-8B-Instruct ')).toBe(true);
  });

  it('a negated switch and the port kept (github.com/moyiii-ai/vllm srs_test/lmcache_vllm0.sh)', () => {
    const text = `LMCACHE_CONFIG_FILE=lmcache_config.yaml \\
CUDA_VISIBLE_DEVICES=0 \\
vllm serve meta-llama/Llama-3.1-8B \\
    --gpu-memory-utilization 0.8 \\
    --no-enable-prefix-caching \\
    --port 8000 --kv-transfer-config \\
    '{"kv_connector":"LMCacheConnectorV1", "kv_role":"kv_both"}'`;
    const { first } = roundTrip(text, { engineVersion: '0.11.0' });
    expect(first.config).toMatchObject({ port: 8000, gpuMemoryFraction: 0.8, env: { LMCACHE_CONFIG_FILE: 'lmcache_config.yaml' } });
    // The GPUs are the study's to choose.
    expect(first.warnings).toContain("CUDA_VISIBLE_DEVICES=0 is left out: Servelab chooses the GPUs from the study's hosts");
    expect(first.config.extraArgs).toEqual(['--no-enable-prefix-caching', '--kv-transfer-config', '{"kv_connector":"LMCacheConnectorV1", "kv_role":"kv_both"}']);
    expect(first.refused).toEqual([]);
  });

  it('a launch script: variables the script sets, `trtllm-serve serve`, a log pipe and an options file it cannot see (github.com/taco-project/FlexKV examples/trt_adaption/launch.sh)', () => {
    const text = `mkdir -p logs
TIMESTAMP=$(date +%Y.%m.%d-%H:%M:%S)
MODEL_PATH=/cfs_zhongwei/models/deepseek-ai/DeepSeek-V3.1-W4AFP8-MTP
MAX_SEQ_LEN=49152
MAX_NUM_TOKENS=24576
TP_SIZE=8
EP_SIZE=$TP_SIZE

# MODEL_PATH=/cfs_zhongwei/models/Qwen3-0.6B

export FLEXKV_CONFIG_PATH="./flexkv_config.json"
export MODEL_PATH=$MODEL_PATH
# export CUDA_LAUNCH_BLOCKING=1
export TENSORRT_LLM_USE_FLEXKV=1

trtllm-serve serve $MODEL_PATH \\
    --host 0.0.0.0 \\
    --port 6000 \\
    --backend pytorch \\
    --tp_size $TP_SIZE \\
    --ep_size $EP_SIZE \\
    --max_seq_len $MAX_SEQ_LEN \\
    --max_num_tokens $MAX_NUM_TOKENS \\
    --max_batch_size 16 \\
    --kv_cache_free_gpu_memory_fraction 0.75 \\
    --extra_llm_api_options extra-llm-api-config-cg.yml 2>&1 | tee logs/$TIMESTAMP.log 
`;
    const { first } = roundTrip(text, { engineVersion: '1.2.0rc1' });
    expect(first.config).toMatchObject({
      model: '/cfs_zhongwei/models/deepseek-ai/DeepSeek-V3.1-W4AFP8-MTP',
      host: '0.0.0.0',
      port: 6000,
      tensorParallelSize: 8,
      expertParallelSize: 8,
      maxModelLen: 49152,
      maxBatchedTokens: 24576,
      maxRunningRequests: 16,
      gpuMemoryFraction: 0.75,
    });
    expect(first.config.env).toMatchObject({ FLEXKV_CONFIG_PATH: './flexkv_config.json', TENSORRT_LLM_USE_FLEXKV: '1' });
    expect(first.config.extraArgs).toEqual(['--backend', 'pytorch', '--extra_llm_api_options', 'extra-llm-api-config-cg.yml']);
    expect(first.refused).toEqual([]);
    expect(first.warnings).toContain('--extra_llm_api_options extra-llm-api-config-cg.yml: Servelab cannot see that file; it is passed as written and must exist where the server runs');
  });

  it('the options YAML from a here-document, kept whole when it holds settings Servelab does not model (github.com/NVIDIA/TensorRT-LLM/pull/6880)', () => {
    const text = `# Create the configuration file
cat > extra-llm-api-options.yaml << 'EOF'
cuda_graph_config: null
attn_backend: "FLASHINFER"
kv_cache_config:
  enable_block_reuse: false
EOF

trtllm-serve google/gemma-3-1b-it --extra_llm_api_options extra-llm-api-options.yaml`;
    const { first, printed } = roundTrip(text, { engineVersion: '1.2.0rc1' });
    expect(first.files).toEqual([{ path: 'extra-llm-api-options.yaml', content: 'cuda_graph_config: null\nattn_backend: "FLASHINFER"\nkv_cache_config:\n  enable_block_reuse: false\n' }]);
    expect(first.config.extraArgs).toEqual(['--extra_llm_api_options', 'extra-llm-api-options.yaml']);
    expect(first.canonical).toContain('yaml {"attn_backend":"FLASHINFER","cuda_graph_config":null,"kv_cache_config":{"enable_block_reuse":false}}');
    expect(printed).toMatch(/^cat > extra-llm-api-options\.yaml <<'EOF'\n/);
    expect(first.refused).toEqual([]);
  });

  it('the vLLM image with its entrypoint’s --model, the docs’ $ prompt, and a token left out (docs.vllm.ai/en/latest/serving/deploying_with_docker.html)', () => {
    const text = `$ docker run --runtime nvidia --gpus all \\
    -v ~/.cache/huggingface:/root/.cache/huggingface \\
    --env "HUGGING_FACE_HUB_TOKEN=<secret>" \\
    -p 8000:8000 \\
    --ipc=host \\
    vllm/vllm-openai:latest \\
    --model mistralai/Mistral-7B-v0.1`;
    const { first, printed } = roundTrip(text);
    expect(first).toMatchObject({ engine: 'vllm', versionFrom: 'newest', config: { model: 'mistralai/Mistral-7B-v0.1', env: {} } });
    expect(first.docker).toEqual({ image: 'vllm/vllm-openai:latest', args: ['--runtime', 'nvidia', '--gpus', 'all', '-v', '~/.cache/huggingface:/root/.cache/huggingface', '-e', 'HUGGING_FACE_HUB_TOKEN', '-p', '8000:8000', '--ipc=host'] });
    expect(first.warnings).toContain('HUGGING_FACE_HUB_TOKEN holds a credential: its value is left out (give it as a secret reference)');
    expect(printed).not.toContain('<secret>');
    expect(printed).toMatch(/vllm\/vllm-openai:latest --model mistralai\/Mistral-7B-v0\.1$/);
  });
});

describe('edge cases (hand-written)', () => {
  it('reads an options YAML of mapped keys from <(echo …) into typed knobs and writes it back as a file', () => {
    const text = `trtllm-serve Qwen/Qwen3-8B --extra_llm_api_options <(echo 'kv_cache_config:
  dtype: fp8
  free_gpu_memory_fraction: 0.8
cuda_graph_config:
  max_batch_size: 64')`;
    const { first, printed } = roundTrip(text, { engineVersion: '1.2.0rc1' });
    expect(first.config).toMatchObject({ kvCacheDtype: 'fp8', gpuMemoryFraction: 0.8, cudaGraphMaxBatchSize: 64, extraArgs: [] });
    expect(printed).toContain('cat > extra_llm_api_options.yaml');
  });

  it('reads MTP speculative decoding from the options YAML as the typed speculative settings (the section of github.com/NVIDIA/TensorRT-LLM/pull/14391)', () => {
    const text = `cat > spec.yaml <<EOF
speculative_config:
  decoding_type: MTP
  num_nextn_predict_layers: 3
EOF
trtllm-serve deepseek-ai/DeepSeek-R1 --tp_size 8 --extra_llm_api_options spec.yaml`;
    const { first } = roundTrip(text, { engineVersion: '1.2.0rc1' });
    expect(first.config).toMatchObject({ tensorParallelSize: 8, speculative: { algorithm: 'mtp', numSteps: 3 }, extraArgs: [] });
    expect(first.files).toBeUndefined();
  });

  it('refuses a YAML key the version’s LLM API lacks, naming the version', () => {
    const text = `trtllm-serve m/x --extra_llm_api_options <(printf 'no_such_key: 1\\n')`;
    const result = parsed(text, { engineVersion: '1.2.0rc1' });
    expect(result.refused).toEqual([{ flag: '--extra_llm_api_options: no_such_key', message: "no_such_key is not a key of TensorRT-LLM 1.2.0rc1's --extra_llm_api_options YAML" }]);
  });

  it('reads -O3 and an env-chosen attention backend as vLLM 0.11.0’s typed knobs', () => {
    const { first } = roundTrip('VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve m/x -O3 -tp 2', { engineVersion: '0.11.0' });
    expect(first.config).toMatchObject({ torchCompile: true, attentionBackend: 'FLASHINFER', tensorParallelSize: 2, env: {}, extraArgs: [] });
  });

  it('reads SGLang’s --chunked-prefill-size -1 as chunked prefill off, and N as the chunk size', () => {
    expect(parsed('python3 -m sglang.launch_server --model-path m/x --chunked-prefill-size -1', { engineVersion: '0.5.5.post1' }).config.chunkedPrefill).toBe(false);
    expect(parsed('python3 -m sglang.launch_server --model-path m/x --chunked-prefill-size 4096', { engineVersion: '0.5.5.post1' }).config.maxBatchedTokens).toBe(4096);
  });

  it('keeps the last copy of a flag set twice, as argparse does, and says so', () => {
    const result = parsed('vllm serve m/x --max-model-len 1024 --max-model-len 2048', { engineVersion: '0.11.0' });
    expect(result.config.maxModelLen).toBe(2048);
    expect(result.warnings).toContain('--max-model-len 1024 is set again later; vLLM keeps the last one');
  });

  it('reads --no-x as x off, and of --x and --no-x the last written, in the reading and in the rebuilt command', () => {
    // vLLM 0.11.0's table lists --no-enable-chunked-prefill among the BooleanOptionalAction's names.
    const off = roundTrip('vllm serve m/x --no-enable-chunked-prefill', { engineVersion: '0.11.0' }).first;
    expect(off.config.chunkedPrefill).toBeUndefined();
    expect(off.config.extraArgs).toEqual(['--no-enable-chunked-prefill']);
    const onThenOff = roundTrip('vllm serve m/x --enable-chunked-prefill --no-enable-chunked-prefill', { engineVersion: '0.11.0' }).first;
    const offThenOn = roundTrip('vllm serve m/x --no-enable-chunked-prefill --enable-chunked-prefill', { engineVersion: '0.11.0' }).first;
    expect(onThenOff.canonical).not.toEqual(offThenOn.canonical);
    expect(offThenOn.config).toMatchObject({ chunkedPrefill: true, extraArgs: [] });
    expect(offThenOn.warnings).toContain('--no-enable-chunked-prefill is set again later; vLLM keeps the last one');
    expect(onThenOff.warnings).toEqual(['--enable-chunked-prefill is set again later; vLLM keeps the last one']);
  });

  it('keeps a value the typed knob cannot hold verbatim (an unexpanded variable)', () => {
    const result = parsed('vllm serve m/x --max-model-len $LEN', { engineVersion: '0.11.0' });
    expect(result.config.extraArgs).toEqual(['--max-model-len', '$LEN']);
    expect(result.warnings).toContain('$LEN is kept as written: Servelab does not expand shell variables');
  });

  it('reads the first of two server commands, and says so', () => {
    const result = parsed('vllm serve m/a --port 8000 &\nvllm serve m/b --port 8001 &\nwait', { engineVersion: '0.11.0' });
    expect(result.config).toMatchObject({ model: 'm/a', port: 8000 });
    expect(result.warnings).toContain('the text holds more than one server command; the first is read');
  });

  it('leaves out a TensorRT-LLM flag whose section the options YAML replaces, as the engine does', () => {
    const text = `trtllm-serve m/x --kv_cache_free_gpu_memory_fraction 0.7 --extra_llm_api_options <(echo 'kv_cache_config:
  dtype: fp8')`;
    const { first } = roundTrip(text, { engineVersion: '1.2.0rc1' });
    expect(first.config).toMatchObject({ kvCacheDtype: 'fp8', extraArgs: [] });
    expect(first.config.gpuMemoryFraction).toBeUndefined();
    expect(first.warnings).toContain('--kv_cache_free_gpu_memory_fraction 0.7 is left out: TensorRT-LLM takes kv_cache_config from the --extra_llm_api_options YAML instead');
  });

  it('reads an argparse abbreviation as the flag it stands for, with a warning', () => {
    const { first } = roundTrip('python3 -m sglang.launch_server --model-path m/x --cuda-graph-max 8', { engineVersion: '0.5.3.post3' });
    expect(first.config.cudaGraphMaxBatchSize).toBe(8);
    expect(first.warnings).toContain('--cuda-graph-max is read as --cuda-graph-max-bs; write the full name, a later flag could make it ambiguous');
  });

  it('leaves credentials out of the configuration, the warnings and the rebuilt command', () => {
    const token = 'hf_abcdefghijklmnopqrstuvwxyz012345';
    const key = 'sk-abcdefghijklmnopqrstuvwxyz0123456789';
    const text = `HF_TOKEN=${token} MY_SETTING=${token} vllm serve m/x --api-key ${key} --max-model-len 10 ${key}`;
    const { first, printed } = roundTrip(text, { engineVersion: '0.11.0' });
    expect(first.config).toEqual({ model: 'm/x', maxModelLen: 10, extraArgs: [], env: {} });
    const everything = JSON.stringify(first) + printed;
    expect(everything).not.toContain(token);
    expect(everything).not.toContain(key);
    expect(first.warnings.filter((w) => w.includes('left out'))).toHaveLength(4);
  });

  it('leaves out a credential flag however argparse lets it be spelled: abbreviated, with `_`, after docker’s attached -e', () => {
    const secret = 'not-token-shaped-but-secret';
    for (const text of [
      `vllm serve m/x --api-ke ${secret}`,
      `vllm serve m/x --api_key=${secret}`,
      `python3 -m sglang.launch_server --model-path m/x --api-k ${secret}`,
      `docker run --gpus all -eHF_TOKEN=${secret} vllm/vllm-openai:v0.11.0 --model m/x`,
    ]) {
      const result = parsed(text);
      const everything = JSON.stringify(result) + commandOfParsed(result);
      expect(everything, text).not.toContain(secret);
      expect(result.warnings.some((w) => /left out|holds a credential/.test(w)), text).toBe(true);
      expect(result.credentials, text).toEqual([text.includes('HF_TOKEN') ? 'HF_TOKEN' : '--api-key']);
    }
  });

  it('never takes a command substitution’s text as a value: the flag is refused and left out, the rest is read', () => {
    const result = parsed('vllm serve m/x --tensor-parallel-size $(nvidia-smi -L | wc -l) --served-model-name `hostname` --max-model-len 4096', { engineVersion: '0.11.0' });
    expect(result.config).toEqual({ model: 'm/x', maxModelLen: 4096, extraArgs: [], env: {} });
    expect(result.refused.map((r) => r.flag)).toEqual(['--tensor-parallel-size', '--served-model-name']);
    expect(result.refused[0]?.message).toBe('--tensor-parallel-size $(nvidia-smi -L | wc -l) takes its value from a command; Servelab never runs pasted text: write the value itself');
    expect(parseServeCommand('vllm serve $(cat model.txt)')).toEqual({ error: 'the model is the output of a command ($(cat model.txt)); Servelab never runs pasted text: write the model itself' });
    const env = parsed('HF_HOME="$(pwd)/hf" vllm serve m/x', { engineVersion: '0.11.0' });
    expect(env.config.env).toEqual({});
    expect(env.warnings).toContain('HF_HOME is left out: its value runs a command, and Servelab never runs pasted text (set the value itself)');
  });

  it('refuses a <( … ) anywhere but the options YAML, and an options YAML whose <( … ) is not a plain print, keeping neither', () => {
    const other = parsed("vllm serve m/x --chat-template <(echo '{{ x }}')", { engineVersion: '0.11.0' });
    expect(other.config.extraArgs).toEqual([]);
    expect(other.refused).toEqual([{ flag: '--chat-template', message: "--chat-template: Servelab reads a <( … ) only as TensorRT-LLM's --extra_llm_api_options YAML; give a file path instead" }]);
    const yaml = parsed('trtllm-serve m/x --extra_llm_api_options <(echo "a: 1"; touch /tmp/x)', { engineVersion: '1.2.0rc1' });
    expect(yaml.config.extraArgs).toEqual([]);
    expect(yaml.refused.map((r) => r.flag)).toEqual(['--extra_llm_api_options']);
    // A substitution inside the print would be run by the shell: not read either.
    expect(parsed('trtllm-serve m/x --extra_llm_api_options <(echo "$(cat a.yaml)")', { engineVersion: '1.2.0rc1' }).refused.map((r) => r.flag)).toEqual(['--extra_llm_api_options']);
  });

  it('rebuilds a command run in an image other than the engine’s own whole, and says when the tag names no version', () => {
    const custom = roundTrip('docker run --gpus all registry.example/vllm-custom:0.11.0 vllm serve m/x --max-model-len 4096').first;
    expect(custom.warnings).toEqual([`Servelab cannot tell the vLLM version of the image registry.example/vllm-custom:0.11.0 from its tag; the command is read as ${custom.version}'s`]);
    expect(commandOfParsed(custom)).toBe('docker run --gpus all registry.example/vllm-custom:0.11.0 vllm serve m/x --max-model-len 4096');
    const latest = roundTrip('docker run --gpus all vllm/vllm-openai:latest --model m/x').first;
    expect(latest.versionFrom).toBe('newest');
    expect(latest.warnings).toEqual([`Servelab cannot tell the vLLM version of the image vllm/vllm-openai:latest from its tag; the command is read as ${latest.version}'s`]);
    expect(commandOfParsed(latest)).toBe('docker run --gpus all vllm/vllm-openai:latest --model m/x');
  });

  it('does not read an options YAML the shell would expand (an unquoted here-document with $ in it) as its text', () => {
    const text = 'cat > extra.yaml <<EOF\nkv_cache_config:\n  free_gpu_memory_fraction: $FRACTION\nEOF\ntrtllm-serve m/x --extra_llm_api_options extra.yaml';
    const result = parsed(text, { engineVersion: '1.2.0rc1' });
    expect(result.config.gpuMemoryFraction).toBeUndefined();
    expect(result.config.extraArgs).toEqual(['--extra_llm_api_options', 'extra.yaml']);
    expect(result.warnings).toContain('--extra_llm_api_options extra.yaml: Servelab cannot see that file; it is passed as written and must exist where the server runs');
  });

  it('says that vllm serve’s positional model replaces --model', () => {
    const result = parsed('vllm serve m/positional --model m/flag', { engineVersion: '0.11.0' });
    expect(result.config.model).toBe('m/positional');
    expect(result.warnings).toContain('--model m/flag is not used: vLLM serves the positional model m/positional');
  });

  it('answers an error for text with no server command or no model', () => {
    expect(parseServeCommand('echo hello')).toEqual({ error: 'no vllm serve, python3 -m sglang.launch_server or trtllm-serve command found' });
    expect(parseServeCommand('python3 -m sglang.launch_server --port 1')).toEqual({ error: 'the SGLang command names no model' });
    expect(parseServeCommand("vllm serve 'm/x")).toEqual({ error: 'cannot read the command: a single quote is not closed' });
    expect(parseServeCommand('docker run -v /a\0b:/c vllm/vllm-openai:v0.11.0 --model m/x')).toEqual({ error: 'cannot read the command: it holds a NUL character' });
    expect(parseServeCommand('python3 -m sglang.launch_server Qwen/Qwen3-8B --port 30000')).toEqual({ error: 'SGLang takes the model as --model-path, not as the bare argument Qwen/Qwen3-8B' });
    const token = 'hf_abcdefghijklmnopqrstuvwxyz012345';
    expect(parseServeCommand(`docker run --label key=${token} vllm/vllm-openai:v0.11.0 --model m/x`)).toEqual({ error: 'a docker run option holds a token (hf_…, sk-…, ghp_…); remove it and paste the command again' });
  });
});

describe('parallel layouts', () => {
  it('reads TP, DP, expert parallelism and the all-to-all backend of vLLM’s own EP example, and builds it back', () => {
    // docs/serving/expert_parallel_deployment.md at v0.12.0 ("Single node EP deployment with pplx backend"), comments left out.
    const { first, printed } = roundTrip('vllm serve deepseek-ai/DeepSeek-V3-0324 --tensor-parallel-size 1 --data-parallel-size 8 --enable-expert-parallel --all2all-backend pplx', { engineVersion: '0.12.0' });
    // --enable-expert-parallel spans TP × DP (fused_moe/config.py FusedMoEParallelConfig.make).
    expect(first.config).toMatchObject({ tensorParallelSize: 1, dataParallelSize: 8, expertParallelSize: 8, moeAllToAllBackend: 'pplx', extraArgs: [] });
    expect(first.warnings).toEqual([]);
    expect(printed).toBe('vllm serve deepseek-ai/DeepSeek-V3-0324 --tensor-parallel-size 1 --data-parallel-size 8 --enable-expert-parallel --all2all-backend pplx');
  });

  it('reads short spellings, and the all-to-all backend from VLLM_ALL2ALL_BACKEND before 0.11.1', () => {
    const { first } = roundTrip('VLLM_ALL2ALL_BACKEND=pplx vllm serve m/x -tp 2 -pp 2 -dp 2 --enable-expert-parallel', { engineVersion: '0.11.0' });
    expect(first.config).toMatchObject({ tensorParallelSize: 2, pipelineParallelSize: 2, dataParallelSize: 2, expertParallelSize: 4, moeAllToAllBackend: 'pplx', env: {} });
    // From 0.11.1 the flag holds it and the variable stays a variable.
    expect(parsed('VLLM_ALL2ALL_BACKEND=pplx vllm serve m/x', { engineVersion: '0.11.1' }).config).toMatchObject({ env: { VLLM_ALL2ALL_BACKEND: 'pplx' } });
    expect(parsed('vllm serve m/x -dcp 2 -tp 4', { engineVersion: '0.11.0' }).config).toMatchObject({ tensorParallelSize: 4, decodeContextParallelSize: 2 });
  });

  it('leaves out --enable-expert-parallel on one GPU, where vLLM does not apply it', () => {
    const p = parsed('vllm serve m/x --enable-expert-parallel', { engineVersion: '0.11.0' });
    expect(p.config.expertParallelSize).toBeUndefined();
    expect(p.config.extraArgs).toEqual([]);
    expect(p.warnings).toEqual(['--enable-expert-parallel is left out: vLLM applies it only when tensorParallelSize × dataParallelSize is more than 1']);
  });

  it('reads SGLang’s DP attention with expert parallelism from its DeepSeek V3.2 guide', () => {
    // docs/basic_usage/deepseek_v32.md at v0.5.5.post1.
    const { first, printed } = roundTrip('python -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2-Exp --tp 8 --ep 8 --dp 8 --enable-dp-attention', { engineVersion: '0.5.5.post1' });
    expect(first.config).toMatchObject({ tensorParallelSize: 8, expertParallelSize: 8, dataParallelSize: 8, dpAttention: true, extraArgs: [] });
    expect(printed).toBe('python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2-Exp --tp-size 8 --dp-size 8 --ep-size 8 --enable-dp-attention');
  });

  it('reads TensorRT-LLM’s attention DP from the options YAML, its DP size being the TP size', () => {
    const { first } = roundTrip("trtllm-serve m/x --tp_size=8 --ep_size=4 --pp_size=1 --extra_llm_api_options <(echo 'enable_attention_dp: true')", { engineVersion: '1.2.0rc1' });
    expect(first.config).toMatchObject({ tensorParallelSize: 8, expertParallelSize: 4, pipelineParallelSize: 1, dpAttention: true, dataParallelSize: 8 });
  });
});
