import { describe, expect, it } from 'vitest';
import { displayCommand, shellWord } from './command-display';

describe('shellWord', () => {
  it('leaves plain words alone and single-quotes the rest so a shell reads them back unchanged', () => {
    expect(shellWord('--max_seq_len=40960')).toBe('--max_seq_len=40960');
    expect(shellWord('Qwen/Qwen3-8B-FP8')).toBe('Qwen/Qwen3-8B-FP8');
    expect(shellWord('{"method":"eagle3"}')).toBe(`'{"method":"eagle3"}'`);
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('a b')).toBe(`'a b'`);
    expect(shellWord('$HOME')).toBe(`'$HOME'`);
    expect(shellWord('')).toBe(`''`);
  });
});

describe('displayCommand', () => {
  it('puts environment assignments first', () => {
    expect(displayCommand(['vllm', 'serve', 'm'], { VLLM_ATTENTION_BACKEND: 'FLASHINFER', X: 'a b' })).toBe(`VLLM_ATTENTION_BACKEND=FLASHINFER X='a b' vllm serve m`);
  });
});
