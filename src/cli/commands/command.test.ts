import { describe, expect, it } from 'vitest';
import type { CliIo } from '../cli-io';
import { runCommandParse } from './command';

async function parse(text: string, ...options: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: () => undefined, env: {}, cwd: '/' };
  const code = await runCommandParse(['parse', text, ...options], io);
  return { code, stdout };
}

describe('servelab command parse', () => {
  it('says how many GPUs the layout of the pasted command takes', async () => {
    const tp4pp2 = await parse('vllm serve Qwen/Qwen3-32B -tp 4 -pp 2', '--engine-version', '0.11.0');
    expect(tp4pp2.code).toBe(0);
    expect(tp4pp2.stdout).toContain('Model: Qwen/Qwen3-32B\nGPUs: 8 (TP4×PP2)\n');
    expect(tp4pp2.stdout).toContain('  pipelineParallelSize: 2');
    // SGLang's DP attention shares the TP GPUs (docs/basic_usage/deepseek_v32.md at v0.5.5.post1).
    const dpAttention = await parse('python -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2-Exp --tp 8 --ep 8 --dp 8 --enable-dp-attention', '--engine-version', '0.5.5.post1');
    expect(dpAttention.stdout).toContain('GPUs: 8 (TP8×DP-attn8 EP8)');
    expect((await parse('vllm serve m/x', '--engine-version', '0.11.0')).stdout).toContain('GPUs: 1 (TP1)');
  });
});
