// The built-in ssh_config(5) reader: for machines without an OpenSSH client, it resolves a destination to the
// options `ssh -G` (OpenSSH 9.2, Debian 12 build) would print, following ssh.c main step by step: command-line
// options first, the config files (the user's, then the system-wide one; or only -F), HostName, lower-casing,
// canonicalisation, the final pass, defaults, and the expansions done before printing.
import { asciiLower } from './patterns';
import { ServelabError } from '../../../../shared/contract';
import { RESOLVE_TIMEOUT_MS, runInOwnGroup } from '../process-group';
import { accessSync, constants, statSync } from 'node:fs';
import type { RawSshOptions, SshResolveContext, SshResolveRequest } from '../types';
import { followBareCname, isAddr, resolveCanonicalize, CANONICALISE_NO, type LookupHost } from './canonicalise';
import { SshDiagnostics } from './diagnostics';
import { DEFAULT_IDENTITY_FILES, DEFAULT_USER_KNOWN_HOSTS, dumpResolved } from './dump';
import { defaultLookupHost } from './host-lookup';
import { ExecAbnormalExit, ShellNotExecutable } from './match';
import { SshOptions } from './options';
import { parseJump, validHostname, validRemoteUser } from './jump';
import { errnoText, processConfigLine, readConfigFile, SSHCONF_CHECKPERM, SSHCONF_FINAL, SSHCONF_USERCONF, type ReaderEnvironment } from './read-config';
import { connectionHash } from './match';
import { percentDollarExpand, percentExpand, tildeExpandFilename, type TildeContext } from './tokens';
import { a2port, parseSshUri } from './values';

export interface BuiltInHooks {
  /** Resolves a name for canonicalisation; default: node:dns lookup (getaddrinfo), CNAME handling as ssh does. */
  lookupHost?: (name: string) => Promise<{ canonicalName?: string } | null>;
  /** Runs a `Match exec` command; default: $SHELL (else /bin/sh) -c command, exit status 0 = match. */
  runExec?: (command: string) => Promise<boolean>;
  /** When the default `Match exec` runner stops a command (ms since the epoch); default: 15 s from the start. */
  execDeadline?: number;
}

const DEFAULT_SSH_PORT = a2port('ssh') > 0 ? a2port('ssh') : 22;

export async function builtInRawOptions(request: SshResolveRequest, ctx: SshResolveContext, hooks: BuiltInHooks = {}): Promise<RawSshOptions> {
  const diag = new SshDiagnostics();
  const options = new SshOptions();
  const passwdFile = passwdDatabase(ctx.env);
  const tilde: TildeContext = { home: ctx.home, passwdFile };
  const lookup: LookupHost = hooks.lookupHost ?? defaultLookupHost(ctx.env);

  // --- Command line (ssh.c main's getopt loop): first value wins, so these come before any config line.
  if (request.user !== undefined) options.setFirst('user', request.user);
  if (request.port !== undefined) {
    if (!Number.isInteger(request.port) || request.port <= 0 || request.port > 65535) diag.fatal(`Bad port '${request.port}'`);
    options.setFirst('port', request.port);
  }
  for (const file of request.identityFiles ?? []) {
    const path = tildeExpandFilename(file, tilde, diag);
    // ssh -i skips (with a warning) a file it cannot stat.
    if (fileExists(path)) options.addFile(options.identityFiles, { path, userProvided: 1 });
  }
  if (request.proxyJump !== undefined) addCommandLineJump(options, request.proxyJump, diag);

  let host = destinationHost(request, options, diag);
  const env: ReaderEnvironment = {
    options,
    diag,
    host,
    originalHost: host,
    localUser: ctx.localUser,
    home: ctx.home,
    uid: ctx.uid,
    env: ctx.env,
    accounts: { passwdFile, groupFile: groupDatabase(ctx.env) },
    localHostname: ctx.localHostname,
    defaultPort: DEFAULT_SSH_PORT,
    wantFinalPass: false,
    runExec: hooks.runExec ?? defaultRunExec(ctx.env, hooks.execDeadline ?? Date.now() + RESOLVE_TIMEOUT_MS),
    globHome: ctx.env.HOME ? ctx.env.HOME : ctx.home,
    userHome: (user) => (user === ctx.localUser ? ctx.home : null),
  };
  if (request.hostName !== undefined) {
    if (!(await processConfigLine(env, `HostName=${request.hostName.replace(/%/g, '%%')}`, 'command-line', 0, null, SSHCONF_USERCONF, 0))) diag.abort();
  }
  const hostArg = host;
  const cmdUser = options.str('user');
  if (cmdUser !== undefined && !validRemoteUser(cmdUser)) diag.fatal('remote username contains invalid characters');
  if (!validHostname(hostArg)) diag.fatal('hostname contains invalid characters');

  // --- First pass over the config files.
  await processConfigFiles(env, request, ctx, false);

  // --- HostName, lower-casing and canonicalisation (ssh.c main, after process_config_files).
  const hostName = options.str('hostname');
  if (hostName !== undefined) {
    host = percentExpand(hostName, { h: host }, diag);
    options.replace('hostname', host, options.origin('hostname'));
  }
  const wasAddr = isAddr(host);
  if (!wasAddr) host = asciiLower(host);
  let resolved = false;
  const canonicalise = options.num('canonicalizehostname') ?? CANONICALISE_NO;
  if (canonicalise !== CANONICALISE_NO || wasAddr) ({ host, resolved } = await resolveCanonicalize(host, options, lookup, diag));
  if (!resolved) host = await followBareCname(host, options, lookup, diag);
  if (canonicalise !== CANONICALISE_NO) env.wantFinalPass = true;

  // --- The final pass: Host lines now match the final host name.
  if (env.wantFinalPass) {
    options.replace('hostname', host, options.origin('hostname'));
    env.host = host;
    await processConfigFiles(env, request, ctx, true);
  }

  // --- fill_default_options and the checks ssh.c main makes before printing.
  if (options.identityFiles.length === 0) for (const path of DEFAULT_IDENTITY_FILES) options.addFile(options.identityFiles, { path, userProvided: 0 });
  const user = options.str('user') ?? ctx.localUser;
  if (options.jump?.spec === 'none') options.jump = null;
  const port = options.num('port') ?? DEFAULT_SSH_PORT;
  const jump = options.jump?.spec;
  if (jump && jump !== 'none') {
    const jumpPort = jump.port > 0 ? jump.port : DEFAULT_SSH_PORT;
    if (jump.host === host && port === jumpPort && user === (jump.user ?? user)) diag.fatal(`jumphost loop via ${jump.host}`);
  }
  const proxyCommand = options.str('proxycommand');
  if (proxyCommand === '-' && options.num('proxyusefdpass') === 1 && !jump) diag.fatal('ProxyCommand=- and ProxyUseFDPass are incompatible');
  if ((options.num('connectionattempts') ?? 1) <= 0) diag.fatal('Invalid number of ConnectionAttempts');
  // -G is given no command, so a ForkAfterAuthentication without RemoteCommand cannot work (ssh.c main).
  const remote = options.str('remotecommand');
  if (options.num('forkafterauthentication') === 1 && (remote === undefined || remote.toLowerCase() === 'none') && options.num('sessiontype') !== 0) {
    diag.fatal('Cannot fork into background without a command to execute.');
  }

  // --- Expansions ssh.c main does before dump_client_config.
  const thisHost = ctx.localHostname;
  const keyAlias = options.str('hostkeyalias');
  const keyAliasLower = keyAlias === undefined ? undefined : asciiLower(keyAlias);
  const tokens = {
    C: connectionHash(thisHost, host, String(port), user),
    L: thisHost.split('.')[0] as string,
    i: String(ctx.uid),
    k: keyAliasLower ?? hostArg,
    l: thisHost,
    n: hostArg,
    p: String(port),
    d: ctx.home,
    h: host,
    r: user,
    u: ctx.localUser,
  };
  const remoteCommand = options.str('remotecommand');
  if (remoteCommand !== undefined && remoteCommand.toLowerCase() !== 'none') percentExpand(remoteCommand, tokens, diag);
  const controlPath = options.str('controlpath');
  if (controlPath !== undefined && controlPath.toLowerCase() !== 'none') percentDollarExpand(tildeExpandFilename(controlPath, tilde, diag), tokens, ctx.env, diag);
  const agent = options.str('identityagent');
  const identityAgent = agent === undefined ? undefined : percentDollarExpand(tildeExpandFilename(agent, tilde, diag), tokens, ctx.env, diag);
  const agentSock = options.str('forwardagentsockpath');
  if (agentSock !== undefined) percentDollarExpand(tildeExpandFilename(agentSock, tilde, diag), tokens, ctx.env, diag);
  const userHosts = options.lists.get('userknownhostsfile')?.values ?? DEFAULT_USER_KNOWN_HOSTS;
  const userKnownHostsFiles =
    userHosts.length > 0 && userHosts[0]?.toLowerCase() === 'none'
      ? []
      : userHosts.map((f) => percentDollarExpand(tildeExpandFilename(f, tilde, diag), tokens, ctx.env, diag));

  // dump_client_config expands HostKeyAlgorithms first; a list of nothing but commas cannot be (kex_assemble_names).
  const hostKeyAlgorithms = options.str('hostkeyalgorithms');
  if (hostKeyAlgorithms !== undefined && /^[+^-]?,+$/.test(hostKeyAlgorithms)) diag.fatal('dump_client_config: expand HostKeyAlgorithms: invalid argument');
  const raw = dumpResolved({ options, host, user, port, userKnownHostsFiles, identityAgent });
  // What ssh would have printed on stderr without giving up.
  if (diag.lines.length > 0) raw.warnings = [...diag.lines];
  return raw;
}

/** ssh.c main: an ssh:// URI or [user@]host; the user part counts only when -l gave none. */
function destinationHost(request: SshResolveRequest, options: SshOptions, diag: SshDiagnostics): string {
  const dest = request.destination;
  const uri = parseSshUri(dest);
  if (uri === 'invalid') diag.fatal(`Bad destination '${dest}'`);
  if (uri !== 'not-uri') {
    if (uri.user !== null) options.setFirst('user', uri.user);
    if (uri.port !== -1) options.setFirst('port', uri.port);
    return uri.host;
  }
  const at = dest.lastIndexOf('@');
  if (at === 0) diag.fatal(`Bad destination '${dest}'`);
  if (at > 0) {
    options.setFirst('user', dest.slice(0, at));
    return dest.slice(at + 1);
  }
  return dest;
}

/** ssh.c -J: one only, validated strictly; it turns ProxyCommand off. */
function addCommandLineJump(options: SshOptions, value: string, diag: SshDiagnostics): void {
  if (value.toLowerCase() === 'none') {
    options.jump = { spec: 'none' };
  } else {
    const spec = parseJump(value, true, (message) => diag.error(message));
    if (spec === null) diag.fatal('Invalid -J argument');
    options.jump = { spec };
  }
  options.setFirst('proxycommand', 'none');
}

/** ssh.c process_config_files. */
async function processConfigFiles(env: ReaderEnvironment, request: SshResolveRequest, ctx: SshResolveContext, finalPass: boolean): Promise<void> {
  const final = finalPass ? SSHCONF_FINAL : 0;
  if (request.configFile !== undefined) {
    if (request.configFile.toLowerCase() === 'none') return;
    const r = await readConfigFile(env, request.configFile, SSHCONF_USERCONF | final, { active: true }, 0);
    if (!r.opened) env.diag.fatal(`Can't open user config file ${request.configFile.slice(0, 100)}: ${errnoText(r.errno)}`);
    return;
  }
  await readConfigFile(env, `${ctx.home}/.ssh/config`, SSHCONF_CHECKPERM | SSHCONF_USERCONF | final, { active: true }, 0);
  await readConfigFile(env, ctx.systemConfigFile, final, { active: true }, 0);
}

function fileExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Where `~user` is looked up: the wrapped passwd file when libnss-wrapper is in use, as for ssh. */
function passwdDatabase(env: NodeJS.ProcessEnv): string {
  const wrapped = (env.LD_PRELOAD ?? '').includes('nss_wrapper') ? env.NSS_WRAPPER_PASSWD : undefined;
  return wrapped || '/etc/passwd';
}

function groupDatabase(env: NodeJS.ProcessEnv): string {
  const wrapped = (env.LD_PRELOAD ?? '').includes('nss_wrapper') ? env.NSS_WRAPPER_GROUP : undefined;
  return wrapped || '/etc/group';
}

/**
 * readconf.c execute_in_shell: $SHELL (else /bin/sh) -c, stdin and stdout on /dev/null, stderr kept. In its own
 * process group, stopped with everything it started when the time is up (ssh itself would wait forever).
 */
function defaultRunExec(env: NodeJS.ProcessEnv, deadline: number): (command: string) => Promise<boolean> {
  return async (command) => {
    const shell = env.SHELL ?? '/bin/sh';
    try {
      accessSync(shell, constants.X_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EACCES';
      throw new ShellNotExecutable(`Shell "${shell}" is not executable: ${errnoText(code)}`);
    }
    const timeoutMs = Math.max(0, deadline - Date.now());
    const run = await runInOwnGroup(shell, ['-c', command], { env, timeoutMs, stdio: ['ignore', 'ignore', 'inherit'] });
    if (run.timedOut) {
      throw new ServelabError('TIMEOUT', `Match exec "${command.slice(0, 100)}" did not finish in time; it and what it started were stopped.`, {
        details: { command: command.slice(0, 100) },
      });
    }
    if (run.signal !== null || run.code === null) throw new ExecAbnormalExit(command);
    return run.code === 0;
  };
}
