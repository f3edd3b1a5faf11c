import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServelabError } from '../../shared/contract';
import type { EngineBox } from './engine-box';
import { parseDoneLine, parseProgressLine, prefetchArgv, prefetchModel, prefetchScript, PREFETCH_SCRIPT_MARKER } from './model-prefetch';

describe('prefetch script', () => {
  it('carries the marker, takes the repo and revision as argv and never names a token value', () => {
    const script = prefetchScript();
    expect(script.split('\n')[0]).toBe(PREFETCH_SCRIPT_MARKER);
    expect(script).toContain('from huggingface_hub import HfApi, hf_hub_download, try_to_load_from_cache');
    expect(script).not.toMatch(/HF_TOKEN|token/i);
    expect(prefetchArgv('/e/bin/python', 'Qwen/Qwen3-8B')).toEqual(['/e/bin/python', '-c', script, 'Qwen/Qwen3-8B']);
    expect(prefetchArgv('/e/bin/python', "o'rg/x", 'v1.0')).toEqual(['/e/bin/python', '-c', script, "o'rg/x", 'v1.0']);
  });

  it('parses progress and done lines', () => {
    expect(parseProgressLine('SERVELAB_PREFETCH 3/15 config.json (cached)')).toEqual({ done: 3, total: 15, line: 'config.json (cached)' });
    expect(parseProgressLine('SERVELAB_PREFETCH 0/15')).toEqual({ done: 0, total: 15 });
    expect(parseProgressLine('INFO something else')).toBeNull();
    expect(parseDoneLine('x\nSERVELAB_PREFETCH_DONE {"path":"/c/s/abc","revision":"abc","files":2,"downloaded":1}\n')).toEqual({ path: '/c/s/abc', revision: 'abc', files: 2, downloaded: 1 });
    expect(parseDoneLine('SERVELAB_PREFETCH_DONE {"path":null}\n')).toBeNull();
  });
});

// The script under a real CPython, with a small stand-in for huggingface_hub that keeps the Hub's cache layout: this
// checks the script's own logic (argv, what counts as cached, the snapshot path it reports).
const python = ['python3', 'python'].find((p) => spawnSync(p, ['--version']).status === 0);
describe.skipIf(!python)('prefetch script under CPython', () => {
  let dir: string;
  const FAKE_HUB = `
import os
CACHE = os.environ["FAKE_CACHE"]
SHA = "0123456789abcdef0123456789abcdef01234567"
class _S:
    def __init__(self, n): self.rfilename = n
class _I:
    def __init__(self, sha, names): self.sha = sha; self.siblings = [_S(n) for n in names]
class HfApi:
    def model_info(self, repo_id, revision=None):
        with open(os.path.join(CACHE, "calls"), "a") as f: f.write("info %s %s\\n" % (repo_id, revision))
        return _I(SHA, ["config.json", "sub/model.safetensors"])
def _path(repo_id, filename, revision):
    return os.path.join(CACHE, "models--" + repo_id.replace("/", "--"), "snapshots", revision, filename)
def try_to_load_from_cache(repo_id, filename, cache_dir=None, revision=None, repo_type=None):
    p = _path(repo_id, filename, revision)
    return p if os.path.exists(p) else None
def hf_hub_download(repo_id, filename, revision=None):
    with open(os.path.join(CACHE, "calls"), "a") as f: f.write("download %s %s %s\\n" % (repo_id, filename, revision))
    p = _path(repo_id, filename, SHA)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write("x")
    return p
`;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'servelab-prefetch-'));
    mkdirSync(join(dir, 'lib', 'huggingface_hub'), { recursive: true });
    writeFileSync(join(dir, 'lib', 'huggingface_hub', '__init__.py'), FAKE_HUB);
    mkdirSync(join(dir, 'cache'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (args: string[]) => {
    const [, ...rest] = prefetchArgv(python as string, args[0] as string, args[1]);
    return spawnSync(python as string, rest, { env: { PATH: process.env.PATH, PYTHONPATH: join(dir, 'lib'), FAKE_CACHE: join(dir, 'cache') }, encoding: 'utf8' });
  };

  it('downloads each file with progress lines, reports the snapshot folder, then finds everything cached', () => {
    const snapshot = join(dir, 'cache', 'models--org--m', 'snapshots', '0123456789abcdef0123456789abcdef01234567');
    const first = run(['org/m', 'v2']);
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(['SERVELAB_PREFETCH 0/2 org/m@0123456789abcdef0123456789abcdef01234567', 'SERVELAB_PREFETCH 1/2 config.json', 'SERVELAB_PREFETCH 2/2 sub/model.safetensors']);
    expect(parseDoneLine(first.stdout)).toEqual({ path: snapshot, revision: '0123456789abcdef0123456789abcdef01234567', files: 2, downloaded: 2 });

    expect(readFileSync(join(dir, 'cache', 'calls'), 'utf8')).toBe('info org/m v2\ndownload org/m config.json v2\ndownload org/m sub/model.safetensors v2\n');

    const second = run(['org/m']);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('SERVELAB_PREFETCH 2/2 sub/model.safetensors (cached)');
    expect(parseDoneLine(second.stdout)).toEqual({ path: snapshot, revision: '0123456789abcdef0123456789abcdef01234567', files: 2, downloaded: 0 });
    expect(readFileSync(join(dir, 'cache', 'calls'), 'utf8').endsWith('info org/m None\n')).toBe(true);
  });
});

describe('prefetchModel before any job', () => {
  function box(files: string[]): EngineBox & { scripts: string[] } {
    const scripts: string[] = [];
    return {
      hostId: 'h',
      scripts,
      async run(script) {
        scripts.push(script);
        if (script.includes('SERVELAB_HOME')) return { stdout: 'SERVELAB_HOME=/home/u\nSERVELAB_PATH=/usr/bin\n', stderr: '', code: 0 };
        const present = files.some((f) => script.includes(`test -e ${f} `) || script.includes(`test -f ${f}`));
        return { stdout: present ? 'present\n' : '', stderr: '', code: 0 };
      },
      jobs() {
        throw new Error('no job may start in these cases');
      },
      async httpRequest() {
        throw new Error('unused');
      },
    };
  }

  it('skips a path that exists on the box (with ~ expanded), and refuses one that does not', async () => {
    const result = await prefetchModel(box(['/home/u/models/Qwen3-8B']), { engine: 'vllm', version: '0.11.0', model: '~/models/Qwen3-8B' });
    expect(result).toMatchObject({ ok: true, skipped: true, localPath: '/home/u/models/Qwen3-8B', downloaded: 0 });
    await expect(prefetchModel(box([]), { engine: 'vllm', version: '0.11.0', model: '/data/none' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses ids and revisions that are not the Hub’s, a missing token, and an engine that is not installed', async () => {
    const refuse = async (request: Parameters<typeof prefetchModel>[1], code: string) => {
      const error = await prefetchModel(box([]), request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ServelabError);
      expect((error as ServelabError).code).toBe(code);
      return error as ServelabError;
    };
    await refuse({ engine: 'vllm', version: '0.11.0', model: 'a b/c' }, 'BAD_INPUT');
    await refuse({ engine: 'vllm', version: '0.11.0', model: 'org/m', revision: '../x' }, 'BAD_INPUT');
    await refuse({ engine: 'nope', version: '0.11.0', model: 'org/m' }, 'BAD_INPUT');
    const missing = await refuse({ engine: 'vllm', version: '0.11.0', model: 'org/m', hfTokenRef: 'hf-token', resolveSecret: async () => null }, 'NOT_FOUND');
    expect(missing.message).toContain('"hf-token" is not in the keychain');
    const notInstalled = await refuse({ engine: 'vllm', version: '0.11.0', model: 'org/m' }, 'NOT_FOUND');
    expect(notInstalled.message).toContain('install it first');
  });
});

describe('prefetchModel reading the job log', () => {
  /** A box whose engine is installed and whose prefetch job prints `chunks` (the same string objects, repeated). */
  function streamingBox(chunks: () => Iterable<string>, code: number): EngineBox {
    return {
      hostId: 'h',
      async run(script) {
        if (script.includes('SERVELAB_HOME')) return { stdout: 'SERVELAB_HOME=/home/u\nSERVELAB_PATH=/usr/bin\n', stderr: '', code: 0 };
        return { stdout: 'present\n', stderr: '', code: 0 };
      },
      jobs() {
        return {
          async start() {
            return {
              id: 'job',
              async stream(onChunk: (text: string, offset: number, end: number) => void) {
                let offset = 0;
                for (const chunk of chunks()) {
                  onChunk(chunk, offset, offset + chunk.length);
                  offset += chunk.length;
                }
                return code;
              },
            };
          },
        } as unknown as ReturnType<EngineBox['jobs']>;
      },
      async httpRequest() {
        throw new Error('unused');
      },
    };
  }
  // 1 MiB of warnings in 16 long lines.
  const noise = `${'W'.repeat(64 * 1024 - 1)}\n`.repeat(16);
  const done = 'SERVELAB_PREFETCH_DONE {"path":"/c/snapshots/abc","revision":"abc","files":3,"downloaded":3}\n';

  it('reads a log longer than a string can hold, keeping only its tail (and the done line)', { timeout: 60_000 }, async () => {
    // 600 MiB: more than V8's longest string (2^29 - 24 characters), so a job log kept whole cannot even be built.
    const result = await prefetchModel(
      streamingBox(function* () {
        yield 'SERVELAB_PREFETCH 0/3 org/m@abc\n';
        yield done;
        for (let i = 0; i < 600; i++) yield noise;
      }, 0),
      { engine: 'vllm', version: '0.11.0', model: 'org/m' },
    );
    expect(result).toMatchObject({ ok: true, revision: 'abc', files: 3, downloaded: 3, localPath: '/c/snapshots/abc' });
  });

  it('explains a failure from the end of a long log', { timeout: 60_000 }, async () => {
    const error = await prefetchModel(
      streamingBox(function* () {
        for (let i = 0; i < 40; i++) yield noise;
        yield 'huggingface_hub.errors.RepositoryNotFoundError: 404 Client Error. Repository Not Found for url: https://huggingface.co/api/models/org/m\n';
      }, 1),
      { engine: 'vllm', version: '0.11.0', model: 'org/m' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServelabError);
    expect((error as ServelabError).message).toMatch(/Could not download org\/m: .*(not found|Repository Not Found)/i);
  });
});
