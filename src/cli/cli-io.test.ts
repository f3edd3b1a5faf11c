import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminalSafeIo, type CliIo } from './cli-io';
import { runCli } from './main';

const ESC = '\u001b';

function captured(isTTY?: { stdout: boolean; stderr: boolean }) {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t), env: {}, cwd: '/', ...(isTTY ? { isTTY } : {}) };
  return { io, out };
}

describe('terminalSafeIo', () => {
  it('keeps colors on a terminal and drops every other escape sequence and control there', () => {
    const { io, out } = captured({ stdout: true, stderr: true });
    const safe = terminalSafeIo(io);
    safe.io.stderr(`${ESC}[32mINFO${ESC}[0m ready${ESC}]0;title\u0007\n`);
    safe.io.stdout(`a${ESC}[2Jb\r\n`);
    safe.end();
    expect(out.stderr).toBe(`${ESC}[32mINFO${ESC}[0m ready\n`);
    expect(out.stdout).toBe('ab\n');
  });

  it('drops colors too when the output is not a terminal', () => {
    const { io, out } = captured({ stdout: false, stderr: false });
    const safe = terminalSafeIo(io);
    safe.io.stderr(`${ESC}[32mINFO${ESC}[0m ready\n`);
    safe.end();
    expect(out.stderr).toBe('INFO ready\n');
  });

  it('recognizes a sequence split across two writes, as streamed log chunks are', () => {
    const { io, out } = captured({ stdout: false, stderr: false });
    const safe = terminalSafeIo(io);
    safe.io.stdout(`loading${ESC}]8;;https://e`);
    safe.io.stdout(`vil.example/${ESC}\\ done\n`);
    safe.end();
    expect(out.stdout).toBe('loading done\n');
  });

  it('passes a requested document through byte for byte when stdout is not a terminal, and filters it on one', () => {
    const csv = 'a,b\r\n1,2\r\n';
    const piped = captured({ stdout: false, stderr: false });
    terminalSafeIo(piped.io).io.document?.(csv);
    expect(piped.out.stdout).toBe(csv);
    const tty = captured({ stdout: true, stderr: true });
    const safe = terminalSafeIo(tty.io);
    safe.io.document?.(`${csv}${ESC}]0;x\u0007`);
    safe.end();
    expect(tty.out.stdout).toBe('a,b\n1,2\n');
  });
});

describe('runCli', () => {
  it('prints names from the box (a result file fetched from it) without their escape sequences', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servelab-cli-io-'));
    try {
      const fixture = join(__dirname, '../../tests/fixtures/vllm-bench-text/qwen3-32b_a100_vllm-0.11.0_random-128-4.txt');
      // A window title and a screen clear planted in the file name.
      const name = `result${ESC}]0;owned\u0007${ESC}[2J.txt`;
      await writeFile(join(dir, name), await readFile(fixture));
      const { io, out } = captured({ stdout: true, stderr: true });
      expect(await runCli(['import', name], { ...io, cwd: dir }, '')).toBe(0);
      expect(out.stdout).toContain('result.txt#0');
      expect(out.stdout).not.toContain(ESC);
      expect(out.stdout).not.toContain('\u0007');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
