// The simulated box's answer to Servelab's model prefetch script: the Hub's real failures, the HF cache layout,
// cache hits, and a token that is never printed.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeBox, envWith, type Box } from './helpers';

const SCRIPT = '# servelab-prefetch\nfrom huggingface_hub import HfApi\n';
const TOKEN = 'hf_simboxTestToken1234567890abcdef';

let box: Box;
let python: string;
beforeAll(() => {
  box = makeBox({ timeScale: 0.0005 });
  python = join(envWith(box, 'envs/vllm', 'vllm==0.11.0'), 'python');
});
afterAll(() => box?.cleanup());

const doneOf = (stdout: string) => JSON.parse(/^SERVELAB_PREFETCH_DONE (.*)$/m.exec(stdout)?.[1] ?? 'null') as { path: string; revision: string; files: number; downloaded: number } | null;

describe('prefetch script on the simulated box', () => {
  it('downloads a catalog model into $HF_HOME/hub with progress lines, then finds it cached', () => {
    const first = box.run(python, ['-c', SCRIPT, 'Qwen/Qwen3-8B']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^SERVELAB_PREFETCH 0\/(\d+) Qwen\/Qwen3-8B@[0-9a-f]{40}$/m);
    expect(first.stdout).toMatch(/^SERVELAB_PREFETCH \d+\/\d+ model-00001-of-00005\.safetensors$/m);
    const done = doneOf(first.stdout);
    expect(done).not.toBeNull();
    expect(done?.path).toBe(join(box.home, '.cache', 'huggingface', 'hub', 'models--Qwen--Qwen3-8B', 'snapshots', done?.revision ?? ''));
    expect(done?.downloaded).toBe(done?.files);
    const files = readdirSync(done?.path ?? '');
    expect(files).toEqual(expect.arrayContaining(['config.json', 'tokenizer.json', 'model.safetensors.index.json', 'model-00005-of-00005.safetensors']));
    expect(files).toHaveLength(done?.files ?? -1);
    expect(readFileSync(join(done?.path ?? '', 'config.json'), 'utf8')).toContain('SERVELAB-SIMULATED');
    expect(readFileSync(join(box.home, '.cache', 'huggingface', 'hub', 'models--Qwen--Qwen3-8B', 'refs', 'main'), 'utf8')).toBe(done?.revision);

    const second = box.run(python, ['-c', SCRIPT, 'Qwen/Qwen3-8B', 'main']);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^SERVELAB_PREFETCH \d+\/\d+ config\.json \(cached\)$/m);
    expect(doneOf(second.stdout)).toEqual({ ...done, downloaded: 0 });
  });

  it('knows the mixture-of-experts models and their FP8 checkpoints, sized as their weights', () => {
    for (const [repo, gib] of [
      ['openai/gpt-oss-120b', 60.7],
      ['openai/gpt-oss-20b', 12.8],
      ['Qwen/Qwen3-30B-A3B', 56.8],
      ['Qwen/Qwen3-30B-A3B-FP8', 29.0],
      ['Qwen/Qwen3-235B-A22B-Instruct-2507', 437.7],
      ['Qwen/Qwen3-235B-A22B-Instruct-2507-FP8', 220.1],
    ] as const) {
      const r = box.run(python, ['-c', SCRIPT, repo]);
      expect(r.code, r.stderr).toBe(0);
      const done = doneOf(r.stdout);
      const weights = readdirSync(done?.path ?? '').filter((f) => f.endsWith('.safetensors'));
      expect(weights.length).toBeGreaterThan(1);
      // Placeholders record the size the file has on the Hub.
      const bytes = weights.map((f) => Number(/\((\d+) bytes on the Hub\)/.exec(readFileSync(join(done?.path ?? '', f), 'utf8'))?.[1])).reduce((a, b) => a + b, 0);
      expect(Math.abs(bytes / 1024 ** 3 / gib - 1)).toBeLessThan(0.01);
    }
  });

  it('follows HF_HOME', () => {
    const hfHome = join(box.home, 'hf-elsewhere');
    const r = box.run(python, ['-c', SCRIPT, 'Qwen/Qwen3-0.6B'], { env: { HF_HOME: hfHome } });
    expect(r.code).toBe(0);
    expect(doneOf(r.stdout)?.path.startsWith(join(hfHome, 'hub', 'models--Qwen--Qwen3-0.6B', 'snapshots'))).toBe(true);
    expect(existsSync(join(box.home, '.cache', 'huggingface', 'hub', 'models--Qwen--Qwen3-0.6B'))).toBe(false);
  });

  it('fails a gated model without HF_TOKEN with GatedRepoError, and downloads it with one without printing it', () => {
    const denied = box.run(python, ['-c', SCRIPT, 'meta-llama/Llama-3.1-8B-Instruct']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('huggingface_hub.errors.GatedRepoError: 401 Client Error.');
    expect(denied.stderr).toMatch(/Cannot access gated repo for url https:\/\/huggingface\.co\/meta-llama\/Llama-3\.1-8B-Instruct\/resolve\/[0-9a-f]{40}\/\.gitattributes\./);
    expect(denied.stderr).toContain('Access to model meta-llama/Llama-3.1-8B-Instruct is restricted. You must have access to it and be authenticated to access it. Please log in.');
    expect(doneOf(denied.stdout)).toBeNull();

    const allowed = box.run(python, ['-c', SCRIPT, 'meta-llama/Llama-3.1-8B-Instruct'], { env: { HF_TOKEN: TOKEN } });
    expect(allowed.code).toBe(0);
    expect(doneOf(allowed.stdout)?.downloaded).toBeGreaterThan(0);
    expect(`${allowed.stdout}${allowed.stderr}`).not.toContain(TOKEN);
  });

  it('fails an unknown repo with RepositoryNotFoundError and an unknown revision with RevisionNotFoundError', () => {
    const unknown = box.run(python, ['-c', SCRIPT, 'nobody/no-such-model']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error.');
    expect(unknown.stderr).toContain('Repository Not Found for url: https://huggingface.co/api/models/nobody/no-such-model.');
    const revision = box.run(python, ['-c', SCRIPT, 'Qwen/Qwen3-8B', 'v9']);
    expect(revision.code).toBe(1);
    expect(revision.stderr).toContain('Revision Not Found for url: https://huggingface.co/api/models/Qwen/Qwen3-8B/revision/v9.');
  });

  it('has no huggingface_hub in an environment without an engine', () => {
    const bare = join(box.home, 'envs', 'bare');
    expect(box.run('python3', ['-m', 'venv', bare]).code).toBe(0);
    const r = box.run(join(bare, 'bin', 'python'), ['-c', SCRIPT, 'Qwen/Qwen3-8B']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("ModuleNotFoundError: No module named 'huggingface_hub'");
  });
});
