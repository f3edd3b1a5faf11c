// The built-in reader against `/usr/bin/ssh -G` without -F, under libnss-wrapper: a passwd entry whose home is a
// temporary directory (so ~/.ssh/config, `~`, relative Includes and %d are ssh's own), a hosts file for
// canonicalisation and a host name for %l/%L. The system-wide /etc/ssh/ssh_config is read by both, as ssh does.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOLVED_KEYWORDS, type SshResolveContext, type SshResolveRequest } from '../types';
import { builtInRawOptions, type BuiltInHooks } from './index';
import { NSS_WRAPPER_LIBRARY as NSS_WRAPPER } from '../../../../../tests/helpers/nss-wrapper';

const SSH = '/usr/bin/ssh';
const usable = existsSync(SSH) && existsSync(NSS_WRAPPER) && process.getuid?.() === 0;

const HOSTS = ['10.1.2.3 gpu1.lab.example', '10.1.2.4 real.lab.example alias.lab.example', '10.1.2.5 other.example'].join('\n') + '\n';

interface Scenario {
  name: string;
  /** Files under the home directory. */
  files: Record<string, string>;
  destination: string;
  request?: Omit<SshResolveRequest, 'destination' | 'configFile'>;
  /** File modes other than 0644. */
  modes?: Record<string, number>;
  /** $HOME pointing elsewhere than the passwd home (glob(3) takes `~` in Include from it). */
  otherHome?: Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  { name: 'no user config: system file and defaults', files: {}, destination: 'gpu1' },
  { name: '~/.ssh/config read', files: { '.ssh/config': 'Host gpu1\n  User lab\n  IdentityFile ~/.ssh/lab\n' }, destination: 'gpu1' },
  {
    name: 'relative Include resolved against ~/.ssh',
    files: { '.ssh/config': 'Include conf.d/*\n', '.ssh/conf.d/a': 'Host gpu1\n  Port 2201\n', '.ssh/conf.d/b': 'Host gpu1\n  Port 2202\n  User b\n' },
    destination: 'gpu1',
  },
  { name: 'Include with ~', files: { '.ssh/config': 'Include ~/extra.conf\n', 'extra.conf': 'User extra\n' }, destination: 'x' },
  { name: '~ and %d from the passwd entry', files: { '.ssh/config': 'UserKnownHostsFile ~/kh %d/kh2\nIdentityAgent ~/agent\n' }, destination: 'x' },
  { name: '%l and %L from the host name', files: { '.ssh/config': 'UserKnownHostsFile /tmp/%l /tmp/%L\n' }, destination: 'x' },
  { name: 'Match localuser', files: { '.ssh/config': 'Match localuser labuser\n  User viamatch\n' }, destination: 'x' },
  {
    name: 'canonicalisation through the hosts file',
    files: { '.ssh/config': 'CanonicalizeHostname yes\nCanonicalDomains lab.example\nHost gpu1.lab.example\n  User canon\n' },
    destination: 'gpu1',
  },
  {
    name: 'CNAME-like alias not permitted',
    files: { '.ssh/config': 'CanonicalizeHostname yes\nCanonicalDomains lab.example\n' },
    destination: 'alias',
  },
  {
    name: 'CNAME-like alias permitted',
    files: { '.ssh/config': 'CanonicalizeHostname yes\nCanonicalDomains lab.example\nCanonicalizePermittedCNAMEs *.lab.example:real.lab.example\n' },
    destination: 'alias',
  },
  {
    name: 'second pass sees the canonical name in Match host',
    files: { '.ssh/config': 'CanonicalizeHostname yes\nCanonicalDomains lab.example\nMatch host gpu1.lab.example\n  Port 2022\n' },
    destination: 'gpu1',
  },
  { name: 'anchored name', files: { '.ssh/config': 'CanonicalizeHostname yes\n' }, destination: 'gpu1.lab.example.' },
  {
    name: 'Include ~ follows $HOME, other ~ the passwd entry',
    files: { '.ssh/config': 'Include ~/x.conf\nUserKnownHostsFile ~/kh\n', 'x.conf': 'User from-passwd-home\n' },
    otherHome: { 'x.conf': 'User from-env-home\n' },
    destination: 'x',
  },
  { name: 'a config writable by the private group', files: { '.ssh/config': 'User x\n' }, modes: { '.ssh/config': 0o664 }, destination: 'x' },
  { name: 'error: a world-writable user config', files: { '.ssh/config': 'User x\n' }, modes: { '.ssh/config': 0o646 }, destination: 'x' },
  {
    name: 'error: a world-writable included file',
    files: { '.ssh/config': 'Include inc\n', '.ssh/inc': 'User i\n' },
    modes: { '.ssh/inc': 0o666 },
    destination: 'x',
  },
  { name: 'error: a tilde Include needs a user config', files: { '.ssh/config': 'Include ~/nothing\nBogus x\n' }, destination: 'x' },
];

describe.skipIf(!usable)('built-in reader against ssh -G with a wrapped passwd entry', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'servelab-ssh-home-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each(SCENARIOS.map((s, i) => [s.name, s, i] as const))('%s', async (_name, scenario, index) => {
    const base = join(root, String(index));
    const home = join(base, 'home');
    await mkdir(join(home, '.ssh'), { recursive: true });
    for (const [rel, text] of Object.entries(scenario.files)) {
      await mkdir(dirname(join(home, rel)), { recursive: true });
      await writeFile(join(home, rel), text, { mode: 0o644 });
      await chmod(join(home, rel), scenario.modes?.[rel] ?? 0o644);
    }
    const envHome = scenario.otherHome ? join(base, 'env-home') : home;
    for (const [rel, text] of Object.entries(scenario.otherHome ?? {})) {
      await mkdir(dirname(join(envHome, rel)), { recursive: true });
      await writeFile(join(envHome, rel), text, { mode: 0o644 });
    }
    const passwd = join(base, 'passwd');
    const group = join(base, 'group');
    const hosts = join(base, 'hosts');
    await writeFile(passwd, `labuser:x:0:0:Lab:${home}:/bin/sh\n`);
    await writeFile(group, 'root:x:0:\n');
    await writeFile(hosts, HOSTS);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      SHELL: '/bin/sh',
      HOME: envHome,
      LD_PRELOAD: NSS_WRAPPER,
      NSS_WRAPPER_PASSWD: passwd,
      NSS_WRAPPER_GROUP: group,
      NSS_WRAPPER_HOSTS: hosts,
      NSS_WRAPPER_HOSTNAME: 'box.lab.example',
    };
    const ctx: SshResolveContext = {
      env,
      localUser: 'labuser',
      home,
      uid: 0,
      localHostname: 'box.lab.example',
      shell: '/bin/sh',
      systemConfigFile: '/etc/ssh/ssh_config',
    };
    // What getaddrinfo answers under the wrapper: the hosts file, the official name as the canonical one.
    const hooks: BuiltInHooks = {
      lookupHost: async (name) => {
        const bare = name.replace(/\.$/, '').toLowerCase();
        for (const line of readFileSync(hosts, 'utf8').split('\n')) {
          const names = line.split(/\s+/).slice(1);
          if (names.includes(bare)) return { canonicalName: names[0] as string };
        }
        return null;
      },
    };
    const args = ['-G'];
    const r = scenario.request ?? {};
    if (r.user !== undefined) args.push('-l', r.user);
    args.push(scenario.destination);
    const ssh = await new Promise<{ ok: boolean; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(SSH, args, { env }, (err, stdout, stderr) => resolve({ ok: !err, stdout, stderr }));
      child.stdin?.end();
    });
    const request: SshResolveRequest = { destination: scenario.destination, ...r };
    const ours = await builtInRawOptions(request, ctx, hooks).then(
      (raw) => ({ ok: true as const, raw }),
      (err: unknown) => ({ ok: false as const, message: err instanceof Error ? err.message : String(err) }),
    );
    if (!ssh.ok) {
      const expected = ssh.stderr
        .split(/\r?\n/)
        .filter((l) => l !== '' && !l.startsWith('Pseudo-terminal'))
        .join('\n');
      expect(ours.ok ? 'resolved' : ours.message).toBe(expected);
      return;
    }
    if (!ours.ok) throw new Error(`ssh accepted it, the reader refused: ${ours.message}`);
    const printed = new Map<string, string[]>();
    for (const line of ssh.stdout.split('\n')) {
      const sp = line.indexOf(' ');
      const keyword = line.slice(0, sp);
      if (sp === -1 || !(RESOLVED_KEYWORDS as readonly string[]).includes(keyword)) continue;
      const value = line.slice(sp + 1);
      if (keyword === 'identityfile' || keyword === 'certificatefile') printed.set(keyword, [...(printed.get(keyword) ?? []), value]);
      else printed.set(keyword, value.split(' '));
    }
    for (const keyword of RESOLVED_KEYWORDS) expect([keyword, ours.raw.values.get(keyword)]).toEqual([keyword, printed.get(keyword)]);
  });
});
