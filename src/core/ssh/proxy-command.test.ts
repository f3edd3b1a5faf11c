import { describe, it, expect, afterEach } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { describeProxyExit, KEPT_STDERR_LINES, MAX_LINE_CHARS, proxyCommandInvocation, startProxyCommand } from './proxy-command';
import type { ConnectionLogLevel } from './connection-log';
import { shellQuote } from '../../shared/shell-quote';

describe('proxyCommandInvocation', () => {
  it('runs the command as `$SHELL -c "exec …"`, with /bin/sh when SHELL is unset or empty', () => {
    expect(proxyCommandInvocation('nc h 22', { SHELL: '/bin/bash' }, 'linux')).toEqual({ file: '/bin/bash', args: ['-c', 'exec nc h 22'], windows: false });
    expect(proxyCommandInvocation('nc h 22', { SHELL: '' }, 'darwin').file).toBe('/bin/sh');
    expect(proxyCommandInvocation('nc h 22', {}, 'linux').file).toBe('/bin/sh');
  });

  it('runs it through cmd.exe on Windows', () => {
    expect(proxyCommandInvocation('ncat h 22', { ComSpec: 'C:\\Windows\\system32\\cmd.exe' }, 'win32')).toEqual({
      file: 'C:\\Windows\\system32\\cmd.exe',
      args: ['/d', '/s', '/c', '"ncat h 22"'],
      windows: true,
    });
    expect(proxyCommandInvocation('ncat h 22', {}, 'win32').file).toBe('cmd.exe');
  });
});

describe('describeProxyExit', () => {
  it('says how the command ended', () => {
    expect(describeProxyExit(undefined)).toBe('is still running');
    expect(describeProxyExit({ code: 1, signal: null })).toBe('exited with status 1');
    expect(describeProxyExit({ code: null, signal: 'SIGTERM' })).toBe('was killed by SIGTERM');
    expect(describeProxyExit({ code: null, signal: null, spawnError: 'spawn /nope ENOENT' })).toBe('could not be started (spawn /nope ENOENT)');
  });
});

describe('ProxyCommandStream', () => {
  it('keeps the last stderr lines, cuts long ones, logs each and closes when the command exits', async () => {
    const logged: [ConnectionLogLevel, string][] = [];
    const script = `for i in $(seq 1 12); do echo "line $i" >&2; done; head -c ${MAX_LINE_CHARS + 50} /dev/zero | tr '\\0' x >&2; exit 4`;
    const stream = startProxyCommand(`sh -c ${shellQuote(script)}`, { env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, log: (level, message) => logged.push([level, message]) });
    stream.resume();
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    const exit = await stream.exited();
    expect(exit).toEqual({ code: 4, signal: null });
    await closed;
    const lines = stream.lastStderr();
    expect(lines).toHaveLength(KEPT_STDERR_LINES);
    expect(lines[0]).toBe('line 4');
    expect(lines.at(-1)).toBe('x'.repeat(MAX_LINE_CHARS));
    expect(logged.filter(([, m]) => m.startsWith('proxy command: line '))).toHaveLength(12);
    expect(logged.at(-1)).toEqual(['warn', 'The proxy command exited with status 4.']);
    expect(logged[0]?.[0]).toBe('debug');
  });

  it('hides credentials in its stderr lines, in the log and in the kept lines, as in the command', async () => {
    const logged: string[] = [];
    const script = 'echo "proxy: password $2 was refused" >&2; echo "retry via http://bob:0therPass@relay:3128" >&2; printf "last $2" >&2; exit 3';
    const stream = startProxyCommand(`sh -c ${shellQuote(script)} relay -P alice:Sup3rSecret`, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      log: (_level, message) => logged.push(message),
    });
    stream.resume();
    await stream.exited();
    const everything = [...logged, ...stream.lastStderr(), stream.shownCommand].join('\n');
    expect(everything).not.toContain('Sup3rSecret');
    expect(everything).not.toContain('0therPass');
    expect(logged).toContain('proxy command: proxy: password alice:<redacted> was refused');
    expect(logged).toContain('proxy command: retry via http://bob:<redacted>@relay:3128');
    expect(stream.lastStderr().at(-1)).toBe('last alice:<redacted>');
  });

  it('reports a shell that cannot be started', async () => {
    const stream = startProxyCommand('nc h 22', { env: { SHELL: '/nonexistent/servelab-shell' } });
    stream.resume();
    const exit = await stream.exited();
    expect(exit.spawnError).toMatch(/ENOENT/);
    expect(stream.describeExit()).toMatch(/^could not be started/);
  });

  const sleeper = `sleep 7${process.pid}9`;
  afterEach(() => {
    for (const pid of pidsRunning(sleeper)) process.kill(pid, 'SIGKILL');
  });

  it('kills what is left of the group after the grace, though the command itself exited long before', async () => {
    // The command exits at once; its child ignores SIGHUP and keeps stdout open, so the stream stays open too.
    const stream = startProxyCommand(`sh -c ${shellQuote(`trap '' HUP; ${sleeper} & exit 0`)}`, { killGraceMs: 300 });
    stream.resume();
    const closed = new Promise<void>((resolve) => stream.once('close', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(pidsRunning(sleeper)).not.toHaveLength(0);
    stream.destroy();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 100));
    // SIGHUP is ignored: only the SIGKILL, due 300 ms after the stop, ends it.
    expect(pidsRunning(sleeper)).not.toHaveLength(0);
    const started = Date.now();
    while (pidsRunning(sleeper).length > 0 && Date.now() - started < 2_000) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(pidsRunning(sleeper)).toEqual([]);
  });
});

function pidsRunning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').includes(marker)) found.push(Number(entry));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
