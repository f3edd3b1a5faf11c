// `servelab engine …` against the demo lab (the simulated box through local processes).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEngine } from '../../src/cli/commands/engine';
import type { CliIo } from '../../src/cli/cli-io';

let dataDir: string;

function io(onStderr?: (all: string) => void): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: (t) => (out += t),
    stderr: (t) => {
      err += t;
      onStderr?.(err);
    },
    env: { ...process.env, SERVELAB_DATA_DIR: dataDir },
    cwd: dataDir,
    out: () => out,
    err: () => err,
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'servelab-engine-cli-'));
});

afterAll(async () => {
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('servelab engine', () => {
  it('installs, lists, launches until ready and stops on Ctrl+C with the checks printed', async () => {
    const install = io();
    expect(await runEngine(['install', 'vllm', '0.11.0', '--demo'], install), install.err()).toBe(0);
    expect(install.out()).toMatch(/installed and verified/);
    expect(install.err()).toMatch(/\] installing/);

    const list = io();
    expect(await runEngine(['list', '--demo', '--json'], list)).toBe(0);
    expect(JSON.parse(list.out())).toEqual([expect.objectContaining({ engine: 'vllm', version: '0.11.0', verifiedVersion: '0.11.0' })]);

    const stop = new AbortController();
    const launch = io((err) => {
      if (err.includes('READY on')) stop.abort();
    });
    const code = await runEngine(['launch', 'vllm', '0.11.0', '--demo', '--model', 'Qwen/Qwen3-0.6B', '--timeout', '60'], launch, { signal: stop.signal });
    expect(code, launch.err()).toBe(0);
    expect(launch.out()).toContain('Application startup complete.');
    expect(launch.err()).toMatch(/command: .*\/\.servelab\/engines\/vllm-0\.11\.0\/bin\/vllm serve Qwen\/Qwen3-0\.6B/);
    expect(launch.err()).toContain('port closed; GPU memory released.');

    // A chat template from this machine goes to the box under its checksum, and the server is given that path.
    await writeFile(join(dataDir, 'tool chat.jinja'), '{{ messages }}\n');
    const sha = createHash('sha256').update('{{ messages }}\n').digest('hex');
    const stopTemplated = new AbortController();
    const templated = io((err) => {
      if (err.includes('READY on')) stopTemplated.abort();
    });
    const args = ['launch', 'vllm', '0.11.0', '--demo', '--model', 'Qwen/Qwen3-0.6B', '--timeout', '60', '--chat-template', 'tool chat.jinja'];
    expect(await runEngine(args, templated, { signal: stopTemplated.signal }), templated.err()).toBe(0);
    expect(templated.err()).toMatch(new RegExp(`servelab: tool-chat\\.jinja \\(SHA-256 ${sha.slice(0, 12)}…\\) uploaded to \\S*/\\.servelab/files/${sha}/tool-chat\\.jinja\\n`));
    expect(templated.err()).toMatch(new RegExp(`command: .*vllm serve Qwen/Qwen3-0\\.6B --host 127\\.0\\.0\\.1 --port \\d+ --chat-template \\S*/\\.servelab/files/${sha}/tool-chat\\.jinja`));

    const remove = io();
    expect(await runEngine(['remove', 'vllm', '0.11.0', '--demo'], remove), remove.err()).toBe(0);
    expect(remove.out()).toMatch(/^Removed .*\/\.servelab\/engines\/vllm-0\.11\.0\.$/m);
    const after = io();
    expect(await runEngine(['list', '--demo'], after)).toBe(0);
    expect(after.out()).toBe('No engine installed on this box.\n');
  }, 60_000);

  it('refuses an unknown engine flag before launching, and reports usage errors with exit 2', async () => {
    const bad = io();
    expect(await runEngine(['launch', 'vllm', '0.11.0', '--demo', '--model', 'Qwen/Qwen3-0.6B', '--', '--no-such-flag'], bad)).toBe(1);
    expect(bad.err()).toContain('--no-such-flag');
    const usage = io();
    expect(await runEngine(['install', 'vllm', '--demo'], usage)).toBe(2);
  }, 30_000);
});
