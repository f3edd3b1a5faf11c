import { parseSinglePositional, UsageError } from '../command-line';
import type { CliIo } from '../cli-io';
import { SSH_OPTIONS, SSH_OPTIONS_USAGE, acceptedKeyWarning, cliSshHost } from '../box-options';
import { ServelabError, type ErrorCode } from '../../shared/contract';
import { formatGpuSummary, type Inventory } from '../../shared/model/inventory';
import type { KnownHostsStore } from '../../core/ssh/known-hosts';
import { connectionKey, targetAddress, targetLabel, type ResolvedSshTarget } from '../../core/ssh/ssh-target';
import type { OpenSshClientOptions } from '../../core/ssh/connect';
import type { AuthSecrets } from '../../core/ssh/auth-plan';
import type { ConnectionLogLevel, ConnectionLogWriter } from '../../core/ssh/connection-log';
import { acceptingNewKeys } from '../../core/ssh/accept-new-keys';
import { PromptBroker } from '../../core/ssh/prompt-broker';
import { attachTtyPrompts, type TtyPromptOptions } from '../tty-prompts';
import { collectInventoryOverSsh } from '../../core/inventory/collect-over-ssh';

export const INVENTORY_USAGE = `Usage: servelab inventory <[user@]host | ssh-config alias> [options]

Reads a GPU box over SSH: GPUs, driver/CUDA, OS, CPUs, memory, Python, uv/pip/docker, disk.
The host is resolved as \`ssh\` resolves it: ~/.ssh/config (Host blocks, Include, %-tokens), ProxyJump,
IdentityFile/IdentitiesOnly, the ssh-agent (IdentityAgent, else SSH_AUTH_SOCK) and ServerAlive*.
Run from a terminal, it asks for the passphrases, passwords and other login answers still needed (typed hidden).

${SSH_OPTIONS_USAGE}
  --password-env VAR     log in with the password held in environment variable VAR
  --passphrase-env VAR   passphrase of encrypted keys (the box's and its jump hosts'), from environment variable VAR
  --timeout SECONDS      give up connecting to each hop after this long (default: 20)
  --json                 print the inventory as JSON
  -v, --verbose          print each step of connecting to stderr (-vv: more detail)
  -h, --help             show this help

Exit codes: 0 ok, 1 other error, 2 usage, 3 unknown host key (of the box or a jump host),
4 changed or revoked host key, 5 authentication failed, 6 connection failed or timed out.`;

const DEFAULT_TIMEOUT_SECONDS = 20;

const EXIT_CODES: Partial<Record<ErrorCode, number>> = {
  HOST_KEY_UNKNOWN: 3,
  HOST_KEY_CHANGED: 4,
  HOST_KEY_REVOKED: 4,
  AUTH_FAILED: 5,
  CONNECT_FAILED: 6,
  TIMEOUT: 6,
};

interface InventoryCommand {
  target: ResolvedSshTarget;
  knownHosts: KnownHostsStore;
  acceptNew: boolean;
  timeoutSeconds: number;
  json: boolean;
  /** From --passphrase-env: tried on every encrypted key, of the box and of its jump hosts. */
  passphrase?: string;
  /** 0 quiet, 1 the connection log without debug lines, 2 everything. */
  verbosity: number;
}

/** The terminal the login questions are asked on; process.stdin and process.stderr unless a test passes its own. */
export interface InventoryTerminal {
  input?: TtyPromptOptions['input'];
  output?: NodeJS.WritableStream;
}

interface HostKeyDetails {
  host: string;
  port: number;
  keyType: string;
  fingerprint: string;
  publicKey: string;
  role?: 'target' | 'jump';
}

export async function runInventory(args: string[], io: CliIo, terminal: InventoryTerminal = {}): Promise<number> {
  let command: InventoryCommand | 'help';
  try {
    command = await parseCommand(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab inventory: ${error.message}\n\n${INVENTORY_USAGE}\n`);
      return 2;
    }
    return reportFailure(error, io);
  }
  if (command === 'help') {
    io.stdout(`${INVENTORY_USAGE}\n`);
    return 0;
  }

  const { target } = command;
  const input = terminal.input ?? process.stdin;
  // Like ssh: questions only when there is a person at a terminal; otherwise keys that need one are skipped.
  const interactive = input.isTTY === true && typeof input.setRawMode === 'function';
  const broker = interactive ? new PromptBroker() : undefined;
  const detach = broker ? attachTtyPrompts(broker, { input, output: terminal.output ?? process.stderr }) : undefined;
  try {
    checkCredentials(target, interactive);
    const log = command.verbosity > 0 ? verboseLog(io, command.verbosity) : undefined;
    log?.('debug', `Route: ${connectionKey(target)}.`);
    const inventory = await collectAcceptingNewKeys(command, io, {
      knownHosts: command.knownHosts,
      timeoutSeconds: command.timeoutSeconds,
      ...(broker ? { prompts: broker } : {}),
      ...(log ? { log } : {}),
    });
    const full: Inventory = { hostId: targetAddress(target), ...inventory };
    io.stdout(command.json ? `${JSON.stringify(full, null, 2)}\n` : formatInventory(full));
    return 0;
  } catch (error) {
    return reportFailure(error, io, target);
  } finally {
    detach?.();
    broker?.cancelAll();
  }
}

/**
 * Connects and inventories; with --accept-new, each unknown host key (jump hosts first, in the order the
 * connection meets them) is stored and the connection started again, until every hop is known. A changed or
 * revoked key is never stored: that failure ends the command.
 */
async function collectAcceptingNewKeys(
  command: InventoryCommand,
  io: CliIo,
  opts: OpenSshClientOptions,
): Promise<Omit<Inventory, 'hostId'>> {
  const { knownHosts } = command;
  let target: ResolvedSshTarget = command.target;
  const typed = typedSecrets(command.passphrase);
  const onAccepted: Parameters<typeof acceptingNewKeys>[2]['onAccepted'] = (key, name) => {
    io.stderr(acceptedKeyWarning(key, name, knownHosts));
    // The next attempt connects afresh: a hop that now shows another key is reported as changed.
    target = typed.applyPasswords(target);
  };
  return acceptingNewKeys(target, knownHosts, { acceptNew: command.acceptNew, onAccepted }, () => collectInventoryOverSsh(target, { ...opts, secrets: typed.secrets }));
}

/**
 * The --passphrase-env passphrase for any encrypted key, and the passphrases and passwords typed during this
 * command, kept in memory only, so that starting the connection again after accepting a key does not ask for
 * them a second time.
 */
function typedSecrets(given: string | undefined): { secrets: AuthSecrets; applyPasswords(target: ResolvedSshTarget): ResolvedSshTarget } {
  const passphrases = new Map<string, string>();
  const passwords = new Map<string, string>();
  return {
    secrets: {
      passphrase: async (file) => passphrases.get(file) ?? given ?? null,
      accepted: (secret, value) => {
        if (secret.kind === 'passphrase') passphrases.set(secret.identityFile, value);
        else passwords.set(targetAddress(secret), value);
      },
    },
    applyPasswords(target) {
      const withTyped = (hop: ResolvedSshTarget): ResolvedSshTarget => {
        const typed = passwords.get(targetAddress(hop));
        return hop.password === undefined && typed !== undefined ? { ...hop, password: typed } : hop;
      };
      return { ...withTyped(target), jumps: target.jumps.map(withTyped) };
    },
  };
}

/** Connection log lines on stderr as they happen; they describe steps and never hold a secret. */
function verboseLog(io: CliIo, verbosity: number): ConnectionLogWriter {
  const prefix: Record<ConnectionLogLevel, string> = { debug: 'debug: ', info: '', warn: 'warning: ', error: 'error: ' };
  return (level, message) => {
    if (level === 'debug' && verbosity < 2) return;
    io.stderr(`servelab: ${prefix[level]}${message}\n`);
  };
}

/**
 * Fails early, naming what to pass, when a hop has nothing to log in with: no key file, no agent, no password
 * and no terminal to ask on.
 */
function checkCredentials(target: ResolvedSshTarget, interactive: boolean): void {
  if (interactive) return;
  for (const hop of [...target.jumps, target]) {
    if (hop.identityFiles.length > 0 || hop.identityFile !== undefined || hop.agentSocket !== null || hop.password !== undefined) continue;
    const isJump = hop !== target;
    throw new ServelabError(
      'AUTH_FAILED',
      `No identity file for ${isJump ? 'jump host ' : ''}${targetLabel(hop)}: ~/.ssh/config names none, no default key ` +
        `(~/.ssh/id_rsa, id_ecdsa, id_ecdsa_sk, id_ed25519, id_ed25519_sk) exists and no ssh-agent is running. ` +
        (isJump
          ? 'Give the jump host an IdentityFile in ~/.ssh/config or load its key into ssh-agent.'
          : 'Pass --identity FILE or --password-env VAR, or load a key into ssh-agent.'),
    );
  }
}

async function parseCommand(args: string[], io: CliIo): Promise<InventoryCommand | 'help'> {
  const { values, positional, help } = parseSinglePositional(
    args,
    {
      ...SSH_OPTIONS,
      'password-env': { type: 'string' },
      'passphrase-env': { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      verbose: { type: 'boolean', short: 'v', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    { missing: 'name the host to inventory.', noun: 'host' },
  );
  if (help) return 'help';

  const env = io.env;
  const host = cliSshHost(positional, values, io);

  let timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
  if (values.timeout !== undefined) {
    timeoutSeconds = Number(values.timeout);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError(`--timeout ${values.timeout}: must be a positive number of seconds.`);
  }

  const password = values['password-env'] !== undefined ? fromEnv(env, values['password-env'], '--password-env') : undefined;
  const passphrase = values['passphrase-env'] !== undefined ? fromEnv(env, values['passphrase-env'], '--passphrase-env') : undefined;
  const target = await host.ssh.resolve(host.spec);
  // The password belongs to the box itself, not to its jump hosts (ssh -J asks each hop for its own).
  if (password !== undefined) target.password = password;

  return {
    target,
    knownHosts: host.ssh.knownHosts,
    acceptNew: host.acceptNew,
    timeoutSeconds,
    json: values.json ?? false,
    ...(passphrase !== undefined ? { passphrase } : {}),
    verbosity: values.verbose?.length ?? 0,
  };
}

function fromEnv(env: NodeJS.ProcessEnv, name: string, option: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new UsageError(`${option} ${name}: that environment variable is not set or empty.`);
  return value;
}

function reportFailure(error: unknown, io: CliIo, target?: ResolvedSshTarget): number {
  if (error instanceof ServelabError) {
    let text = error.message;
    const details = (error.details ?? {}) as Partial<HostKeyDetails> & { needsPassphrase?: boolean };
    if (error.code.startsWith('HOST_KEY_') && details.role === 'jump' && target) {
      const index = target.jumps.findIndex((hop) => hop.host === details.host && hop.port === details.port);
      const hop = target.jumps[index];
      if (hop) text += `\nThat is jump host ${targetLabel(hop)}, hop ${index + 1} of ${target.jumps.length} on the way to ${targetLabel(target)}.`;
    }
    if (error.code === 'HOST_KEY_UNKNOWN') {
      text += '\nIf that fingerprint is right, run the same command with --accept-new to store the key and continue.';
    }
    if (error.code === 'AUTH_FAILED' && details.needsPassphrase) {
      text += ' Pass it with --passphrase-env VAR, load the key into ssh-agent, or run the command from a terminal to be asked.';
    }
    // The host key warnings are already framed like OpenSSH's; other messages get the command's name.
    io.stderr(error.code.startsWith('HOST_KEY_') ? `${text}\n` : `servelab inventory: ${text}\n`);
    return EXIT_CODES[error.code] ?? 1;
  }
  io.stderr(`servelab inventory: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
}

function gib(mib: number): string {
  return `${(mib / 1024).toFixed(mib >= 10 * 1024 ? 0 : 1)} GiB`;
}

/** The short human summary printed without --json. */
export function formatInventory(inv: Inventory): string {
  const lines: string[] = [];
  lines.push(inv.hostname ? `${inv.hostId} (${inv.hostname})` : inv.hostId);
  if (inv.simulated) lines.push('SIMULATED box: these numbers do not come from real GPUs.');
  if (inv.gpuStatus === 'ok') {
    for (const gpu of inv.gpus) {
      const extra: string[] = [];
      if (gpu.memoryUsedMiB !== null) extra.push(`${gpu.memoryUsedMiB} MiB used`);
      if (gpu.utilizationPct !== null) extra.push(`${gpu.utilizationPct}% util`);
      if (gpu.temperatureC !== null) extra.push(`${gpu.temperatureC} °C`);
      if (gpu.powerDrawW !== null && gpu.powerLimitW !== null) extra.push(`${Math.round(gpu.powerDrawW)} W / ${Math.round(gpu.powerLimitW)} W`);
      lines.push(`GPU ${gpu.index}: ${formatGpuSummary(gpu)}${extra.length ? ` (${extra.join(', ')})` : ''}`);
    }
  } else {
    lines.push(`GPUs: none usable (${inv.gpuStatus}): ${inv.gpuMessage ?? 'no details'}`);
  }
  for (const p of inv.gpuProcesses) {
    lines.push(`  process ${p.pid} ${p.processName} on GPU ${p.gpuIndex ?? p.gpuUuid}${p.usedMemoryMiB !== null ? `, ${p.usedMemoryMiB} MiB` : ''}`);
  }
  lines.push(`Driver: ${inv.driverVersion ?? 'unknown'} · CUDA: ${inv.cudaVersion ?? 'unknown'}`);
  const os = [inv.os.name, inv.os.kernel, inv.os.arch].filter((v): v is string => v !== null);
  if (inv.cpuCount !== null) os.push(`${inv.cpuCount} CPUs`);
  if (inv.memoryTotalMiB !== null) os.push(`${gib(inv.memoryTotalMiB)} RAM`);
  lines.push(`OS: ${os.length ? os.join(' · ') : 'unknown'}`);
  const tool = (name: string, t: { present: boolean; version: string | null }) => (t.present ? `${name} ${t.version ?? '(version unknown)'}` : `${name}: not found`);
  lines.push(
    `Python: ${inv.python.version ?? 'not found'} · ${tool('uv', inv.tools.uv)} · ${tool('pip', inv.tools.pip)} · ${tool('docker', inv.tools.docker)}`,
  );
  if (inv.disk.freeMiB !== null && inv.disk.totalMiB !== null) {
    lines.push(`Disk: ${gib(inv.disk.freeMiB)} free of ${gib(inv.disk.totalMiB)}${inv.disk.path ? ` (${inv.disk.path})` : ''}`);
  } else {
    lines.push('Disk: unknown');
  }
  return `${lines.join('\n')}\n`;
}
