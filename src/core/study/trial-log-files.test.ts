import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { readTail, safeLogName, TrialLogFiles } from './trial-log-files';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-trial-logs-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('safeLogName', () => {
  it('gives a plain file name for any trial id, distinct for ids that read the same once cleaned', () => {
    const ids = ['engine/vllm-0.11.0/sharegpt-c4/r1', 'engine_vllm-0.11.0_sharegpt-c4_r1', '../../etc/passwd', 'grid/vllm~quant=fp8~attn=triton/w/r2', 'ä ö/ü', '', '.hidden', 'x'.repeat(5000)];
    const names = ids.map(safeLogName);
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]*$/);
      expect(name.length).toBeLessThanOrEqual(140);
      expect(basename(name)).toBe(name);
    }
    expect(new Set(names).size).toBe(ids.length);
    expect(safeLogName('engine/vllm/w/r1')).toBe(safeLogName('engine/vllm/w/r1'));
    expect(safeLogName('engine/vllm/w/r1')).toMatch(/^engine_vllm_w_r1-[0-9a-f]{10}$/);
  });
});

describe('TrialLogFiles', () => {
  it('appends server logs and bench output in order, in files of their own under the logs folder', async () => {
    const logsDir = join(dir, 'study.servelab-data', 'logs');
    const files = new TrialLogFiles(logsDir);
    files.appendServer('srv-abc-12345678', 'INFO loading\n');
    files.appendBench('engine/vllm/w/r1', 'Starting benchmark\n');
    for (let i = 0; i < 50; i++) files.appendServer('srv-abc-12345678', `line ${i}\n`);
    files.appendBench('engine/vllm/w/r1', '============ Serving Benchmark Result ============\n');
    files.appendServer('srv-abc-12345678', '');
    await files.flush();
    expect((await readdir(logsDir)).sort()).toEqual([basename(files.benchLogPath('engine/vllm/w/r1')), basename(files.serverLogPath('srv-abc-12345678'))].sort());
    expect(files.serverLogPath('srv-abc-12345678')).toMatch(/\.server\.log$/);
    expect(files.benchLogPath('engine/vllm/w/r1')).toMatch(/\.bench\.log$/);
    const server = await readFile(files.serverLogPath('srv-abc-12345678'), 'utf8');
    expect(server).toBe(`INFO loading\n${Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join('')}`);
    expect(await readFile(files.benchLogPath('engine/vllm/w/r1'), 'utf8')).toBe('Starting benchmark\n============ Serving Benchmark Result ============\n');

    // A later run (a resumed study) appends to the same files.
    const again = new TrialLogFiles(logsDir);
    again.appendBench('engine/vllm/w/r1', 'rerun\n');
    await again.flush();
    expect(await readFile(files.benchLogPath('engine/vllm/w/r1'), 'utf8')).toMatch(/Result =+\nrerun\n$/);
  });

  it('caps each log: past the bound the file becomes <file>.1 (replacing an older one) and a new one begins', async () => {
    const files = new TrialLogFiles(join(dir, 'logs'), () => {}, 1000);
    const lines = Array.from({ length: 300 }, (_, i) => `server line ${String(i).padStart(4, '0')}\n`);
    for (const line of lines) files.appendServer('srv-a', line);
    await files.flush();
    const path = files.serverLogPath('srv-a');
    expect((await readdir(join(dir, 'logs'))).sort()).toEqual([basename(path), `${basename(path)}.1`]);
    const current = await readFile(path, 'utf8');
    const previous = await readFile(`${path}.1`, 'utf8');
    expect(Buffer.byteLength(current)).toBeLessThanOrEqual(1000);
    expect(Buffer.byteLength(previous)).toBeLessThanOrEqual(1000);
    // The two generations are the end of the log, in order and whole.
    expect(lines.join('').endsWith(previous + current)).toBe(true);
    expect(current.endsWith('server line 0299\n')).toBe(true);

    // A later run (a resumed study) counts what the file already holds.
    const again = new TrialLogFiles(join(dir, 'logs'), () => {}, 1000);
    for (const line of lines) again.appendServer('srv-a', line);
    await again.flush();
    expect(Buffer.byteLength(await readFile(path, 'utf8'))).toBeLessThanOrEqual(1000);

    // readTail reaches into the previous generation when the current file is shorter than asked.
    const currentBytes = Buffer.byteLength(await readFile(path, 'utf8'));
    const tail = await readTail(path, currentBytes + 500);
    expect(tail!.text.length).toBeGreaterThan(currentBytes);
    expect(lines.join('').endsWith(tail!.text)).toBe(true);
    expect(tail!.truncated).toBe(true);
  });

  it('reports a failed write once per file and goes on', async () => {
    await writeFile(join(dir, 'not-a-folder'), 'x');
    const errors: string[] = [];
    const files = new TrialLogFiles(join(dir, 'not-a-folder', 'logs'), (file) => errors.push(file));
    files.appendServer('srv-a', 'one\n');
    files.appendServer('srv-a', 'two\n');
    files.appendBench('t', 'three\n');
    await files.flush();
    expect(errors.sort()).toEqual([files.benchLogPath('t'), files.serverLogPath('srv-a')].sort());
  });
});

describe('readTail', () => {
  it('returns a small file whole, a missing one as null', async () => {
    const path = join(dir, 'a.log');
    await writeFile(path, 'first\nsecond\n');
    expect(await readTail(path)).toEqual({ text: 'first\nsecond\n', truncated: false });
    expect(await readTail(join(dir, 'missing.log'))).toBeNull();
  });

  it('returns the last whole lines of a long file, never a cut line or character', async () => {
    const path = join(dir, 'long.log');
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i} ✓ ${'x'.repeat(i % 7)}`);
    await writeFile(path, `${lines.join('\n')}\n`);
    const tail = await readTail(path, 2000);
    expect(tail?.truncated).toBe(true);
    expect(Buffer.byteLength(tail!.text)).toBeLessThanOrEqual(2000);
    const got = tail!.text.split('\n').filter((l) => l !== '');
    expect(got.at(-1)).toBe(lines.at(-1));
    expect(lines.slice(-got.length)).toEqual(got);
    expect(got.length).toBeGreaterThan(50);
  });
});
