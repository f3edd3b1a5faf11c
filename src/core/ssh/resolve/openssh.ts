import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ServelabError } from '../../../shared/contract';
import { RESOLVE_TIMEOUT_MS, runInOwnGroup } from './process-group';
import { sshRefusal } from './refusal';
import { RESOLVED_KEYWORDS, type RawSshOptions, type SshResolveContext, type SshResolveRequest } from './types';

/** The keywords `ssh -G` prints once per value. */
export const REPEATING_KEYWORDS: ReadonlySet<string> = new Set(['identityfile', 'certificatefile']);
const WANTED: ReadonlySet<string> = new Set(RESOLVED_KEYWORDS);
export const SSH_G_TIMEOUT_MS = RESOLVE_TIMEOUT_MS;

function isExecutableFile(path: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform !== 'win32') accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The OpenSSH client: `ssh` on PATH, else (Windows) the optional feature's `%SystemRoot%\System32\OpenSSH\ssh.exe`.
 * Null when there is none: the built-in reader resolves hosts then.
 */
export function findOpenSsh(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string | null {
  const name = platform === 'win32' ? 'ssh.exe' : 'ssh';
  // Without PATH, programs are looked up where execvp looks: the system's default path.
  const pathValue = env.PATH ?? env.Path ?? (platform === 'win32' ? '' : '/usr/bin:/bin');
  for (const dir of pathValue.split(platform === 'win32' ? ';' : delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate, platform)) return candidate;
  }
  if (platform === 'win32') {
    const root = env.SystemRoot ?? env.SYSTEMROOT ?? 'C:\\Windows';
    const candidate = `${root}\\System32\\OpenSSH\\ssh.exe`;
    if (isExecutableFile(candidate, platform)) return candidate;
  }
  return null;
}

/** ssh's command line for `ssh -G`: the options the user gave, then the destination. */
export function sshGArgs(request: SshResolveRequest): string[] {
  if (request.destination === '' || request.destination.startsWith('-')) {
    throw new ServelabError('BAD_INPUT', `"${request.destination}" is not a host name: it must not be empty or start with "-".`, {
      issues: [{ path: 'destination', message: 'is not a host name' }],
    });
  }
  const args = ['-G'];
  if (request.configFile !== undefined) args.push('-F', request.configFile);
  if (request.user !== undefined) args.push('-l', request.user);
  if (request.port !== undefined) args.push('-p', String(request.port));
  for (const file of request.identityFiles ?? []) args.push('-i', file);
  if (request.proxyJump !== undefined) args.push('-J', request.proxyJump);
  // ssh expands %-tokens in HostName: a `%` of the address itself (fe80::1%eth0) is written `%%`.
  if (request.hostName !== undefined) args.push('-o', `HostName=${request.hostName.replace(/%/g, '%%')}`);
  args.push(request.destination);
  return args;
}

/** What `ssh -G` printed, reduced to the keywords Servelab uses. */
export function parseSshGOutput(stdout: string): RawSshOptions {
  const values = new Map<string, string[]>();
  for (const line of stdout.split(/\r?\n/)) {
    const match = /^(\S+)\s(.*)$/.exec(line);
    if (!match) continue;
    const keyword = (match[1] as string).toLowerCase();
    if (!WANTED.has(keyword)) continue;
    const value = match[2] as string;
    const list = values.get(keyword);
    if (list && REPEATING_KEYWORDS.has(keyword)) list.push(value);
    else if (!list) values.set(keyword, [value]);
  }
  return { values, origins: new Map() };
}

/** ssh's complaint without the lines it prints on every non-interactive run. */
export function cleanSshStderr(stderr: string): string {
  return stderr
    .replace(/Pseudo-terminal will not be allocated because stdin is not a terminal\.\r?\n?/g, '\n')
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line !== '')
    .join('\n');
}

/** Asks OpenSSH how it would reach the host: `ssh -G` with the request's options, in the context's environment. */
export async function openSshRawOptions(
  request: SshResolveRequest,
  ctx: Pick<SshResolveContext, 'env'>,
  sshPath: string,
  timeoutMs: number = SSH_G_TIMEOUT_MS,
): Promise<RawSshOptions> {
  const args = sshGArgs(request);
  const details = { host: request.destination, ssh: sshPath };
  let run;
  try {
    run = await runInOwnGroup(sshPath, args, { env: ctx.env, timeoutMs, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const cannotRun = code === 'ENOENT' || code === 'EACCES' || code === 'ENOEXEC';
    throw new ServelabError(cannotRun ? 'NOT_SUPPORTED' : 'INTERNAL', `The OpenSSH client ${sshPath} could not be started to resolve ${request.destination}: ${(error as Error).message}.`, {
      details: { ...details, errno: code },
    });
  }
  if (run.timedOut) {
    throw new ServelabError(
      'TIMEOUT',
      `ssh -G ${request.destination} gave no answer within ${timeoutMs / 1000} s (a Match exec in the config that does not finish?); ssh and what it started were stopped.`,
      { details },
    );
  }
  const stderr = cleanSshStderr(run.stderr);
  if (run.code !== 0) throw sshRefusal(stderr || `ssh -G ${request.destination} failed (${run.signal ?? `exit status ${run.code}`}).`, request, details);
  const raw = parseSshGOutput(run.stdout);
  // ssh resolved the host but said something: a missing identity file, a deprecated option.
  if (stderr !== '') raw.warnings = stderr.split('\n');
  return raw;
}
