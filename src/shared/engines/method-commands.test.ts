// The reference studies' commands, built from typed configs. Where the reference studies spell a flag differently from the adapter
// (an alias, or `--x=v` for `--x v`), the test shows the engine's parser reads both the same.
import { describe, expect, it } from 'vitest';
import { ENGINE_ADAPTERS } from './adapters';
import { canonicalizeArgv } from './flag-syntax';
import { parseServerConfig, type ServerConfigInput } from './server-config';
import type { EngineId } from './types';

const VERSION: Record<EngineId, string> = { vllm: '0.11.0', sglang: '0.5.3.post3', trtllm: '1.2.0rc1' };

function command(engine: EngineId, config: ServerConfigInput, version = VERSION[engine]): string {
  const built = ENGINE_ADAPTERS[engine].buildArgv(parseServerConfig(config), version);
  expect(built.unsupported).toEqual([]);
  expect(built.warnings).toEqual([]);
  return built.argv.join(' ');
}

/** Same words once aliases and `--x=v` are read as the engine's parser reads them. */
function sameForParser(engine: EngineId, a: string, b: string): void {
  const table = ENGINE_ADAPTERS[engine].flagTable(VERSION[engine]);
  expect(canonicalizeArgv(table, a.split(' '))).toEqual(canonicalizeArgv(table, b.split(' ')));
}

describe('Study A (Qwen3-8B, H100): stage 1, engines at their defaults', () => {
  it('builds the three default commands exactly', () => {
    expect(command('vllm', { model: 'Qwen/Qwen3-8B' })).toBe('vllm serve Qwen/Qwen3-8B');
    expect(command('sglang', { model: 'Qwen/Qwen3-8B' })).toBe('python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B');
    expect(command('trtllm', { model: 'Qwen/Qwen3-8B' })).toBe('trtllm-serve Qwen/Qwen3-8B');
  });
});

describe('Study A: stages 2–6 on SGLang', () => {
  const base = 'python3 -m sglang.launch_server --model-path';
  it('stage 2: --cuda-graph-max-bs 8', () => {
    expect(command('sglang', { model: 'Qwen/Qwen3-8B', cudaGraphMaxBatchSize: 8 })).toBe(`${base} Qwen/Qwen3-8B --cuda-graph-max-bs 8`);
  });
  it('stage 3: the FP8 checkpoint', () => {
    expect(command('sglang', { model: 'Qwen/Qwen3-8B-FP8' })).toBe(`${base} Qwen/Qwen3-8B-FP8`);
  });
  it('stage 4: --attention-backend triton and flashinfer', () => {
    for (const backend of ['triton', 'flashinfer']) {
      expect(command('sglang', { model: 'Qwen/Qwen3-8B-FP8', attentionBackend: backend })).toBe(`${base} Qwen/Qwen3-8B-FP8 --attention-backend ${backend}`);
    }
  });
  it('stage 5: the EAGLE3 grid point', () => {
    const built = command('sglang', {
      model: 'Qwen/Qwen3-8B-FP8',
      speculative: { algorithm: 'eagle3', draftModel: 'AngelSlim/Qwen3-8B_eagle3', numSteps: 2, eagleTopK: 1, numDraftTokens: 4 },
    });
    expect(built).toBe(
      `${base} Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path AngelSlim/Qwen3-8B_eagle3 --speculative-num-steps 2 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4`,
    );
  });
  it('stage 6: --enable-torch-compile', () => {
    expect(command('sglang', { model: 'Qwen/Qwen3-8B-FP8', torchCompile: true })).toBe(`${base} Qwen/Qwen3-8B-FP8 --enable-torch-compile`);
  });

  it('the recommended command: same words as the reference studies except --model-path for its alias --model', () => {
    const method =
      'python3 -m sglang.launch_server --model Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16';
    const built = command('sglang', {
      model: 'Qwen/Qwen3-8B-FP8',
      speculative: { algorithm: 'eagle3', draftModel: 'Tengyunw/qwen3_8b_eagle3', numSteps: 4, eagleTopK: 4, numDraftTokens: 16 },
    });
    expect(built).toBe(method.replace('--model ', '--model-path '));
    sameForParser('sglang', built, method);
  });

  it('the generalisation baseline: vllm serve Qwen/Qwen3-8B', () => {
    expect(command('vllm', { model: 'Qwen/Qwen3-8B' })).toBe('vllm serve Qwen/Qwen3-8B');
  });
});

describe('Study B (Qwen3-32B, A100)', () => {
  it('vLLM 0.11.0 with --max-model-len 32768', () => {
    expect(command('vllm', { model: 'Qwen/Qwen3-32B', maxModelLen: 32768 })).toBe('vllm serve Qwen/Qwen3-32B --max-model-len 32768');
  });
  it('SGLang 0.5.5.post1 and TensorRT-LLM 1.2.0rc1 at their defaults', () => {
    expect(command('sglang', { model: 'Qwen/Qwen3-32B' }, '0.5.5.post1')).toBe('python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B');
    expect(command('trtllm', { model: 'Qwen/Qwen3-32B' })).toBe('trtllm-serve Qwen/Qwen3-32B');
  });
  it('the recommended command, exactly as the reference studies write it', () => {
    expect(command('trtllm', { model: 'Qwen/Qwen3-32B', maxModelLen: 40960, chunkedPrefill: true })).toBe(
      'trtllm-serve Qwen/Qwen3-32B --max_seq_len=40960 --enable_chunked_prefill',
    );
  });
  it('stage 3: --max_num_tokens 16384 / 32768 (click reads --max_num_tokens=N and --max_num_tokens N alike)', () => {
    for (const n of [16384, 32768]) {
      const built = command('trtllm', { model: 'Qwen/Qwen3-32B', maxBatchedTokens: n });
      expect(built).toBe(`trtllm-serve Qwen/Qwen3-32B --max_num_tokens=${n}`);
      sameForParser('trtllm', built, `trtllm-serve Qwen/Qwen3-32B --max_num_tokens ${n}`);
    }
  });
  it('builds every command from the study model, so the stage-3 typo (Qwen3-14B) cannot happen', () => {
    const model = 'Qwen/Qwen3-32B';
    for (const extra of [{}, { maxBatchedTokens: 16384 }, { maxModelLen: 40960, chunkedPrefill: true }]) {
      expect(command('trtllm', { model, ...extra }).split(' ')[1]).toBe(model);
    }
  });
});
