// How a CLI command names the box it works on: `--demo`, or `--host [user@]host` with SSH options; shared by every
// command that runs things on a box (engine, bench).
import { homedir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client } from 'ssh2';
import type { CliIo } from './cli-io';
import { UsageError } from './command-line';
import { ServelabError } from '../shared/contract';
import { HostAddressSchema, PortSchema, SshUserSchema } from '../shared/model/host';
import { KnownHostsStore, knownHostsName } from '../core/ssh/known-hosts';
import { keyTypeLabel } from '../core/ssh/fingerprint';
import { openSshClient } from '../core/ssh/connect';
import { resolveTarget, type HostSpec, type ResolvedSshTarget } from '../core/ssh/ssh-target';
import { SshBoxTransport } from '../core/box/ssh-box-transport';
import { demoLabPaths, demoLabTransport, prepareDemoBox } from '../core/box/demo-lab';
import type { BoxTransport } from '../core/box/box-transport';
import { resolveSimboxBinDir } from '../core/box/simbox-path';
import { defaultDataDir, expandHome } from '../core/util/paths';

/** parseArgs options every box command accepts. */
export const BOX_OPTIONS = {
  demo: { type: 'boolean' },
  host: { type: 'string' },
  'port-ssh': { type: 'string', short: 'p' },
  identity: { type: 'string', short: 'i' },
  'known-hosts': { type: 'string' },
  'ssh-config': { type: 'string' },
  'accept-new': { type: 'boolean' },
} as const;

export const BOX_OPTIONS_USAGE = `  --demo                 the built-in demo lab (a simulated H100 box on this machine)
  --host [user@]host     a box over SSH (an address or a ~/.ssh/config alias)
  -p, --port-ssh N       SSH port
  -i, --identity FILE    private key
  --known-hosts FILE     known_hosts to check the host key against (default: the app's, plus ~/.ssh/known_hosts)
  --accept-new           trust and store the host key of the box and of each jump host that is not known yet
                         (never a changed key), like StrictHostKeyChecking=accept-new`;

export type BoxValues = Record<string, string | boolean | undefined>;

export type CliBox = BoxTransport & { release(): void };

/** Opens the box the options name; a box over SSH is connected (and its new keys accepted) before this returns. */
export async function openCliBox(values: BoxValues, io: CliIo): Promise<CliBox> {
  const env = io.env;
  if (values.demo) {
    if (values.host !== undefined) throw new UsageError('give either --demo or --host, not both.');
    const simboxBinDir = resolveSimboxBinDir();
    if (!simboxBinDir) throw new ServelabError('NOT_SUPPORTED', 'This installation has no simulated box, so the demo lab is not available.');
    const dataDir = defaultDataDir(env);
    const transport = demoLabTransport({ dataDir, simboxBinDir });
    await prepareDemoBox(transport, demoLabPaths(dataDir));
    return transport;
  }
  if (typeof values.host !== 'string') throw new UsageError('name the box: --demo or --host [user@]host.');
  const home = env.HOME || homedir();
  const path = (value: string) => resolve(io.cwd, expandHome(value, home));
  const at = values.host.lastIndexOf('@');
  const user = at > 0 ? values.host.slice(0, at) : undefined;
  const hostName = at >= 0 ? values.host.slice(at + 1) : values.host;
  if (!HostAddressSchema.safeParse(hostName).success) throw new UsageError(`host "${hostName}" is not a host name, address or alias.`);
  if (user !== undefined && !SshUserSchema.safeParse(user).success) throw new UsageError(`user "${user}" is not a valid user name.`);
  const spec: HostSpec = { alias: hostName };
  if (user !== undefined) spec.user = user;
  if (typeof values['port-ssh'] === 'string') {
    const port = PortSchema.safeParse(Number(values['port-ssh']));
    if (!port.success) throw new UsageError(`--port-ssh ${values['port-ssh']}: must be a whole number 1–65535.`);
    spec.port = port.data;
  }
  if (typeof values.identity === 'string') spec.identityFile = path(values.identity);
  const configPath = typeof values['ssh-config'] === 'string' ? path(values['ssh-config']) : join(home, '.ssh', 'config');
  const target = resolveTarget(spec, { configPath, env, home, localUser: env.USER || env.LOGNAME || userInfo().username });
  const knownHosts =
    typeof values['known-hosts'] === 'string'
      ? new KnownHostsStore({ appFile: path(values['known-hosts']), readOnlyFiles: [] })
      : new KnownHostsStore({ appFile: join(defaultDataDir(env), 'known_hosts'), readOnlyFiles: [join(home, '.ssh', 'known_hosts')] });
  // One connection for the command's lifetime; the transport only needs a provider and a release.
  const opening = connectAcceptingNewKeys(target, knownHosts, values['accept-new'] === true, io);
  opening.catch(() => {});
  await opening;
  return new SshBoxTransport({
    hostId: `${target.user}@${target.host}:${target.port}`,
    target,
    pool: {
      provider: () => () => opening,
      release: () => {
        void opening.then((client) => client.end(), () => {});
      },
    },
  });
}

interface HostKeyDetails {
  host: string;
  port: number;
  keyType: string;
  publicKey: string;
  fingerprint: string;
}

/**
 * Connects; with accept-new, each unknown host key (jump hosts first, as the connection meets them) is stored and
 * the connection started again until every hop is known. A changed or revoked key is never stored. Without it, an
 * unknown key fails with the fingerprint and how to accept it.
 */
async function connectAcceptingNewKeys(target: ResolvedSshTarget, knownHosts: KnownHostsStore, acceptNew: boolean, io: CliIo): Promise<Client> {
  const accepted = new Set<string>();
  const hops = target.jumps.length + 1;
  for (;;) {
    try {
      return await openSshClient(target, { knownHosts, timeoutSeconds: 20 });
    } catch (error) {
      if (!(error instanceof ServelabError && error.code === 'HOST_KEY_UNKNOWN')) throw error;
      const key = error.details as unknown as HostKeyDetails;
      const name = knownHostsName(key.host, key.port);
      if (!acceptNew) {
        throw new ServelabError('HOST_KEY_UNKNOWN', `The host key of ${name} is not known (${keyTypeLabel(key.keyType)} ${key.fingerprint}). If that fingerprint is right, run the same command with --accept-new to store it and continue.`, {
          details: error.details ?? {},
        });
      }
      // Each hop's key is stored once; meeting it as unknown again means it was not kept, so stop rather than loop.
      if (accepted.has(`${name} ${key.keyType}`) || accepted.size >= hops) throw error;
      accepted.add(`${name} ${key.keyType}`);
      await knownHosts.add({ host: key.host, port: key.port, keyType: key.keyType, publicKey: key.publicKey });
      io.stderr(`Warning: Permanently added '${name}' (${keyTypeLabel(key.keyType)} ${key.fingerprint}) to the list of known hosts (${knownHosts.writableFile}).\n`);
    }
  }
}
