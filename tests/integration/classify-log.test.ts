// `servelab classify-log` run in-process over the engine log corpus (tests/fixtures/engine-logs/).
import { describe, it, expect } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { runClassifyLog, type LogInput } from '../../src/cli/commands/classify-log';
import { runCaptured, type CliRun } from '../helpers/cli';
import { loadLogCorpus, LOG_CORPUS_DIR } from '../helpers/log-corpus';

const corpus = loadLogCorpus();

function classify(args: string[], stdin: LogInput = Readable.from([]), cwd = LOG_CORPUS_DIR): Promise<CliRun> {
  return runCaptured((io) => runClassifyLog(args, io, stdin), {}, cwd);
}

describe('servelab classify-log --json over the corpus', () => {
  it.each(corpus.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const args = [c.path, '--json', ...(c.expect.engine ? ['--engine', c.expect.engine] : [])];
    const { code, stdout, stderr } = await classify(args);
    // A failure verdict is still a successful run.
    expect(code).toBe(0);
    expect(stderr).toBe('');
    const verdict = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(verdict).slice(0, 4)).toEqual(['class', 'evidence', 'hint', 'line']);
    expect(verdict.class).toBe(c.expect.class);
    expect(verdict.line).toBe(c.expect.line);
    expect(verdict.evidence).toContain(c.expect.evidence);
    for (const part of c.expect.hint) expect(verdict.hint).toContain(part);
    if (c.expect.detectedEngine) expect(verdict.engine).toBe(c.expect.detectedEngine);
  });
});

describe('servelab classify-log', () => {
  const vllmOom = corpus.find((c) => c.name === 'vllm-oom-startup');
  const sglangReady = corpus.find((c) => c.name === 'sglang-ready');

  it('prints one readable paragraph without --json', async () => {
    const { code, stdout } = await classify([basename(vllmOom!.path)]);
    expect(code).toBe(0);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(stdout).toMatch(/^Failed: out of GPU memory \(oom\) in this vLLM log\. Line 12: torch\.OutOfMemoryError: CUDA out of memory\. Tried to allocate 1\.16 GiB\..* What to change: The GPU ran out of memory/);
    const ready = await classify([sglangReady!.path]);
    expect(ready.stdout).toBe('Ready (SGLang): the server started and answers requests. Line 14: The server is fired up and ready to roll!\n');
  });

  it('reads the log from standard input with -', async () => {
    const chunks = vllmOom!.text.match(/[\s\S]{1,700}/g) ?? [];
    const { code, stdout } = await classify(['-', '--json'], Readable.from(chunks.map((c) => Buffer.from(c))));
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ class: 'oom', line: 12, engine: 'vllm' });
  });

  it('resolves a relative path against the working directory', async () => {
    const { code, stdout } = await classify([join('..', basename(dirname(vllmOom!.path)), basename(vllmOom!.path)), '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).class).toBe('oom');
  });

  it('takes the engine hint: SGLang’s early "Application startup complete." is not readiness', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servelab-classify-'));
    try {
      const file = join(dir, 'early.log');
      await writeFile(file, 'INFO:     Started server process [5120]\nINFO:     Application startup complete.\n');
      expect(JSON.parse((await classify([file, '--json', '--engine', 'sglang'])).stdout).class).toBe('starting');
      expect(JSON.parse((await classify([file, '--json', '--engine', 'vllm'])).stdout).class).toBe('ready');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 when the log cannot be read', async () => {
    const missing = await classify(['no-such.log']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^servelab classify-log: cannot read no-such\.log: ENOENT/);
    expect((await classify([LOG_CORPUS_DIR])).code).toBe(1);
    const failing: LogInput = {
      [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('stdin closed')) }),
    };
    expect(await classify(['-'], failing)).toMatchObject({ code: 1, stderr: 'servelab classify-log: cannot read standard input: stdin closed\n' });
  });

  it.each([
    [[], /name the log file/],
    [['a.log', 'b.log'], /expected one log file, got 2/],
    [['a.log', '--engine', 'tgi'], /--engine tgi: must be one of vllm, sglang, trtllm/],
    [['a.log', '--verbose'], /Unknown option '--verbose'/],
  ])('exits 2 on bad usage %j', async (args, message) => {
    const { code, stdout, stderr } = await classify(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toContain('Usage: servelab classify-log');
  });

  it('prints its help with -h', async () => {
    const { code, stdout } = await classify(['-h']);
    expect(code).toBe(0);
    expect(stdout).toContain('Classes: oom, kv-cache-too-small, unsupported-sm-fp8, port-in-use, gated-model, unknown-flag, missing-module, nccl, ready, starting, unknown.');
  });
});
