// OpenSSH's own answer for a host, independent of Servelab's code: what `servelab ssh resolve --json` must print.
//
// - `ssh -G` gives the printed values (hostname, port, user, known-hosts files, timeouts…).
// - `ssh -v … dest true` gives the connect-time truth for what `ssh -G` prints unexpanded: `identity file …`,
//   `certificate file …`, `Executing proxy command: exec …`.
// - For ProxyJump, ssh runs an implicit `ssh -l U -p P [-J rest] [-F cfg] -v -W '[h]:p' hop` through the shell; a
//   recording `ssh` first on PATH writes that argv down and exits, and the hop is resolved by the same oracle,
//   recursively, outermost first.
//
// Every process runs in a network namespace of its own with only a loopback device, where every IPv4 address is
// local (`local default dev lo`) and a listener accepts (and closes) on the port ssh connects to, so a direct
// connection reaches the point where ssh loads the identity files and then ends. Nothing can reach a real host:
// names resolve only through the scenario's hosts file (nss_wrapper), and there is no route out.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { isIP } from 'node:net';
import type { ResolveJson } from '../../src/core/ssh/resolve/types';

/** `servelab ssh resolve --json` without `source`, as OpenSSH answers it. */
export type ExpectedResolveJson = Omit<ResolveJson, 'source'>;

export type OracleAnswer =
  | { accepted: true; json: ExpectedResolveJson }
  | { accepted: false; message: string; /** The file and line ssh names, when it names one. */ location: { file: string; line: number } | null };

export interface OracleRequest {
  /** ssh options before the destination: -F, -l, -p, -i, -J as the user gave them. */
  args: string[];
  destination: string;
  /** The whole environment (nss_wrapper variables included). */
  env: Record<string, string>;
  cwd: string;
}

interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const SSH_BINARY = '/usr/bin/ssh';
/**
 * A guard against a run that hangs, not a speed limit: the differential runs at nice 10 beside the other suites, and a
 * starved Node start of the built CLI has taken more than 15 s on the two-core CI machine.
 */
const RUN_TIMEOUT_MS = 90_000;
const MAX_JUMP_DEPTH = 8;

// Inside the namespace: listens on the ports asked for on stdin (one per line), answers each with the port once it
// listens, and closes every accepted connection at once.
const LISTENER_SCRIPT = `
const net = require('node:net');
const servers = new Map();
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const port = Number(line);
  if (servers.has(port)) { process.stdout.write(port + '\\n'); return; }
  const server = net.createServer((socket) => socket.destroy());
  server.on('error', (e) => process.stdout.write('error ' + port + ' ' + e.message + '\\n'));
  server.listen({ port, host: '::', ipv6Only: false }, () => { servers.set(port, server); process.stdout.write(port + '\\n'); });
});
process.stdin.on('end', () => process.exit(0));
`;

// A stand-in for ssh on PATH: ssh runs the implicit ProxyJump command through the shell, so this records the
// hop's argv (NUL-separated, one run per line) and ends, which ends the connection attempt.
const RECORDING_SSH = `#!/bin/sh
{ for a in "$@"; do printf '%s\\0' "$a"; done; printf '\\n'; } >> "$SSH_ORACLE_RECORD"
exit 0
`;

function ip(args: string[]): void {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')} failed (${result.status}): ${result.stderr.trim()}`);
}

export class SshOracle {
  private waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }[]>();
  private listening = new Set<number>();
  private runCounter = 0;

  private constructor(
    /** The network namespace every process of the test runs in. */
    readonly namespace: string,
    private readonly dir: string,
    private readonly listener: ChildProcessWithoutNullStreams,
    private readonly removeNamespace: () => void,
    /** Added to every process's nice value (0: as this process). */
    private readonly niceness: number,
  ) {
    createInterface({ input: listener.stdout }).on('line', (line) => this.onListenerLine(line));
  }

  /**
   * Creates the namespace (needs CAP_NET_ADMIN: CI runs as root) and its listener. `niceness` runs every ssh and
   * CLI process at a lower CPU priority (nice -n), so a long differential uses the CPU other suites leave idle
   * instead of slowing them down; the answers do not depend on it.
   */
  static async start(opts: { niceness?: number } = {}): Promise<SshOracle> {
    const namespace = `slora${randomBytes(3).toString('hex')}`;
    try {
      ip(['netns', 'add', namespace]);
    } catch (error) {
      throw new Error(`The ssh oracle runs ssh in a network namespace of its own, which needs root (CAP_NET_ADMIN; CI runs as root): ${(error as Error).message}`, { cause: error });
    }
    const removeNamespace = () => void spawnSync('ip', ['netns', 'del', namespace]);
    // A crashed run must not leave the namespace behind.
    process.once('exit', removeNamespace);
    ip(['-n', namespace, 'link', 'set', 'lo', 'up']);
    ip(['-n', namespace, 'route', 'add', 'local', 'default', 'dev', 'lo', 'table', 'local']);
    ip(['-n', namespace, '-6', 'route', 'add', 'local', 'default', 'dev', 'lo', 'table', 'local']);
    const dir = await mkdtemp(join(tmpdir(), 'servelab-ssh-oracle-'));
    await writeFile(join(dir, 'ssh'), RECORDING_SSH);
    await chmod(join(dir, 'ssh'), 0o755);
    const listener = spawn('ip', ['netns', 'exec', namespace, process.execPath, '-e', LISTENER_SCRIPT], { stdio: 'pipe' });
    return new SshOracle(namespace, dir, listener, removeNamespace, opts.niceness ?? 0);
  }

  async stop(): Promise<void> {
    this.listener.stdin.end();
    this.listener.kill();
    this.removeNamespace();
    process.removeListener('exit', this.removeNamespace);
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Runs a command inside the namespace. `argv0` is what the program sees as its name. */
  exec(command: string, args: string[], opts: { env: Record<string, string>; cwd: string; argv0?: string }): Promise<ProcessResult> {
    const inner = opts.argv0 === undefined ? [command, ...args] : ['/bin/bash', '-c', 'exec -a "$0" "$@"', opts.argv0, command, ...args];
    return new Promise((resolve, reject) => {
      const inNamespace = ['ip', 'netns', 'exec', this.namespace, ...inner];
      const [file, ...spawnArgs] = this.niceness === 0 ? inNamespace : ['nice', '-n', String(this.niceness), ...inNamespace];
      const child = spawn(file as string, spawnArgs, { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
      let killed = false;
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, RUN_TIMEOUT_MS);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        if (killed) stderr += `\n[killed: still running after ${RUN_TIMEOUT_MS / 1000} s]`;
        // ssh ends its log lines with \r\n when it writes them to a non-terminal stderr.
        resolve({ code, stdout: stdout.replaceAll('\r\n', '\n'), stderr: stderr.replaceAll('\r\n', '\n') });
      });
    });
  }

  /** OpenSSH's answer for one request. */
  async resolve(request: OracleRequest): Promise<OracleAnswer> {
    return this.resolveAt(request, 0);
  }

  private async resolveAt(request: OracleRequest, depth: number): Promise<OracleAnswer> {
    if (depth > MAX_JUMP_DEPTH) throw new Error(`ProxyJump deeper than ${MAX_JUMP_DEPTH} hops for ${request.destination}`);
    const printed = await this.exec(SSH_BINARY, ['-G', ...request.args, request.destination], { env: request.env, cwd: request.cwd, argv0: 'ssh' });
    if (printed.code !== 0) return refusal(printed.stderr);
    const options = parseDump(printed.stdout);
    const one = (key: string): string | undefined => options.get(key)?.[0];
    const hostname = required(one('hostname'), 'hostname');
    const port = Number(required(one('port'), 'port'));
    const proxyCommandSet = one('proxycommand') !== undefined && one('proxycommand')?.toLowerCase() !== 'none';
    const proxyJumpSet = one('proxyjump') !== undefined && one('proxyjump')?.toLowerCase() !== 'none';

    const connect = await this.connectTime(request, hostname, port, !proxyCommandSet && !proxyJumpSet);
    // ssh -G accepts some configs that ssh itself gives up on before it talks to the server (an unknown %-token in
    // IdentityFile, a ${VAR} that is not set): those are refusals too.
    // Past loading the identities, ssh talks to the server (here: a closed connection or an ended proxy command).
    if (!/^(debug1: Local version string |kex_exchange_identification: |banner exchange: |Connection timed out during banner exchange|Connection closed by )/m.test(connect.stderr)) {
      return refusal(connect.stderr);
    }
    const identityLines = matches(connect.stderr, /^debug1: identity file (.*) type -?\d+$/);
    const identityFiles = options.has('certificatefile') ? identityLines : withoutImplicitCertificates(identityLines);
    const certificateFiles = matches(connect.stderr, /^debug1: certificate file (.*) type -?\d+$/);

    let proxyCommand: string | null = null;
    if (proxyCommandSet) {
      const executed = matches(connect.stderr, /^debug1: Executing proxy command: exec (.*)$/);
      proxyCommand = required(executed[0], `the executed proxy command in ssh -v's output:\n${connect.stderr}`);
    }

    const proxyJump: ExpectedResolveJson['proxyJump'] = [];
    if (proxyJumpSet) {
      const hopArgv = required(connect.recorded[0], `the implicit ProxyJump command's argv (ssh -v said:\n${connect.stderr})`);
      const { args, destination } = hopRequest(hopArgv);
      const hop = await this.resolveAt({ ...request, args, destination }, depth + 1);
      if (!hop.accepted) throw new Error(`ssh refused jump host ${destination} of ${request.destination}: ${hop.message}`);
      proxyJump.push(...hop.json.proxyJump, { user: hop.json.user, hostname: hop.json.hostname, port: hop.json.port, identityFiles: hop.json.identityFiles });
    }

    const connectTimeout = one('connecttimeout');
    return {
      accepted: true,
      json: {
        hostname,
        port,
        user: required(one('user'), 'user'),
        identityFiles,
        identitiesOnly: one('identitiesonly') === 'yes',
        identityAgent: identityAgent(one('identityagent'), request.env),
        certificateFiles,
        proxyJump,
        proxyCommand,
        hostKeyAlias: one('hostkeyalias') ?? null,
        strictHostKeyChecking: strictHostKeyChecking(required(one('stricthostkeychecking'), 'stricthostkeychecking')),
        // `ssh -G` prints an empty list (UserKnownHostsFile none) as `none`, and the files `~`-expanded, joined by
        // single spaces and unquoted (`"/tmp/a b/kh" /tmp/c` prints `/tmp/a b/kh /tmp/c`, checked with 9.2): a word
        // that does not start a path (`/`, `~`) belongs to the one before.
        userKnownHostsFiles: one('userknownhostsfile') === 'none' ? [] : joinedPaths(one('userknownhostsfile') ?? ''),
        connectTimeout: connectTimeout === undefined || connectTimeout === 'none' ? null : Number(connectTimeout),
        serverAliveInterval: Number(required(one('serveraliveinterval'), 'serveraliveinterval')),
        serverAliveCountMax: Number(required(one('serveralivecountmax'), 'serveralivecountmax')),
      },
    };
  }

  /**
   * `ssh -v` up to the point where it has loaded its identity files. A direct connection gets a listener on its
   * port and its host name an address (in a copy of the hosts file, after the ones the scenario gives, so it
   * changes no canonicalisation); a proxied one runs its command, with the recording ssh first on PATH.
   */
  private async connectTime(request: OracleRequest, hostname: string, port: number, direct: boolean): Promise<ProcessResult & { recorded: string[][] }> {
    const run = ++this.runCounter;
    const record = join(this.dir, `record-${run}`);
    const env: Record<string, string> = { ...request.env, SSH_ORACLE_RECORD: record, PATH: `${this.dir}:${request.env.PATH ?? '/usr/bin:/bin'}` };
    if (direct) {
      await this.listen(port);
    }
    if (direct && !isIP(hostname)) {
      const hostsCopy = join(this.dir, `hosts-${run}`);
      const hosts = request.env.NSS_WRAPPER_HOSTS === undefined ? '' : await readFile(request.env.NSS_WRAPPER_HOSTS, 'utf8');
      await writeFile(hostsCopy, `${hosts}${hosts === '' || hosts.endsWith('\n') ? '' : '\n'}198.51.100.250 ${hostname}\n`);
      env.NSS_WRAPPER_HOSTS = hostsCopy;
    }
    // ssh's log goes to its own file (-E): a proxy command's stderr cannot interleave with it.
    const log = join(this.dir, `log-${run}`);
    const args = ['-v', '-E', log, '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=1', ...request.args, request.destination, 'true'];
    const result = await this.exec(SSH_BINARY, args, { env, cwd: request.cwd, argv0: 'ssh' });
    // What ssh itself logged; what the proxy commands wrote stays in result.stderr.
    result.stderr = (await readFile(log, 'utf8').catch(() => '')).replaceAll('\r\n', '\n');
    await rm(log, { force: true });
    const recorded = await readFile(record, 'utf8').then(
      (text) => text.split('\n').filter((line) => line !== '').map((line) => line.split('\0').slice(0, -1)),
      () => [],
    );
    await rm(record, { force: true });
    if (env.NSS_WRAPPER_HOSTS !== request.env.NSS_WRAPPER_HOSTS) await rm(env.NSS_WRAPPER_HOSTS ?? '', { force: true });
    return { ...result, recorded };
  }

  private listen(port: number): Promise<void> {
    if (this.listening.has(port)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(port) ?? [];
      queue.push({ resolve, reject });
      this.waiting.set(port, queue);
      if (queue.length === 1) this.listener.stdin.write(`${port}\n`);
    });
  }

  private onListenerLine(line: string): void {
    const failed = /^error (\d+) (.*)$/.exec(line);
    const port = Number(failed ? failed[1] : line);
    const queue = this.waiting.get(port) ?? [];
    this.waiting.delete(port);
    if (!failed) this.listening.add(port);
    for (const waiter of queue) {
      if (failed) waiter.reject(new Error(`cannot listen on ${port} in the namespace: ${failed[2]}`));
      else waiter.resolve();
    }
  }
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`ssh did not give ${what}`);
  return value;
}

/** `ssh -G` output: keyword → the rest of each line with that keyword, in order. */
export function parseDump(text: string): Map<string, string[]> {
  const options = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const key = line.slice(0, space).toLowerCase();
    options.set(key, [...(options.get(key) ?? []), line.slice(space + 1)]);
  }
  return options;
}

function matches(text: string, pattern: RegExp): string[] {
  return text
    .split('\n')
    .map((line) => pattern.exec(line)?.[1])
    .filter((value): value is string => value !== undefined);
}

/**
 * Without any CertificateFile, ssh follows each identity file with a try of `<file>-cert`, logged the same way;
 * those are certificate loads, not IdentityFile entries.
 */
export function withoutImplicitCertificates(lines: string[]): string[] {
  const files: string[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const file = lines[i] ?? '';
    if (lines[i + 1] !== `${file}-cert`) throw new Error(`expected ssh to try ${file}-cert after ${file}, got ${lines[i + 1]}`);
    files.push(file);
  }
  return files;
}

/**
 * The agent ssh would use (ssh.c, after loading identities): unset or `SSH_AUTH_SOCK` → the environment's
 * SSH_AUTH_SOCK; `$VAR` → that variable (unset: no agent); otherwise the printed, already expanded path.
 */
export function identityAgent(printed: string | undefined, env: Record<string, string>): string {
  const fromEnv = (name: string) => (env[name] === undefined || env[name] === '' ? 'none' : env[name]);
  if (printed === undefined || printed === 'SSH_AUTH_SOCK') return fromEnv('SSH_AUTH_SOCK');
  if (printed === 'none') return 'none';
  if (printed.startsWith('$') && !printed.startsWith('${')) return fromEnv(printed.slice(1));
  return printed;
}

function strictHostKeyChecking(printed: string): ExpectedResolveJson['strictHostKeyChecking'] {
  const values: Record<string, ExpectedResolveJson['strictHostKeyChecking']> = { true: 'yes', false: 'no', ask: 'ask', 'accept-new': 'accept-new' };
  const value = values[printed];
  if (value === undefined) throw new Error(`unexpected stricthostkeychecking ${printed}`);
  return value;
}

/** The implicit ProxyJump argv, minus what only the connection needs (`-v`, `-W host:port`). */
export function hopRequest(argv: string[]): { args: string[]; destination: string } {
  const args: string[] = [];
  for (let i = 0; i < argv.length - 1; i++) {
    const arg = argv[i] ?? '';
    if (/^-v+$/.test(arg)) continue;
    if (arg === '-W') {
      i++;
      continue;
    }
    args.push(arg);
  }
  const destination = argv[argv.length - 1];
  if (destination === undefined) throw new Error('empty ProxyJump argv');
  return { args, destination };
}

/** ssh's refusal: its message, and the `FILE: line N:` it names first, if any. */
export function refusal(stderr: string): OracleAnswer {
  const message = stderr
    .split('\n')
    .filter((line) => line !== '' && !/^(debug\d|OpenSSH_|Pseudo-terminal will not be allocated)/.test(line))
    .join('\n');
  // ssh says `FILE: line N: …` for unknown keywords and `FILE line N: …` for bad values.
  const located = /^(\S.*?):? line (\d+): /m.exec(message);
  return { accepted: false, message, location: located ? { file: located[1] ?? '', line: Number(located[2]) } : null };
}

/** The files of ssh -G's known_hosts line, where a path may contain a space (see userKnownHostsFiles). */
function joinedPaths(line: string): string[] {
  const files: string[] = [];
  for (const word of line.split(' ')) {
    if (word === '') continue;
    if (files.length > 0 && !/^[/~]/.test(word)) files[files.length - 1] += ` ${word}`;
    else files.push(word);
  }
  return files;
}
