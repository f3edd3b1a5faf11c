import { describe, it, expect } from 'vitest';
import { runInOwnGroup } from './process-group';
import { processesWith, uniqueSleep } from '../../../../tests/helpers/processes';

describe.skipIf(process.platform !== 'linux')('runInOwnGroup', () => {
  it('collects the output and exit status', async () => {
    const run = await runInOwnGroup('/bin/sh', ['-c', 'echo out; echo err >&2; exit 3'], { env: process.env, timeoutMs: 5000, stdio: ['pipe', 'pipe', 'pipe'] });
    expect(run).toEqual({ code: 3, signal: null, stdout: 'out\n', stderr: 'err\n', timedOut: false });
  });

  it('kills the program and what it started when the time is up', async () => {
    const seconds = uniqueSleep();
    const run = await runInOwnGroup('/bin/sh', ['-c', `sleep ${seconds}; true`], { env: process.env, timeoutMs: 300, stdio: ['pipe', 'pipe', 'pipe'] });
    expect(run.timedOut).toBe(true);
    expect(processesWith(`sleep ${seconds}`)).toEqual([]);
  });

  it('rejects with the errno when the program cannot be started', async () => {
    await expect(runInOwnGroup('/nonexistent/ssh', [], { env: process.env, timeoutMs: 300, stdio: 'pipe' })).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
