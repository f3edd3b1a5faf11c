// The simulated engines parse with the generated flag tables of the installed release (resources/engine-flags):
// a flag exists exactly in the releases whose parser registers it, refusals carry the parsers' own messages
// (CPython 3.11 argparse, click 8.1.3, the strings the tables record), and vLLM's own config checks refuse
// speculative and attention-backend settings as scripts/flag-tables/VALIDATION.md describes.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { envWith, freePort, makeBox, simboxBin, type Box } from './helpers';

interface TableFlag {
  names: string[];
  choices?: string[];
  versions: string[];
}
interface Table {
  versions: { version: string }[];
  flags: TableFlag[];
}
const table = (id: string): Table => JSON.parse(readFileSync(join(repoRoot, 'resources', 'engine-flags', `${id}.json`), 'utf8')) as Table;
const entry = (id: string, name: string, version: string) => table(id).flags.find((f) => f.names.includes(name) && f.versions.includes(version));

const VLLM_TOP_USAGE = 'usage: vllm [-h] [-v] {chat,complete,serve,bench,collect-env,run-batch} ...';
const READY = { vllm: 'Application startup complete.', sglang: 'The server is fired up and ready to roll!', trtllm: 'Application startup complete.' };

let box: Box;
const bins: Record<string, string> = {};
const VLLM_VERSIONS = ['0.11.0', '0.11.1', '0.12.0', '0.13.0', '0.14.1', '0.15.0', '0.17.1'];

beforeAll(() => {
  box = makeBox({ gpu: 'h100', timeScale: 0.0005 });
  for (const v of VLLM_VERSIONS) bins[`vllm-${v}`] = envWith(box, `vllm-${v}`, `vllm==${v}`);
  bins.sglang = envWith(box, 'sglang', 'sglang==0.5.3.post3');
  bins.trtllm = envWith(box, 'trt', 'tensorrt_llm==1.2.0rc1');
}, 120_000);
afterAll(() => box?.cleanup());

const vllm = (version: string) => join(bins[`vllm-${version}`] ?? '', 'vllm');

/** Starts a server, waits until it is ready or has exited; returns its output (and stops it when it came up). */
async function launch(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; ready?: string; pathPrefix?: string } = {}) {
  const port = await freePort();
  const server = box.start(cmd, [...args, '--port', String(port)], { env: opts.env, pathPrefix: opts.pathPrefix });
  const ready = opts.ready ?? READY.vllm;
  const outcome = await Promise.race([server.waitFor(ready, 30_000).then(() => 'ready' as const), server.exited.then((code) => code)]);
  if (outcome === 'ready') {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  return { outcome, output: server.output(), port };
}

/** Starts a vLLM-compatible server, runs one short long-context benchmark against it, stops it: the result block. */
async function benchAgainst(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}, pathPrefix?: string) {
  // Re-seeding resets the launch counter, so each server runs as the first launch: only its flags differ.
  expect(box.run(join(simboxBin, 'simbox'), ['config', '--seed', '0']).code).toBe(0);
  const port = await freePort();
  const server = box.start(cmd, [...args, '--port', String(port)], { env, pathPrefix });
  await server.waitFor('Application startup complete.', 30_000);
  const r = box.run(vllm('0.11.0'), ['bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--port', String(port), '--dataset-name', 'random', '--random-input-len', '8000', '--random-output-len', '64', '--num-prompts', '12', '--max-concurrency', '4']);
  server.child.kill('SIGTERM');
  await server.exited;
  expect(r.code, r.stderr).toBe(0);
  const lines = r.stdout.split('\n').filter((l) => /^(Mean|Median|P99) (TTFT|TPOT|ITL)/.test(l));
  expect(lines.length).toBeGreaterThan(3);
  return { lines, log: server.output() };
}

describe('vllm serve takes its flags from the table of the installed release', () => {
  it('--enable-lora-bias exists in 0.11.0 only: accepted there, refused by 0.11.1 like the top-level vllm parser (exit 2)', async () => {
    expect(entry('vllm', '--enable-lora-bias', '0.11.0')).toBeDefined();
    expect(entry('vllm', '--enable-lora-bias', '0.11.1')).toBeUndefined();
    const accepted = await launch(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--enable-lora-bias']);
    expect(accepted.outcome).toBe('ready');
    expect(accepted.output).toContain("'enable_lora_bias': True");
    const refused = box.run(vllm('0.11.1'), ['serve', 'Qwen/Qwen3-8B', '--enable-lora-bias']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`${VLLM_TOP_USAGE}\nvllm: error: unrecognized arguments: --enable-lora-bias\n`);
  });

  it('--aggregate-engine-logging, added in 0.11.1, is refused by 0.11.0 and accepted by 0.11.1', async () => {
    expect(entry('vllm', '--aggregate-engine-logging', '0.11.0')).toBeUndefined();
    const refused = box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--aggregate-engine-logging', '--port', '8000']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`${VLLM_TOP_USAGE}\nvllm: error: unrecognized arguments: --aggregate-engine-logging\n`);
    expect((await launch(vllm('0.11.1'), ['serve', 'Qwen/Qwen3-8B', '--aggregate-engine-logging'])).outcome).toBe('ready');
  });

  it("refuses a value outside the release's choices, a missing value and an ambiguous prefix with argparse's messages", () => {
    // fp8_ds_mla joins --kv-cache-dtype's choices in 0.11.1; the message lists 0.11.0's, repr()-quoted.
    const choices = entry('vllm', '--kv-cache-dtype', '0.11.0')?.choices ?? [];
    expect(choices).not.toContain('fp8_ds_mla');
    const r = box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--kv-cache-dtype', 'fp8_ds_mla']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`usage: vllm serve [model_tag] [options]\nvllm serve: error: argument --kv-cache-dtype: invalid choice: 'fp8_ds_mla' (choose from ${choices.map((c) => `'${c}'`).join(', ')})\n`);
    // An int-typed choice list: the value is converted first, and printed without quotes.
    const block = box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--block-size', '3']);
    expect(block.stderr).toContain('vllm serve: error: argument --block-size: invalid choice: 3 (choose from 1, 8, 16, 32, 64, 128)\n');
    // 256 is a choice from 0.11.1 (the trailing --port without a value stops the server before it starts).
    const later = box.run(vllm('0.11.1'), ['serve', 'Qwen/Qwen3-8B', '--block-size', '256', '--port']);
    expect(later.stderr).toBe('usage: vllm serve [model_tag] [options]\nvllm serve: error: argument --port: expected one argument\n');
    const missing = box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--port']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('usage: vllm serve [model_tag] [options]\nvllm serve: error: argument --port: expected one argument\n');
    // An ambiguous prefix is refused by the subcommand's parser (Lib/argparse.py _parse_optional).
    const ambiguous = box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--enable-lo']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^usage: vllm serve \[model_tag\] \[options\]\nvllm serve: error: ambiguous option: --enable-lo could match (--enable-lo[\w-]+(, |\n$)){4}/);
    for (const name of ['--enable-lora', '--enable-lora-bias', '--enable-log-outputs', '--enable-log-requests']) expect(ambiguous.stderr).toContain(name);
    const prefix = box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--enable-lora-b', '--port']);
    // At 0.11.0 the prefix names one flag (--enable-lora-bias), so argparse takes it and goes on to --port.
    expect(prefix.stderr).toContain('argument --port: expected one argument');
  });

  it("follows FlexibleArgumentParser: '_' for '-', unique prefixes, --model per release, -O per release", async () => {
    const underscore = await launch(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--max_num_seqs', '8', '--gpu-memory-util', '0.85']);
    expect(underscore.outcome).toBe('ready');
    expect(underscore.output).toContain("'max_num_seqs': 8, 'gpu_memory_utilization': 0.85");
    // 0.11.0 raises ValueError for `vllm serve --model X`; 0.11.1 warns and moves X to the positional tag.
    const old = box.run(vllm('0.11.0'), ['serve', '--model', 'Qwen/Qwen3-8B']);
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('ValueError: With `vllm serve`, you should provide the model as a positional argument or in a config file instead of via the `--model` option.');
    const moved = await launch(vllm('0.11.1'), ['serve', '--model', 'Qwen/Qwen3-8B']);
    expect(moved.outcome).toBe('ready');
    expect(moved.output).toMatch(/^WARNING .*\[argparse_utils\.py\] With `vllm serve`, you should provide the model as a positional argument or in a config file instead of via the `--model` option\. The `--model` option will be removed in v0\.13\.$/m);
    // -O3: a --compilation-config key `level` (0.11.0), `mode` (0.11.1–0.11.2), --optimization-level from 0.12.0.
    expect((await launch(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '-O3'])).output).toContain("'compilation_config': {'level': 3}");
    expect((await launch(vllm('0.11.1'), ['serve', 'Qwen/Qwen3-8B', '-O3'])).output).toContain("'compilation_config': {'mode': 3}");
    const level = await launch(vllm('0.12.0'), ['serve', 'Qwen/Qwen3-8B', '-O3']);
    expect(level.output).toContain("'optimization_level': '3'");
    expect(level.output).not.toContain('compilation_config');
    expect(box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--optimization-level', '3']).stderr).toContain('vllm: error: unrecognized arguments: --optimization-level 3');
  });

  it('the API server module (the vLLM image) parses the same table with its own prog and takes --model', async () => {
    const py = join(bins['vllm-0.11.0'] ?? '', 'python3');
    const r = box.run(py, ['-m', 'vllm.entrypoints.openai.api_server', '--model', 'Qwen/Qwen3-8B', '--aggregate-engine-logging']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^usage: api_server\.py \[/);
    expect(r.stderr).toMatch(/\napi_server\.py: error: unrecognized arguments: --aggregate-engine-logging\n$/);
    expect((await launch(py, ['-m', 'vllm.entrypoints.openai.api_server', '--model', 'Qwen/Qwen3-8B'])).outcome).toBe('ready');
  });
});

describe('vllm bench serve takes its flags from the table too', () => {
  it('--endpoint-type is 0.11.0 only, a unique prefix is accepted, --model is required up to 0.13.0', () => {
    const down = String(1); // a port nobody listens on: parsing succeeds, the ready check then fails (exit 1)
    const ok = box.run(vllm('0.11.0'), ['bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--endpoint-type', 'openai', '--random-input', '100', '--port', down, '--ready-check-timeout-sec', '0', '--num-prompts', '1']);
    expect(ok.stdout).toContain('random_input_len=100');
    expect(ok.stderr).not.toContain('unrecognized arguments');
    const refused = box.run(vllm('0.11.1'), ['bench', 'serve', '--model', 'Qwen/Qwen3-8B', '--endpoint-type', 'openai']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(`${VLLM_TOP_USAGE}\nvllm: error: unrecognized arguments: --endpoint-type openai\n`);
    const noModel = box.run(vllm('0.13.0'), ['bench', 'serve', '--port', down]);
    expect(noModel.code).toBe(2);
    expect(noModel.stderr).toBe('usage: vllm bench serve [options]\nvllm bench serve: error: the following arguments are required: --model\n');
    const fetches = box.run(vllm('0.14.1'), ['bench', 'serve', '--port', down]);
    expect(fetches.stdout).toContain('Model not specified, fetching first model from server...');
    expect(fetches.stderr).toContain(`RuntimeError: Failed to fetch models from server at http://127.0.0.1:${down}/v1/models.`);
  });
});

describe('SGLang and TensorRT-LLM take their flags from their tables', () => {
  it('SGLang 0.5.3.post3: --enable-torch is an ambiguous prefix, --mem-frac a unique one, --model_path unknown', async () => {
    const py = join(bins.sglang ?? '', 'python3');
    const r = box.run(py, ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--enable-torch']);
    expect(r.code).toBe(2);
    // argparse lists the candidates in registration order (server_args.py@85ebeecf0694: --enable-torch-symm-mem at
    // :2735, --enable-torch-compile at :2776); the tables keep entries sorted by name, so the simbox lists them so.
    expect(r.stderr).toMatch(/\nlaunch_server\.py: error: ambiguous option: --enable-torch could match --enable-torch-(compile|symm-mem), --enable-torch-(compile|symm-mem)\n$/);
    expect(r.stderr).toContain('--enable-torch-compile');
    expect(r.stderr).toContain('--enable-torch-symm-mem');
    expect(r.stderr).toMatch(/^usage: launch_server\.py /);
    const unknown = box.run(py, ['-m', 'sglang.launch_server', '--model_path', 'Qwen/Qwen3-8B']);
    expect(unknown.stderr).toMatch(/\nlaunch_server\.py: error: the following arguments are required: --model-path\/--model\n$/);
    const choice = box.run(py, ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--speculative-algorithm', 'eagle3']);
    expect(choice.stderr).toMatch(/\nlaunch_server\.py: error: argument --speculative-algorithm: invalid choice: 'eagle3' \(choose from 'EAGLE', 'EAGLE3', 'NEXTN', 'STANDALONE', 'NGRAM'\)\n$/);
    const prefix = await launch(py, ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--mem-frac', '0.8'], { ready: READY.sglang });
    expect(prefix.outcome).toBe('ready');
    expect(prefix.output).toContain('mem_fraction_static=0.8');
  });

  it("trtllm-serve 1.2.0rc1 refuses --tool_parser (added later) and dashed names with click's message (exit 2)", () => {
    expect(table('trtllm').flags.some((f) => f.names.includes('--tool_parser'))).toBe(false);
    const trt = join(bins.trtllm ?? '', 'trtllm-serve');
    const r = box.run(trt, ['Qwen/Qwen3-8B', '--tool_parser', 'qwen3']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("Usage: trtllm-serve serve [OPTIONS] MODEL\nTry 'trtllm-serve serve --help' for help.\n\nError: No such option: --tool_parser Did you mean --reasoning_parser?\n");
    expect(box.run(trt, ['Qwen/Qwen3-8B', '--max-batch-size', '8']).stderr).toContain('Error: No such option: --max-batch-size Did you mean --max_batch_size?\n');
    expect(box.run(trt, ['Qwen/Qwen3-8B', '--tp', '2']).stderr).toContain('Error: No such option: --tp (Possible options: --host, --port, --tp_size)\n');
    expect(box.run(trt, ['Qwen/Qwen3-8B', '--backend', 'torch']).stderr).toContain("Error: Invalid value for '--backend': 'torch' is not one of 'pytorch', 'tensorrt', '_autodeploy', 'trt'.\n");
  });

  it('TensorRT-LLM reads the YAML keys of its LLM-args table, and an unknown attn_backend silently runs TRTLLM', async () => {
    const trt = join(bins.trtllm ?? '', 'trtllm-serve');
    const yaml = (name: string, text: string) => {
      const path = join(box.home, name);
      writeFileSync(path, text);
      return path;
    };
    const bad = box.run(trt, ['Qwen/Qwen3-8B', '--extra_llm_api_options', yaml('bad.yaml', 'enable_sleep: true\n')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('enable_sleep\n  Extra inputs are not permitted [type=extra_forbidden');
    const base = await benchAgainst(trt, ['Qwen/Qwen3-8B']);
    const unknown = await benchAgainst(trt, ['Qwen/Qwen3-8B', '--extra_llm_api_options', yaml('unknown.yaml', 'attn_backend: flash_attention\n')]);
    const vanilla = await benchAgainst(trt, ['Qwen/Qwen3-8B', '--extra_llm_api_options', yaml('vanilla.yaml', 'attn_backend: VANILLA\n')]);
    expect(unknown.lines).toEqual(base.lines);
    expect(vanilla.lines).not.toEqual(base.lines);
  });
});

describe("vLLM's own checks of the speculative config", () => {
  it('EAGLE3 without num_speculative_tokens: _verify_args without a draft model, range(None) with one (0.17 checks first)', async () => {
    const noModel = box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--speculative-config', '{"method": "eagle3"}', '--port', String(await freePort())]);
    expect(noModel.code).toBe(1);
    expect(noModel.stderr).toContain(
      'pydantic_core._pydantic_core.ValidationError: 1 validation error for SpeculativeConfig\n(APIServer pid=',
    );
    expect(noModel.stderr).toContain('  Value error, num_speculative_tokens must be provided with speculative model unless the draft model config contains an n_predict parameter.');
    const withModel = box.run(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B', '--speculative-config.method', 'eagle3', '--speculative-config.model', 'Tengyunw/qwen3_8b_eagle3', '--port', String(await freePort())]);
    expect(withModel.code).toBe(1);
    expect(withModel.stderr).toContain("TypeError: 'NoneType' object cannot be interpreted as an integer");
    const late = box.run(vllm('0.17.1'), ['serve', 'Qwen/Qwen3-8B', '--speculative-config', '{"method": "eagle3", "model": "Tengyunw/qwen3_8b_eagle3"}', '--port', String(await freePort())]);
    expect(late.stderr).toContain('Value error, A speculative model was provided, but neither `speculative_token_tree` nor `num_speculative_tokens` was provided');
  });

  it('method draft_model: NotImplementedError up to 0.14.1, accepted from 0.15.0', async () => {
    const config = '{"method": "draft_model", "model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 3}';
    const refused = box.run(vllm('0.14.1'), ['serve', 'Qwen/Qwen3-8B', '--speculative-config', config, '--port', String(await freePort())]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('NotImplementedError: Speculative decoding with draft model is not supported yet. Please consider using other speculative decoding methods such as ngram, medusa, eagle, or mtp.');
    const accepted = await launch(vllm('0.15.0'), ['serve', 'Qwen/Qwen3-8B', '--speculative-config', config]);
    expect(accepted.outcome).toBe('ready');
    expect(accepted.output).toContain("speculative_config=SpeculativeConfig(method='draft_model', model='Qwen/Qwen3-0.6B', num_spec_tokens=3)");
  });
});

describe("vLLM's VLLM_ATTENTION_BACKEND per release", () => {
  it('0.11.0: a valid name without a CUDA branch runs the default, says what the default says, and performs as it', async () => {
    const base = await benchAgainst(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B']);
    const sdpa = await benchAgainst(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B'], { VLLM_ATTENTION_BACKEND: 'TORCH_SDPA' });
    const flex = await benchAgainst(vllm('0.11.0'), ['serve', 'Qwen/Qwen3-8B'], { VLLM_ATTENTION_BACKEND: 'FLEX_ATTENTION' });
    expect(base.log).toMatch(/\(EngineCore_DP0 pid=\d+\) INFO .* \[cuda\.py\] Using Flash Attention backend on V1 engine\.\n/);
    expect(sdpa.log).toMatch(/\[cuda\.py\] Using Flash Attention backend on V1 engine\.\n/);
    expect(flex.log).toMatch(/\[cuda\.py\] Using FlexAttention backend on V1 engine\.\n/);
    expect(sdpa.lines).toEqual(base.lines);
    expect(flex.lines).not.toEqual(base.lines);
  });

  it('0.11.0–0.14.1 refuse a name outside the enum (envs.py env_with_choices); 0.13.0 warns it is deprecated; 0.15.0 ignores it', async () => {
    const old = box.run(vllm('0.11.1'), ['serve', 'Qwen/Qwen3-8B', '--port', String(await freePort())], { env: { VLLM_ATTENTION_BACKEND: 'FLASH_ATTENTION' } });
    expect(old.code).toBe(1);
    expect(old.stderr).toContain('pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig');
    expect(old.stderr).toContain("  Value error, Invalid value 'FLASH_ATTENTION' for VLLM_ATTENTION_BACKEND. Valid options: ['FLASH_ATTN', 'TRITON_ATTN', 'XFORMERS', ");
    const mid = box.run(vllm('0.14.1'), ['serve', 'Qwen/Qwen3-8B', '--port', String(await freePort())], { env: { VLLM_ATTENTION_BACKEND: 'flashinfer' } });
    expect(mid.stderr).toContain("1 validation error for AttentionConfig\n(APIServer pid=");
    expect(mid.stderr).toContain("Value error, Invalid value 'flashinfer' for VLLM_ATTENTION_BACKEND.");
    const deprecated = await launch(vllm('0.13.0'), ['serve', 'Qwen/Qwen3-8B'], { env: { VLLM_ATTENTION_BACKEND: 'TRITON_ATTN' } });
    expect(deprecated.outcome).toBe('ready');
    expect(deprecated.output).toContain('[attention.py] Using VLLM_ATTENTION_BACKEND environment variable is deprecated and will be removed in v0.14.0 or v1.0.0, whichever is soonest.');
    expect(deprecated.output).toContain('[cuda.py] Using AttentionBackendEnum.TRITON_ATTN backend.');
    const ignored = await launch(vllm('0.15.0'), ['serve', 'Qwen/Qwen3-8B'], { env: { VLLM_ATTENTION_BACKEND: 'NOT_A_BACKEND' } });
    expect(ignored.outcome).toBe('ready');
    expect(ignored.output).not.toContain('VLLM_ATTENTION_BACKEND');
    expect(ignored.output).not.toContain('NOT_A_BACKEND');
  });

  it('from 0.13.0 --attention-backend is upper-cased and looked up in the enum; an unknown name is a ValueError', async () => {
    expect(box.run(vllm('0.12.0'), ['serve', 'Qwen/Qwen3-8B', '--attention-backend', 'FLASHINFER']).stderr).toContain('vllm: error: unrecognized arguments: --attention-backend FLASHINFER');
    const used = await launch(vllm('0.17.1'), ['serve', 'Qwen/Qwen3-8B', '--attention-backend', 'flashinfer']);
    expect(used.output).toContain('[cuda.py] Using AttentionBackendEnum.FLASHINFER backend.');
    const unknown = box.run(vllm('0.17.1'), ['serve', 'Qwen/Qwen3-8B', '--attention-backend', 'flash', '--port', String(await freePort())]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("ValueError: Unknown attention backend: 'FLASH'. Valid options are: FLASH_ATTN, FLASH_ATTN_DIFFKV, TRITON_ATTN,");
  });
});

describe('the simulated package index', () => {
  it('offers every release the flag tables cover', () => {
    const env = join(box.home, 'index-probe');
    expect(box.run('python3', ['-m', 'venv', env]).code).toBe(0);
    for (const [pkg, id] of [['vllm', 'vllm'], ['sglang', 'sglang'], ['tensorrt_llm', 'trtllm']] as const) {
      const r = box.run(join(env, 'bin', 'pip'), ['install', '--pre', `${pkg}==0.0.1`]);
      const offered = /\(from versions: ([^)]*)\)/.exec(r.stderr)?.[1]?.split(', ') ?? [];
      for (const { version } of table(id).versions) expect(offered, `${pkg} ${version}`).toContain(version);
    }
  });
});
