// `servelab command parse` as a user runs it: the built bin, a real process, exit codes and --json.
// Commands: the reference guides (tests/fixtures/guides) and the engines' docs; the refused flag is vLLM's
// --attention-backend, which the flag tables have from 0.13.0 on.
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { runBuiltCli } from '../helpers/cli';

function runCli(args: string[], stdin?: string) {
  return runBuiltCli(args, { cwd: repoRoot, stdin });
}

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('The CLI is not built: run `npm run build` (npm test does it first).');
});

// The recommended command of the Qwen3-8B latency guide, as it prints it: five lines joined by `\`.
const guide = readFileSync(join(repoRoot, 'tests', 'fixtures', 'guides', 'qwen3-8b-h100-latency.tr.txt'), 'utf8');
const RECOMMENDED = /python3 -m sglang\.launch_server \\\n(?:.*\\\n)*.*\n/.exec(guide)?.[0] as string;

describe('servelab command parse', () => {
  it('exits 0 for a command valid at its version and prints the typed settings and the equivalent command', async () => {
    expect(RECOMMENDED.split('\n').length).toBeGreaterThan(3);
    const result = await runCli(['command', 'parse', RECOMMENDED, '--engine-version', '0.5.3.post3']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('SGLang 0.5.3.post3 (as given by --engine-version)');
    expect(result.stdout).toContain('Model: Qwen/Qwen3-8B-FP8');
    expect(result.stdout).toContain('  speculative.algorithm: eagle3');
    expect(result.stdout).toContain(
      '  python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16',
    );
  });

  it('prints JSON with --json, reads the command from standard input with -, and takes the version from the image tag', async () => {
    const text = 'docker run --gpus all --ipc=host vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-32B --max-model-len 32768';
    const result = await runCli(['command', 'parse', '-', '--json'], text);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json).toEqual({
      engine: 'vllm',
      version: '0.11.0',
      versionFrom: 'image',
      config: { model: 'Qwen/Qwen3-32B', maxModelLen: 32768, extraArgs: [], env: {} },
      refused: [],
      warnings: [],
      credentials: [],
      docker: { image: 'vllm/vllm-openai:v0.11.0', args: ['--gpus', 'all', '--ipc=host'] },
      command: 'docker run --gpus all --ipc=host vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-32B --max-model-len 32768',
    });
  });

  it('exits 1 naming the refused flag and the version, and accepts the same flag at the release that added it', async () => {
    const command = 'vllm serve Qwen/Qwen3-8B --attention-backend FLASHINFER';
    const old = await runCli(['command', 'parse', command, '--engine-version', '0.11.0']);
    expect(old.code).toBe(1);
    expect(old.stdout).toContain('Refused:\n  - --attention-backend is not a flag of vLLM 0.11.0: it was added in 0.13.0');
    const json = await runCli(['command', 'parse', command, '--engine-version', '0.11.0', '--json']);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as { refused: unknown }).refused).toEqual([{ flag: '--attention-backend', message: '--attention-backend is not a flag of vLLM 0.11.0: it was added in 0.13.0' }]);
    const added = await runCli(['command', 'parse', '--engine-version', '0.13.0', '--', 'vllm', 'serve', 'Qwen/Qwen3-8B', '--attention-backend', 'FLASHINFER']);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('  attentionBackend: FLASHINFER');
  });

  it('never prints a pasted credential, however spelled, and refuses a value a command substitution would make', async () => {
    // Hand-written: a secret that is not token-shaped, so only the flag and variable names can keep it out.
    const secret = 'pasted-secret-value-42';
    const text = `HF_TOKEN=${secret} vllm serve Qwen/Qwen3-8B --api-ke ${secret} --tensor-parallel-size $(nvidia-smi -L | wc -l)`;
    for (const args of [['command', 'parse', '-', '--engine-version', '0.11.0'], ['command', 'parse', '-', '--engine-version', '0.11.0', '--json']]) {
      const result = await runCli(args, text);
      expect(result.code).toBe(1);
      expect(result.stdout + result.stderr).not.toContain(secret);
      expect(result.stdout).toContain('--tensor-parallel-size $(nvidia-smi -L | wc -l) takes its value from a command');
      expect(result.stdout).toContain('--api-ke is left out');
      expect(result.stdout).toMatch(args.includes('--json') ? /"credentials": \[\s*"HF_TOKEN",\s*"--api-key"\s*\]/ : /Left out as credentials \(values kept nowhere\): HF_TOKEN, --api-key/);
    }
  });

  it('exits 1 when no serve command can be read, and 2 for usage', async () => {
    const none = await runCli(['command', 'parse', 'echo hello']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no vllm serve, python3 -m sglang.launch_server or trtllm-serve command found');
    expect((await runCli(['command', 'parse'])).code).toBe(2);
    expect((await runCli(['command', 'parse', 'vllm', 'serve'])).code).toBe(2);
    expect((await runCli(['command', 'parse', 'vllm serve m/x', '--engine-version', 'latest'])).code).toBe(2);
    expect((await runCli(['command', 'frobnicate'])).code).toBe(2);
    const help = await runCli(['--help']);
    expect(help.stdout).toContain('command parse "<serve command>"');
  });
});
