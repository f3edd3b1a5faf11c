import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { shellCommand, shellQuote } from '../../src/shared/shell-quote';

/** Runs a command line through the local /bin/sh and returns the argv that printf received. */
function roundTrip(words: string[]): string[] {
  const script = `exec printf '%s\\0' ${shellCommand(words)}`;
  const out = spawnSync('/bin/sh', ['-s'], { input: script });
  expect(out.status).toBe(0);
  const parts = out.stdout.toString('utf8').split('\0');
  parts.pop();
  return parts;
}

describe('shellQuote', () => {
  it('leaves plain words readable', () => {
    expect(shellQuote('Qwen/Qwen3-8B')).toBe('Qwen/Qwen3-8B');
    expect(shellQuote('--max-model-len=32768')).toBe('--max-model-len=32768');
    expect(shellQuote('=cmd')).toBe("'=cmd'");
    expect(shellQuote('')).toBe("''");
  });

  it('quotes everything sh would interpret', () => {
    for (const s of ["it's", '$(id)', '`id`', 'a;b', 'a && b', 'a\nb', '*', '~', '#x', 'a b', '"q"', '\\', '!x', '{a,b}', '$HOME']) {
      expect(shellQuote(s).startsWith("'")).toBe(true);
    }
  });

  it('refuses NUL instead of truncating', () => {
    expect(() => shellQuote('a\0b')).toThrow(/NUL/);
  });

  it('round-trips awkward strings through a real sh byte for byte', () => {
    const words = ["it's", "''", '$(touch /tmp/pwned)', '`id`', 'a;b', 'x\ny\r\n', '*', '-n', '-e', '\\n', 'ünïcødé ✓ 𝄞', ' lead', 'trail ', '\t', '%s', "'\"'\"'", '$', '!', '~root'];
    expect(roundTrip(words)).toEqual(words);
  });
});
