// The built-in reader against the real thing: each scenario's config is written to a temporary directory and
// resolved twice, by `/usr/bin/ssh -G -F …` (OpenSSH 9.2) and by builtInRawOptions; every RESOLVED_KEYWORDS value
// must be what ssh printed, and a config ssh refuses must be refused with the lines ssh printed on stderr.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESOLVED_KEYWORDS, type SshResolveContext, type SshResolveRequest } from '../types';
import { builtInRawOptions } from './index';

const SSH = '/usr/bin/ssh';
const haveSsh = existsSync(SSH);

interface Scenario {
  name: string;
  /** Files by path relative to the scenario directory; `config` is the one given to -F. `@DIR@` is that directory. */
  files: Record<string, string>;
  destination: string;
  request?: Omit<SshResolveRequest, 'destination' | 'configFile'>;
  env?: Record<string, string>;
}

const S = (name: string, config: string | null, destination: string, extra: Partial<Scenario> = {}): Scenario => ({
  name,
  files: config === null ? { ...(extra.files ?? {}) } : { config, ...(extra.files ?? {}) },
  destination,
  ...(extra.request ? { request: extra.request } : {}),
  ...(extra.env ? { env: extra.env } : {}),
});

const SCENARIOS: Scenario[] = [
  // Defaults and first-value-wins.
  S('empty config: every default', '', 'gpu1'),
  S('first value wins, Host * last', 'Host gpu1\n  HostName 10.0.0.7\n  User ubuntu\n  Port 2200\nHost *\n  User other\n  Port 22\n', 'gpu1'),
  S('identity files accumulate, duplicates once', 'Host a\n IdentityFile ~/.ssh/a\n IdentityFile ~/.ssh/%r@%h\nHost *\n IdentityFile ~/.ssh/a\n IdentityFile ~/.ssh/b\n', 'a'),
  S('identityfile none', 'IdentityFile none\n', 'x'),
  S('certificate files', 'CertificateFile ~/.ssh/c1\nCertificateFile ~/.ssh/%h-cert.pub\n', 'x'),
  S('equals sign and quotes', 'Host=q\n  HostName = "real.example"\n  User="an"\n  Port=2022\n', 'q'),
  S('comments and blank lines', '# c\n\n  Host x # trailing\n\tUser u # comment\n', 'x'),
  S('keyword case', 'HOST x\n  USER U\n  hOsTnAmE H.Example\n', 'x'),
  // Host patterns.
  S('wildcards and negation', 'Host gpu? !gpu9\n  User lab\nHost *.farm\n  HostName %h.internal\n', 'gpu1'),
  S('negation excludes', 'Host gpu? !gpu9\n  User lab\n', 'gpu9'),
  S('pattern list on one line', 'Host a b c\n  User abc\n', 'b'),
  S('Host patterns are case-sensitive', 'Host Foo\n  User cap\nHost foo\n  User low\n', 'Foo'),
  S('destination lower-cased for hostname', 'Host *\n  Port 23\n', 'MiXeD.Example'),
  S('HostName lower-cased', 'Host x\n  HostName MiXeD.Example\n', 'x'),
  S('HostName %h and %%', 'Host x\n  HostName %h.example%%\n', 'x'),
  // Match.
  S('Match all', 'Match all\n  User everyone\n', 'x'),
  S('Match host uses HostName', 'Host x\n  HostName real.example\nMatch host real.example\n  User matched\n', 'x'),
  S('Match host is case-insensitive', 'Match host FOO*\n  User m\n', 'foobar'),
  S('Match originalhost', 'Host x\n  HostName real.example\nMatch originalhost x\n  User orig\n', 'x'),
  S('Match user (from config)', 'Host x\n  User alice\nMatch user alice\n  Port 2222\n', 'x'),
  S('Match user from -l', 'Match user bob,carol\n  Port 2223\n', 'x', { request: { user: 'carol' } }),
  S('Match localuser', `Match localuser ${userInfo().username}\n  Port 2224\n`, 'x'),
  S('Match negation', 'Match !host x\n  User notx\nMatch host x\n  User isx\n', 'x'),
  S('Match comma list with negation', 'Match host "a*,!ab"\n  User m\n', 'ab'),
  S('Match several criteria ANDed', 'Match host x user nobody\n  User no\nMatch host x originalhost x\n  User yes\n', 'x'),
  S('Match exec true', 'Match exec "true"\n  User exec-true\n', 'x'),
  S('Match exec false', 'Match exec false\n  User exec-false\nHost *\n  User fallback\n', 'x'),
  S('Match exec with tokens', 'Match exec "test %h = x && test %n = x && test %p = 22"\n  User tokens\n', 'x'),
  S('Match exec skipped after a failed criterion', 'Match host nothere exec "exit 1"\n  User no\n', 'x'),
  S('Match !exec', 'Match !exec false\n  User negexec\n', 'x'),
  S('Match canonical on second pass only', 'CanonicalizeHostname yes\nCanonicalDomains localdomain\nMatch canonical\n  User canon\n', 'x'),
  S('Match final triggers a second pass', 'Match final host x\n  User fin\n', 'x'),
  S('Match !final', 'Match !final\n  Port 2001\n', 'x'),
  S('Match in an included file', 'Include @DIR@/inc.conf\n', 'x', { files: { 'inc.conf': 'Match host x\n  User from-inc\n' } }),
  // Include.
  S('Include glob, sorted', 'Include @DIR@/conf.d/*.conf\nHost *\n  User default\n', 'b', {
    files: { 'conf.d/20-b.conf': 'Host b\n  HostName b.example\n', 'conf.d/10-a.conf': 'Host a b\n  HostName first.example\n  User from-a\n' },
  }),
  S('Include bracket class', 'Include @DIR@/c[0-9].conf\n', 'x', { files: { 'c1.conf': 'User one\n', 'c2.conf': 'User two\n', 'ca.conf': 'User letter\n' } }),
  S('Include inside an inactive Host block', 'Host other\n  Include @DIR@/inc.conf\nHost *\n  Port 2\n', 'x', { files: { 'inc.conf': 'User inc\n' } }),
  S('Include inside an active Host block', 'Host x\n  Include @DIR@/inc.conf\n', 'x', { files: { 'inc.conf': 'User inc\nHost nomatch\n  Port 9\n' } }),
  S('Include no match is fine', 'Include @DIR@/none-*.conf\nUser u\n', 'x'),
  S('Include leaves block state', 'Host x\nInclude @DIR@/inc.conf\n  Port 2345\n', 'x', { files: { 'inc.conf': 'Host zzz\n  User z\n' } }),
  // Tokens and expansions.
  S('userknownhostsfile expanded', 'UserKnownHostsFile ~/.ssh/kh_%h_%p_%r ${HOME}/x\n', 'x'),
  S('userknownhostsfile none', 'UserKnownHostsFile none\n', 'x'),
  S('globalknownhostsfile as written', 'GlobalKnownHostsFile ~/g1 /etc/g2\n', 'x'),
  S('identityagent expanded', 'IdentityAgent ~/agent-%h-%u.sock\n', 'x'),
  S('identityagent SSH_AUTH_SOCK', 'IdentityAgent SSH_AUTH_SOCK\n', 'x'),
  S('identityagent none', 'IdentityAgent none\n', 'x'),
  S('%k is HostKeyAlias', 'HostKeyAlias MyAlias\nUserKnownHostsFile /tmp/%k\n', 'x'),
  S('%k defaults to the original host', 'Host x\n HostName real.example\nUserKnownHostsFile /tmp/%k-%h-%n\n', 'x'),
  S('%C %l %L %i %d %u', 'UserKnownHostsFile /tmp/%C /tmp/%l /tmp/%L /tmp/%i %d/%u\n', 'x'),
  S('proxycommand as written', 'ProxyCommand  nc  %h   %p # c\n', 'x'),
  S('proxycommand none', 'ProxyCommand none\n', 'x'),
  S('proxyjump forms', 'ProxyJump u@1.2.3.4:2222\n', 'x'),
  S('proxyjump chain', 'ProxyJump a,b@c:23,%r@%h\n', 'x'),
  S('proxyjump URI', 'ProxyJump ssh://u@h:23\n', 'x'),
  S('proxyjump none then ProxyCommand', 'ProxyJump none\nProxyCommand foo %h\n', 'x'),
  S('ProxyCommand then ProxyJump', 'ProxyCommand foo\nProxyJump bar\n', 'x'),
  S('ProxyJump then ProxyCommand', 'ProxyJump bar\nProxyCommand foo\n', 'x'),
  S('-J overrides config', 'ProxyJump cfg\n', 'x', { request: { proxyJump: 'cli1,cli2' } }),
  S('-J none', 'ProxyJump cfg\n', 'x', { request: { proxyJump: 'none' } }),
  // Time units and numbers.
  S('time units', 'ServerAliveInterval 1m\nConnectTimeout 1h30m\nServerAliveCountMax 5\nConnectionAttempts 3\n', 'x'),
  S('ConnectTimeout none then a value', 'ConnectTimeout none\nConnectTimeout 5\n', 'x'),
  S('StrictHostKeyChecking names', 'Host a\n StrictHostKeyChecking yes\nHost b\n StrictHostKeyChecking off\nHost c\n StrictHostKeyChecking accept-new\n', 'c'),
  S('StrictHostKeyChecking yes', 'StrictHostKeyChecking yes\n', 'x'),
  S('BatchMode and IdentitiesOnly', 'BatchMode yes\nIdentitiesOnly true\n', 'x'),
  S('Port by service name', 'Port ssh\n', 'x'),
  S('IgnoreUnknown', 'IgnoreUnknown UseKeychain,AddKeysToAgentX\nUseKeychain yes\n', 'x'),
  S('deprecated and ignored options', 'Protocol 2\nUseRoaming no\nCipher blowfish\n', 'x'),
  S('Debian keep-alive aliases', 'ProtocolKeepAlives 7\n', 'x'),
  // Command line.
  S('-l -p -i before config', 'User cfg\nPort 2200\nIdentityFile ~/.ssh/cfg\n', 'x', { request: { user: 'cli', port: 2022, identityFiles: ['/etc/hostname'] } }),
  S('-i missing file skipped', 'IdentityFile ~/.ssh/cfg\n', 'x', { request: { identityFiles: ['/nonexistent/key'] } }),
  S('-o HostName', 'Host x\n  HostName cfg.example\nMatch host saved.example\n  User saved\n', 'x', { request: { hostName: 'saved.example' } }),
  S('user@ destination', 'Host x\n  User cfg\n', 'dest@x'),
  // Canonicalisation.
  S('canonicalise with a domain that resolves', 'CanonicalizeHostname yes\nCanonicalDomains nowhere.invalid localdomain\nHost localhost.localdomain\n  User canon\n', 'localhost'),
  S('canonicalise fails, fallback local', 'CanonicalizeHostname yes\nCanonicalDomains nowhere.invalid\nHost *\n  Port 2\n', 'zzzunknownhost'),
  S('canonicalise max dots', 'CanonicalizeHostname yes\nCanonicalDomains localdomain\nCanonicalizeMaxDots 0\n', 'a.b'),
  S('canonicalise skipped with ProxyJump', 'CanonicalizeHostname yes\nCanonicalDomains localdomain\nProxyJump j\n', 'localhost'),
  S('canonicalise always with ProxyJump', 'CanonicalizeHostname always\nCanonicalDomains localdomain\nProxyJump j\n', 'localhost'),
  S('second pass matches the canonical name', 'CanonicalizeHostname yes\nCanonicalDomains localdomain\nHost localhost\n  User first\nHost *.localdomain\n  Port 2022\n', 'localhost'),
  S('numeric address canonicalised', '', '127.1'),
  // Edge cases of syntax and values.
  S('CRLF line endings', 'Host x\r\n  User crlf\r\n  Port 2020\r\n', 'x'),
  S('tabs and = with spaces', 'Host\tx\n\tUser\t=\tt\n\tPort =  2021\n', 'x'),
  S('quoted identity path with a space', 'IdentityFile "~/.ssh/my key"\nIdentityFile ${HOME}/.ssh/%h\n', 'x'),
  S('quoted Host pattern', 'Host "x"\n  User q\n', 'x'),
  S('StrictHostKeyChecking=no', 'StrictHostKeyChecking=no\n', 'x'),
  S('StrictHostKeyChecking ask', 'StrictHostKeyChecking ask\n', 'x'),
  S('HostKeyAlias lower-cased', 'HostKeyAlias MixedCase\n', 'x'),
  S('User not expanded', 'User %u-x\n', 'x'),
  S('numeric HostName kept', 'Host x\n  HostName 10.000.0.1\n', 'x'),
  S('IPv6 HostName', 'Host x\n  HostName FE80::1\n', 'x'),
  S('HostName with %h keeps the typed case', 'Host *\n  HostName %h.Lab\n', 'GPU1'),
  S('Match exec with %p from -p', 'Match exec "test %p = 2200"\n  User p2200\n', 'x', { request: { port: 2200 } }),
  S('Match user before User is set', 'Match user later\n  Port 2\nHost x\n  User later\n', 'x'),
  S('Match with = and quotes', 'Match host="x"\n  User eq\n', 'x'),
  S('Match all with a comment', 'Match all # everything\n  User all\n', 'x'),
  S('Match host list', 'Match host a,b,x\n  User list\n', 'x'),
  S('Match originalhost negated', 'Match !originalhost y\n  User noty\n', 'x'),
  S('Match canonical without canonicalisation', 'Match canonical\n  User never\nMatch !canonical\n  User first\n', 'x'),
  S('second pass after Match final adds only unset values', 'Match final\n  User fin\n  IdentityFile ~/.ssh/final\nHost x\n  IdentityFile ~/.ssh/x\n', 'x'),
  S('Include of a relative path with -F goes to ~/.ssh', 'Include servelab-surely-missing-*\nUser u\n', 'x'),
  S('ProxyJump with tokens kept', 'ProxyJump %r@jump-%h:%p\n', 'x'),
  S('ProxyJump IPv6 hop', 'ProxyJump [::1]:2222\n', 'x'),
  S('ProxyJump first word only', 'ProxyJump a b\n', 'x'),
  S('ProxyJump none inactive later', 'Host x\n  ProxyJump none\nHost *\n  ProxyJump other\n', 'x'),
  S('ProxyCommand with =', 'ProxyCommand=ssh -W %h:%p bastion\n', 'x'),
  S('ServerAliveInterval none', 'ServerAliveInterval none\nServerAliveInterval 10\n', 'x'),
  S('BatchMode no keeps 0', 'BatchMode no\n', 'x'),
  S('BatchMode with explicit interval', 'BatchMode yes\nServerAliveInterval 15\n', 'x'),
  S('CanonicalizeHostname no', 'CanonicalizeHostname no\nCanonicalDomains localdomain\n', 'localhost'),
  S('CanonicalDomains none', 'CanonicalizeHostname yes\nCanonicalDomains none\n', 'localhost'),
  S('canonicalise anchored name', 'CanonicalizeHostname yes\n', 'localhost.'),
  S('canonicalise numeric', 'CanonicalizeHostname yes\nCanonicalDomains localdomain\n', '127.0.0.1'),
  S('many identity files', Array.from({ length: 12 }, (_, i) => `IdentityFile ~/.ssh/k${i}\n`).join(''), 'x'),
  S('system-style unsupported keyword warns only', 'CompressionLevel 6\n', 'x'),
  S('-l and user@ both', '', 'at@x', { request: { user: 'dashl' } }),
  S('-p and Port', 'Port 2200\n', 'x', { request: { port: 2022 } }),
  S('-J chain with user and port', '', 'x', { request: { proxyJump: 'u1@j1:2201,j2' } }),
  S('forwardings accepted', 'LocalForward 8080 localhost:80\nLocalForward [::1]:8081 h:81\nRemoteForward 9090\nDynamicForward 1080\nLocalForward /tmp/s.sock /tmp/t.sock\nRemoteForward 0 h:22\n', 'x'),
  // More refusals.
  S('error: LocalForward without target', 'LocalForward 8080\n', 'x'),
  S('error: LocalForward bad port', 'LocalForward 8080 localhost:0\n', 'x'),
  S('error: LocalForward listen port 0', 'LocalForward 0 localhost:80\n', 'x'),
  S('error: DynamicForward with a target', 'DynamicForward a:b:c\n', 'x'),
  S('error: RemoteForward garbage', 'RemoteForward a:b:c:d:e f\n', 'x'),
  S('error: -J with shell characters', '', 'x', { request: { proxyJump: 'a;b' } }),
  S('error: destination with shell characters', '', 'a;b'),
  S('error: user and destination with shell characters', '', 'c;d', { request: { user: 'a;b' } }),
  S('-F names a directory', null, 'x', { files: { 'config/keep': '' } }),
  S('error: no argument after keyword', 'Host\n', 'x'),
  S('error: bad yes/no', 'BatchMode maybe\n', 'x'),
  S('error: bad StrictHostKeyChecking', 'StrictHostKeyChecking sometimes\n', 'x'),
  S('error: Port too large', 'Port 70000\n', 'x'),
  S('error: Host empty pattern', 'Host ""\n', 'x'),
  S('error: Match exec without command', 'Match exec\n', 'x'),
  S('error: One or more attributes', 'Match # nothing\n', 'x'),
  S('error: bad IdentityAgent variable', 'IdentityAgent $1bad\n', 'x'),
  S('error: unknown key in UserKnownHostsFile', 'UserKnownHostsFile /tmp/%z\n', 'x'),
  S('key type wildcards', 'HostKeyAlgorithms ssh-ed25519*\nPubkeyAcceptedAlgorithms +ssh-rsa\n', 'x'),
  S('error: key type wildcard matching nothing', 'HostKeyAlgorithms nothing-like-this*\n', 'x'),
  S('error: bad cipher', 'Ciphers aes999\n', 'x'),
  S('error: missing config file', null, 'x'),
  S('error: an Include loop', 'Include @DIR@/config\n', 'x'),
  S('Include of a directory reads nothing', 'Include @DIR@/inc.conf\n', 'x', { files: { 'inc.conf/x': '' } }),
  S('permitted CNAMEs with a bare name that resolves', 'CanonicalizePermittedCNAMEs *:*\n', 'localhost'),
  S('permitted CNAMEs none', 'CanonicalizeHostname yes\nCanonicalizePermittedCNAMEs none\n', 'zzzunknownhost'),
  S('error: permitted CNAMEs and an unknown bare name', 'CanonicalizeHostname yes\nCanonicalizePermittedCNAMEs *:*\n', 'zzzunknownhost'),
  S('permitted CNAMEs, unknown name behind a jump host', 'CanonicalizePermittedCNAMEs *:*\nProxyJump j\n', 'zzzunknownhost'),
  // Errors.
  S('error: unknown keyword', 'Host a\n  UseKeychain yes\n', 'a'),
  S('error: several bad lines', 'UseKeychain yes\nPort abc\nBatchMode maybe\n', 'a'),
  S('error: bad port', 'Port 0\n', 'a'),
  S('error: ProxyJump with a space after a comma', 'ProxyJump a, b\n', 'a'),
  S('error: missing argument', 'User\n', 'a'),
  S('error: invalid quotes', 'User "abc\n', 'a'),
  S('error: extra arguments', 'Port 22 23\n', 'a'),
  S('error: bad time', 'ConnectTimeout 5x\n', 'a'),
  S('error: bad integer', 'ServerAliveCountMax -1\n', 'a'),
  S('error: bad Match attribute', 'Match foo bar\n', 'a'),
  S('error: Match all combined', 'Match all host x\n', 'a'),
  S('error: Match without argument', 'Match host\n', 'a'),
  S('error: bad line in an inactive block', 'Host zzz\n  Compression maybe\n', 'a'),
  S('error: in an included file', 'Include @DIR@/bad.conf\n', 'a', { files: { 'bad.conf': 'Bogus 1\n' } }),
  S('error: unknown %-token in HostName', 'HostName %p.example\n', 'a'),
  S('error: unset ${VAR}', 'UserKnownHostsFile ${SERVELAB_SURELY_UNSET}/kh\n', 'a'),
  S('error: canonicalisation without fallback', 'CanonicalizeHostname yes\nCanonicalDomains nowhere.invalid\nCanonicalizeFallbackLocal no\n', 'zzzunknownhost'),
  S('error: jumphost loop', 'ProxyJump x\n', 'x'),
  S('error: ConnectionAttempts 0', 'ConnectionAttempts 0\n', 'x'),
  S('error: bad CanonicalDomains', 'CanonicalDomains -bad\n', 'x'),
  S('error: none not alone', 'UserKnownHostsFile none /x\n', 'x'),
];

const ctx: SshResolveContext = {
  env: { ...process.env, SHELL: '/bin/sh' },
  localUser: userInfo().username,
  home: userInfo().homedir,
  uid: userInfo().uid,
  localHostname: hostname(),
  shell: '/bin/sh',
  systemConfigFile: '/etc/ssh/ssh_config',
};

interface SshOutcome {
  ok: boolean;
  stdout: string;
  stderr: string;
}

function runSsh(args: string[]): Promise<SshOutcome> {
  return new Promise((resolve) => {
    const child = execFile(SSH, ['-G', ...args], { env: ctx.env }, (err, stdout, stderr) => {
      resolve({ ok: !err, stdout, stderr });
    });
    child.stdin?.end();
  });
}

function sshArgs(s: Scenario, configFile: string): string[] {
  const r = s.request ?? {};
  const args = ['-F', configFile];
  if (r.user !== undefined) args.push('-l', r.user);
  if (r.port !== undefined) args.push('-p', String(r.port));
  for (const f of r.identityFiles ?? []) args.push('-i', f);
  if (r.proxyJump !== undefined) args.push('-J', r.proxyJump);
  if (r.hostName !== undefined) args.push('-o', `HostName=${r.hostName}`);
  args.push(s.destination);
  return args;
}

/** ssh -G's lines for our keywords, in the RawSshOptions convention. */
function printed(stdout: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of stdout.split('\n')) {
    const sp = line.indexOf(' ');
    if (sp === -1) continue;
    const keyword = line.slice(0, sp);
    const value = line.slice(sp + 1);
    if (!(RESOLVED_KEYWORDS as readonly string[]).includes(keyword)) continue;
    if (keyword === 'identityfile' || keyword === 'certificatefile') out.set(keyword, [...(out.get(keyword) ?? []), value]);
    else out.set(keyword, value.split(' '));
  }
  return out;
}

function stderrLines(stderr: string): string {
  return stderr
    .split(/\r?\n/)
    .filter((l) => l !== '' && !l.startsWith('Pseudo-terminal will not be allocated'))
    .join('\n');
}

describe.skipIf(!haveSsh)('built-in reader against ssh -G (OpenSSH 9.2)', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'servelab-ssh-oracle-'));
    await chmod(root, 0o755);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it.each(SCENARIOS.map((s, i) => [s.name, s, i] as const))('%s', async (_name, scenario, index) => {
    const dir = join(root, String(index));
    await mkdir(dir, { recursive: true });
    for (const [rel, text] of Object.entries(scenario.files)) {
      const path = join(dir, rel);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, text.replaceAll('@DIR@', dir), { mode: 0o644 });
    }
    const configFile = join(dir, 'config');
    const ssh = await runSsh(sshArgs(scenario, configFile));
    const request: SshResolveRequest = { destination: scenario.destination, configFile, ...(scenario.request ?? {}) };
    const ours = await builtInRawOptions(request, ctx).then(
      (raw) => ({ ok: true as const, raw }),
      (err: unknown) => ({ ok: false as const, message: err instanceof Error ? err.message : String(err) }),
    );
    if (!ssh.ok) {
      expect(ours.ok ? 'resolved' : ours.message).toBe(stderrLines(ssh.stderr));
      return;
    }
    if (!ours.ok) throw new Error(`ssh accepted it, the reader refused: ${ours.message}`);
    const expected = printed(ssh.stdout);
    for (const keyword of RESOLVED_KEYWORDS) expect([keyword, ours.raw.values.get(keyword)]).toEqual([keyword, expected.get(keyword)]);
  });
});
