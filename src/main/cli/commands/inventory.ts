import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import type { CliIo } from '../cli-io';
import { ServelabError, type ErrorCode } from '../../../shared/contract';
import { HostAddressSchema, PortSchema, SshUserSchema } from '../../../shared/model/host';
import { formatGpuSummary, type Inventory } from '../../../shared/model/inventory';
import { KnownHostsStore, knownHostsName } from '../../ssh/known-hosts';
import { keyTypeLabel } from '../../ssh/fingerprint';
import { resolveSshConfigHost } from '../../ssh/ssh-config';
import type { SshTarget } from '../../ssh/ssh-target';
import { collectInventoryOverSsh } from '../../inventory/collect-over-ssh';
import { defaultDataDir, expandHome } from '../../util/paths';

export const INVENTORY_USAGE = `Usage: servelab inventory <user@host | ssh-config alias> [options]

Reads a GPU box over SSH: GPUs, driver/CUDA, OS, CPUs, memory, Python, uv/pip/docker, disk.

  --port N               SSH port (default: from ~/.ssh/config, else 22)
  --identity FILE        private key (default: IdentityFile from ~/.ssh/config, else ~/.ssh/id_ed25519, id_ecdsa, id_rsa)
  --password-env VAR     log in with the password held in environment variable VAR
  --passphrase-env VAR   passphrase of an encrypted --identity, from environment variable VAR
  --known-hosts FILE     the one known_hosts file to read and, with --accept-new, write
                         (default: the app's known_hosts, plus ~/.ssh/known_hosts read-only)
  --accept-new           trust and store the host key if the host is not known yet (never a changed key)
  --ssh-config FILE      OpenSSH client config to read aliases from (default: ~/.ssh/config)
  --timeout SECONDS      give up connecting after this long (default: 20)
  --json                 print the inventory as JSON
  -h, --help             show this help

Exit codes: 0 ok, 1 other error, 2 usage, 3 unknown host key, 4 changed or revoked host key,
5 authentication failed, 6 connection failed or timed out.`;

const DEFAULT_TIMEOUT_SECONDS = 20;
const DEFAULT_IDENTITIES = ['id_ed25519', 'id_ecdsa', 'id_rsa'];

class UsageError extends Error {}

const EXIT_CODES: Partial<Record<ErrorCode, number>> = {
  HOST_KEY_UNKNOWN: 3,
  HOST_KEY_CHANGED: 4,
  HOST_KEY_REVOKED: 4,
  AUTH_FAILED: 5,
  CONNECT_FAILED: 6,
  TIMEOUT: 6,
};

interface InventoryCommand {
  target: SshTarget;
  knownHosts: KnownHostsStore;
  acceptNew: boolean;
  timeoutSeconds: number;
  json: boolean;
}

export async function runInventory(args: string[], io: CliIo): Promise<number> {
  let command: InventoryCommand | 'help';
  try {
    command = parseCommand(args, io);
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

  const { target, knownHosts, timeoutSeconds } = command;
  let inventory: Omit<Inventory, 'hostId'>;
  try {
    try {
      inventory = await collectInventoryOverSsh(target, { knownHosts, timeoutSeconds });
    } catch (error) {
      if (!(command.acceptNew && error instanceof ServelabError && error.code === 'HOST_KEY_UNKNOWN')) throw error;
      const key = error.details as { host: string; port: number; keyType: string; fingerprint: string; publicKey: string };
      await knownHosts.add({ host: key.host, port: key.port, keyType: key.keyType, publicKey: key.publicKey });
      io.stderr(
        `Warning: Permanently added '${knownHostsName(key.host, key.port)}' (${keyTypeLabel(key.keyType)} ${key.fingerprint}) ` +
          `to the list of known hosts (${knownHosts.writableFile}).\n`,
      );
      // A second connection: if the server now shows another key, that is reported as a changed key.
      inventory = await collectInventoryOverSsh(target, { knownHosts, timeoutSeconds });
    }
  } catch (error) {
    return reportFailure(error, io);
  }

  const full: Inventory = { hostId: `${target.user}@${target.host}:${target.port}`, ...inventory };
  io.stdout(command.json ? `${JSON.stringify(full, null, 2)}\n` : formatInventory(full));
  return 0;
}

function parseCommand(args: string[], io: CliIo): InventoryCommand | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        port: { type: 'string', short: 'p' },
        identity: { type: 'string', short: 'i' },
        'known-hosts': { type: 'string' },
        'accept-new': { type: 'boolean' },
        'password-env': { type: 'string' },
        'passphrase-env': { type: 'string' },
        'ssh-config': { type: 'string' },
        timeout: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) {
    throw new UsageError(positionals.length === 0 ? 'name the host to inventory.' : `expected one host, got ${positionals.length}: ${positionals.join(' ')}`);
  }

  const env = io.env;
  const home = env.HOME || homedir();
  const localUser = env.USER || env.LOGNAME || userInfo().username;
  const path = (value: string) => resolve(io.cwd, expandHome(value, home));

  const spec = positionals[0] as string;
  const at = spec.lastIndexOf('@');
  const userPart = at > 0 ? spec.slice(0, at) : undefined;
  let hostPart = at >= 0 ? spec.slice(at + 1) : spec;
  if (/^\[.*\]$/.test(hostPart)) hostPart = hostPart.slice(1, -1);
  const hostCheck = HostAddressSchema.safeParse(hostPart);
  if (!hostCheck.success) throw new UsageError(`host "${hostPart}" ${hostCheck.error.issues[0]?.message ?? 'is not valid'}.`);
  if (userPart !== undefined && !SshUserSchema.safeParse(userPart).success) throw new UsageError(`user "${userPart}" is not a valid user name.`);

  const sshConfigPath = values['ssh-config'] ? path(values['ssh-config']) : join(home, '.ssh', 'config');
  const config = resolveSshConfigHost(hostCheck.data, { configPath: sshConfigPath, user: localUser, env });

  let port = config.port ?? 22;
  if (values.port !== undefined) {
    const portCheck = PortSchema.safeParse(/^\d+$/.test(values.port) ? Number(values.port) : NaN);
    if (!portCheck.success) throw new UsageError(`--port ${values.port}: must be a whole number 1–65535.`);
    port = portCheck.data;
  }

  let timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
  if (values.timeout !== undefined) {
    timeoutSeconds = Number(values.timeout);
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) throw new UsageError(`--timeout ${values.timeout}: must be a positive number of seconds.`);
  }

  const target: SshTarget = { host: config.hostName, port, user: userPart ?? config.user ?? localUser };

  if (values['password-env'] !== undefined) target.password = fromEnv(env, values['password-env'], '--password-env');
  if (values.identity !== undefined) {
    target.identityFile = path(values.identity);
  } else if (target.password === undefined) {
    const candidates = [...config.identityFiles, ...DEFAULT_IDENTITIES.map((name) => join(home, '.ssh', name))];
    const found = candidates.find((file) => existsSync(file));
    if (!found) {
      throw new ServelabError(
        'AUTH_FAILED',
        `No identity file for ${target.user}@${target.host}: none of ${candidates.join(', ')} exists. Pass --identity FILE or --password-env VAR.`,
      );
    }
    target.identityFile = found;
  }
  if (values['passphrase-env'] !== undefined) target.passphrase = fromEnv(env, values['passphrase-env'], '--passphrase-env');

  const knownHosts = values['known-hosts']
    ? new KnownHostsStore({ appFile: path(values['known-hosts']), readOnlyFiles: [] })
    : new KnownHostsStore({ appFile: join(defaultDataDir(env), 'known_hosts'), readOnlyFiles: [join(home, '.ssh', 'known_hosts')] });

  return { target, knownHosts, acceptNew: values['accept-new'] ?? false, timeoutSeconds, json: values.json ?? false };
}

function fromEnv(env: NodeJS.ProcessEnv, name: string, option: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new UsageError(`${option} ${name}: that environment variable is not set or empty.`);
  return value;
}

function reportFailure(error: unknown, io: CliIo): number {
  if (error instanceof ServelabError) {
    let text = error.message;
    if (error.code === 'HOST_KEY_UNKNOWN') {
      text += '\nIf that fingerprint is right, run the same command with --accept-new to store the key and continue.';
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
