import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { scriptWithStdin } from './box-transport';

function sh(text: string): { stdout: Buffer; status: number | null } {
  const result = spawnSync('sh', ['-s'], { input: text });
  return { stdout: result.stdout, status: result.status };
}

describe('scriptWithStdin', () => {
  it('leaves a script without stdin as it is', () => {
    expect(scriptWithStdin('echo hi\n', undefined)).toBe('echo hi\n');
  });

  it('gives the script exactly the bytes, whatever they hold, and keeps its exit status', () => {
    const data = Buffer.concat([randomBytes(70_000), Buffer.from("\nSERVELAB_STDIN_0\n'\"$(false)`\0\n")]);
    const result = sh(scriptWithStdin('cat; exit 3', data));
    expect(result.status).toBe(3);
    expect(result.stdout.equals(data)).toBe(true);
  });

  it('lets the script read a line, then the rest', () => {
    expect(sh(scriptWithStdin('read -r first\nprintf "[%s]" "$first"\ncat\n', 'token value\nrest')).stdout.toString()).toBe('[token value]rest');
    expect(sh(scriptWithStdin('', 'ignored')).status).toBe(0);
  });
});
