// `servelab ssh resolve`: what Servelab will do to reach a host, resolved the way ssh resolves it.
import { resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import { parseSinglePositional, UsageError } from '../command-line';
import type { CliIo } from '../cli-io';
import { ServelabError } from '../../shared/contract';
import { localSshResolveContext, resolveSshHost, type ResolverChoice } from '../../core/ssh/resolve/resolve-host';
import { resolveJson, type ConfigOrigin, type ResolvedSshHost, type SshResolveRequest } from '../../core/ssh/resolve/types';
import { resolveWarnings } from '../../core/ssh/resolve/view';

export const SSH_USAGE = `Usage: servelab ssh resolve [user@]ALIAS [-F FILE] [-l USER] [-p PORT] [-i KEY]... [-J JUMP] [--json]
                            [--resolver auto|ssh|built-in]

Prints how Servelab will reach a host, resolved as ssh resolves it: by asking the OpenSSH client (ssh -G) where it
is installed, else with the built-in ssh_config reader. The options mean what they mean to ssh.

  -F FILE           the only config file read (default: ~/.ssh/config, then the system-wide file)
  -l USER           the remote user (also: user@ALIAS)
  -p PORT           the port
  -i KEY            an identity file, tried before the config's IdentityFile (may be repeated)
  -J JUMP           jump hosts, [user@]host[:port][,…] outermost first; "none" turns the config's ProxyJump off
  --json            print the resolved host as one JSON object
  --resolver WHICH  auto (default: ssh -G when OpenSSH is installed), ssh, or built-in
  -h, --help        show this help

Exit codes: 0 resolved, 1 the host could not be resolved (ssh's message is printed), 2 usage.`;

interface ResolveCommand {
  request: SshResolveRequest;
  resolver: ResolverChoice;
  json: boolean;
}

const RESOLVERS: Record<string, ResolverChoice> = { auto: 'auto', ssh: 'ssh -G', 'built-in': 'built-in' };

const RESOLVE_OPTIONS = {
  config: { type: 'string', short: 'F' },
  login: { type: 'string', short: 'l' },
  port: { type: 'string', short: 'p' },
  identity: { type: 'string', short: 'i', multiple: true },
  jump: { type: 'string', short: 'J', multiple: true },
  json: { type: 'boolean' },
  resolver: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Whether `-l` comes before the destination on the command line (args already checked by parseSinglePositional). */
function loginBeforeDestination(args: string[]): boolean {
  const { tokens } = parseArgs({ args, options: RESOLVE_OPTIONS, allowPositionals: true, strict: false, tokens: true });
  const login = tokens.findIndex((token) => token.kind === 'option' && token.name === 'login');
  const destination = tokens.findIndex((token) => token.kind === 'positional');
  return login >= 0 && (destination < 0 || login < destination);
}

export function parseResolve(args: string[], io: CliIo): ResolveCommand | 'help' {
  const { values, positional, help } = parseSinglePositional(args, RESOLVE_OPTIONS, { missing: 'name the host to resolve.', noun: 'host' });
  if (help) return 'help';

  const at = positional.lastIndexOf('@');
  const destination = at >= 0 ? positional.slice(at + 1) : positional;
  if (destination === '' || destination.startsWith('-')) throw new UsageError(`"${positional}" is not a host name.`);
  const request: SshResolveRequest = { destination };
  // With both -l and user@, the one that comes first wins, as with ssh (each sets the user only if it is unset).
  const userPart = at > 0 ? positional.slice(0, at) : undefined;
  const user = values.login !== undefined && (userPart === undefined || loginBeforeDestination(args)) ? values.login : userPart;
  if (user !== undefined) request.user = user;
  // `-F none` reads no config file at all, as in ssh.
  if (values.config !== undefined) request.configFile = values.config === 'none' ? 'none' : resolvePath(io.cwd, values.config);
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port < 1 || port > 65535) throw new UsageError(`-p ${values.port}: must be a whole number 1–65535.`);
    request.port = port;
  }
  // As given: ssh keeps a relative -i relative to where it runs (and expands `~` itself, as for IdentityFile).
  if (values.identity !== undefined) request.identityFiles = values.identity;
  if (values.jump !== undefined) {
    if (values.jump.length > 1) throw new UsageError('give -J once (separate jump hosts with commas), as with ssh.');
    request.proxyJump = values.jump[0] as string;
  }
  const resolver = RESOLVERS[values.resolver ?? 'auto'];
  if (!resolver) throw new UsageError(`--resolver ${values.resolver}: must be auto, ssh or built-in.`);
  return { request, resolver, json: values.json ?? false };
}

function describeOrigin(origin: ConfigOrigin | undefined): string {
  return origin ? `${origin.file}:${origin.line}` : '';
}

/** The resolved host as a table: each value with where it was set, where known. */
export function formatResolved(host: ResolvedSshHost): string {
  const rows: [string, string, string][] = [];
  const add = (label: string, value: string, originKey?: string) => rows.push([label, value, describeOrigin(host.origins[originKey ?? label])]);
  const list = (label: string, files: string[]) => {
    if (files.length === 0) add(label, '(none)');
    files.forEach((file, index) => add(index === 0 ? label : '', file, `${label}#${index}`));
  };
  add('hostname', host.hostname);
  add('port', String(host.port));
  add('user', host.user);
  list('identityFiles', host.identityFiles);
  add('identitiesOnly', host.identitiesOnly ? 'yes' : 'no');
  add('identityAgent', host.identityAgent);
  list('certificateFiles', host.certificateFiles);
  add(
    'proxyJump',
    host.proxyJump.length === 0 ? '(none)' : host.proxyJump.map((hop) => `${hop.user}@${hop.hostname}:${hop.port}${hop.alias !== hop.hostname ? ` (${hop.alias})` : ''}`).join(' -> '),
  );
  add('proxyCommand', host.proxyCommand ?? '(none)');
  add('hostKeyAlias', host.hostKeyAlias ?? '(none)');
  add('strictHostKeyChecking', host.strictHostKeyChecking);
  add('userKnownHostsFiles', host.userKnownHostsFiles.join(' ') || '(none)');
  add('globalKnownHostsFiles', host.globalKnownHostsFiles.join(' ') || '(none)');
  add('connectTimeout', host.connectTimeout === null ? '(system default)' : `${host.connectTimeout} s`);
  add('connectionAttempts', String(host.connectionAttempts));
  add('serverAliveInterval', host.serverAliveInterval === 0 ? '0 (Servelab keeps its own: 15 s × 4)' : `${host.serverAliveInterval} s`);
  add('serverAliveCountMax', String(host.serverAliveCountMax));
  const width = Math.max(...rows.map(([label]) => label.length));
  const valueWidth = Math.max(...rows.map(([, value]) => value.length));
  const lines = [`${host.alias}, resolved by ${host.source}:`];
  for (const [label, value, origin] of rows) lines.push(`  ${label.padEnd(width)}  ${origin ? `${value.padEnd(valueWidth)}  ${origin}` : value}`);
  // ssh's own warnings already start with `Warning:`.
  for (const warning of resolveWarnings(host)) lines.push(/^warning:/i.test(warning) ? warning : `Warning: ${warning}`);
  return lines.join('\n');
}

async function runResolve(args: string[], io: CliIo): Promise<number> {
  let command: ResolveCommand | 'help';
  try {
    command = parseResolve(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab ssh resolve: ${error.message}\n\n${SSH_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (command === 'help') {
    io.stdout(`${SSH_USAGE}\n`);
    return 0;
  }
  let host: ResolvedSshHost;
  try {
    host = await resolveSshHost(command.request, localSshResolveContext(io.env), { resolver: command.resolver });
  } catch (error) {
    // ssh's own complaint about a config is printed as ssh prints it.
    if (error instanceof ServelabError && error.code === 'SSH_CONFIG_INVALID') io.stderr(`${error.message}\n`);
    else io.stderr(`servelab ssh resolve: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  io.stdout(command.json ? `${JSON.stringify(resolveJson(host))}\n` : `${formatResolved(host)}\n`);
  return 0;
}

/** `servelab ssh <subcommand>`. */
export async function runSsh(args: string[], io: CliIo): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'resolve') return runResolve(rest, io);
  if (subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    io.stdout(`${SSH_USAGE}\n`);
    return 0;
  }
  if (subcommand === undefined) {
    io.stderr(`servelab ssh: name a subcommand.\n\n${SSH_USAGE}\n`);
    return 2;
  }
  io.stderr(`servelab ssh: unknown subcommand "${subcommand}".\n\n${SSH_USAGE}\n`);
  return 2;
}
