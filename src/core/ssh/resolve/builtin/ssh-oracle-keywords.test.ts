// Every keyword of the table with values of every shape, against `/usr/bin/ssh -G` (OpenSSH 9.2): the same refusal
// with the same lines, or the same printed values for RESOLVED_KEYWORDS. Catches a keyword missing from the
// table, a wrong value kind, or a message worded differently.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOLVED_KEYWORDS, type SshResolveContext } from '../types';
import { builtInRawOptions } from './index';
import { KEYWORDS } from './keywords';

const SSH = '/usr/bin/ssh';
// Flags, words, numbers, times, lists, paths, tokens, variables, forwards, quotes, escapes and extra words.
const VALUES = ['yes', 'abc', '1', '-1', '5m', 'none', '1 2', '"a b"', 'a:b', 'localhost:22', '/tmp/x', '%h', '${HOME}', '$HOME', ',', 'a,,b', '\\x'];

const ctx: SshResolveContext = {
  env: { ...process.env, SHELL: '/bin/sh' },
  localUser: userInfo().username,
  home: userInfo().homedir,
  uid: userInfo().uid,
  localHostname: hostname(),
  shell: '/bin/sh',
  systemConfigFile: '/etc/ssh/ssh_config',
};

function runSsh(configFile: string): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(SSH, ['-G', '-F', configFile, 'x'], { env: ctx.env }, (err, stdout, stderr) => resolve({ ok: !err, stdout, stderr }));
    child.stdin?.end();
  });
}

const keywords = [...KEYWORDS.keys()].filter((k) => k !== 'host' && k !== 'match' && k !== 'include');

describe.skipIf(!existsSync(SSH))('every keyword against ssh -G', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-ssh-keywords-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(keywords)('%s', async (keyword) => {
    const mismatches: string[] = [];
    for (const [i, value] of VALUES.entries()) {
      const configFile = join(dir, `${keyword}-${i}`);
      await writeFile(configFile, `${keyword} ${value}\n`);
      const ssh = await runSsh(configFile);
      const ours = await builtInRawOptions({ destination: 'x', configFile }, ctx).then(
        (raw) => ({ ok: true as const, raw }),
        (err: Error) => ({ ok: false as const, message: err.message }),
      );
      if (!ssh.ok) {
        const expected = ssh.stderr
          .split(/\r?\n/)
          .filter((l) => l !== '' && !l.startsWith('Pseudo-terminal'))
          .join('\n');
        if (ours.ok || ours.message !== expected) mismatches.push(`${value}: ssh ${JSON.stringify(expected)}, reader ${ours.ok ? 'accepted' : JSON.stringify(ours.message)}`);
        continue;
      }
      if (!ours.ok) {
        mismatches.push(`${value}: ssh accepted, reader ${JSON.stringify(ours.message)}`);
        continue;
      }
      const printed = new Map<string, string[]>();
      for (const line of ssh.stdout.split('\n')) {
        const sp = line.indexOf(' ');
        const k = line.slice(0, sp);
        if (sp === -1 || !(RESOLVED_KEYWORDS as readonly string[]).includes(k)) continue;
        const v = line.slice(sp + 1);
        if (k === 'identityfile' || k === 'certificatefile') printed.set(k, [...(printed.get(k) ?? []), v]);
        else printed.set(k, v.split(' '));
      }
      for (const k of RESOLVED_KEYWORDS) {
        const a = JSON.stringify(ours.raw.values.get(k));
        const b = JSON.stringify(printed.get(k));
        if (a !== b) mismatches.push(`${value}: ${k} reader ${a}, ssh ${b}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
});
