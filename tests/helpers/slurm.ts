// A real Slurm cluster for tests: Debian's slurm-wlm 22.05 with munge (and slurmdbd with MariaDB for accounting),
// started the way it was found to work on Debian 12 (below). Everything lives in one temporary folder; the
// configs are passed explicitly (SLURM_CONF), nothing in /etc is read or changed but the package's own files:
//
//   - munged on a socket of its own (slurm.conf `AuthInfo=socket=…`), with a fresh key, so parallel clusters and a
//     system munged never meet;
//   - slurmctld and slurmd on free ports, bound to their addresses only (`CommunicationParameters=NoCtldInAddrAny,
//     NoInAddrAny`; Slurm 22.05 src/common/read_config.c);
//   - fake GPUs: GRES `gpu:fake:2` per node whose device files are symlinks to /dev/null (regular files are refused:
//     "is not a valid character or block device");
//   - nodes: 1 runs slurmd on 127.0.0.1; nodes: 2 runs one slurmd per network namespace (gpu1, gpu2) on a bridge whose
//     root-side address is the controller's. `nsenter --net` rather than `ip netns exec`, which remounts /sys and
//     makes slurmd fail ("No filesystem mounted on /sys/fs/cgroup");
//   - accounting: MariaDB and slurmdbd in a network namespace of their own, because slurmdbd 22.05 listens on every
//     address (src/slurmdbd/rpc_mgr.c binds through slurm_init_msg_engine_port, i.e. INADDR_ANY).
//
// Every daemon runs in the foreground as a child of this process (its PID is the daemon's), carries the test run's
// environment and a cluster mark, and is stopped by PID, with the job processes below it, on stop() or process exit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile, appendFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, freePort, stopChild } from './processes';
import { randomBytes, randomInt } from 'node:crypto';

export interface SlurmNode {
  name: string;
  /** Where slurmd listens: 127.0.0.1, or the node's address in its network namespace. */
  address: string;
  /** The network namespace the node runs in (nodes: 2). */
  netns: string | null;
}

export interface SlurmCluster {
  dir: string;
  clusterName: string;
  /** slurm.conf; gres.conf (and slurmdbd.conf) lie beside it, where Slurm looks for them. */
  slurmConf: string;
  /** What a client command needs in its environment: SLURM_CONF. */
  env: Record<string, string>;
  nodes: SlurmNode[];
  /** Partition names in slurm.conf's order; the first is the default. */
  partitions: string[];
  accounting: boolean;
  /** Slurm's client commands with the cluster's environment, e.g. `client('sinfo', ['--version'])`. */
  client(command: string, args: string[]): { stdout: string; stderr: string; code: number | null };
  /** Accounting only: an account with the user in it (and a QOS the user may use), so `sacctmgr show assoc` lists it. */
  addUser(user: string, opts?: { account?: string; qos?: string }): void;
  /**
   * Stops one daemon by PID: a node's slurmd (`slurmd gpu2`; its jobs' processes live on), as when a compute node stops
   * answering, or slurmctld or slurmdbd, as when the controller or accounting is down.
   */
  stopDaemon(name: 'slurmctld' | 'slurmdbd' | `slurmd ${string}`): Promise<void>;
  /** Lines for a login user's ~/.profile so that their SSH sessions reach this cluster. */
  profileLines(): string;
  /** Appends profileLines() to `<homeDir>/.profile` (e.g. a test sshd's home): its login shells then reach the cluster. */
  addToProfile(homeDir: string): Promise<void>;
  /** The daemons' logs, for a failing test's message. */
  logs(): string;
  stop(): Promise<void>;
}

export interface SlurmClusterOptions {
  nodes: 1 | 2;
  accounting: boolean;
  /**
   * More variables the TaskProlog exports into every job step, by name. Each value is expanded by the TaskProlog's
   * `sh` inside double quotes, in the task's environment: `$SLURMD_NODENAME` is the node the task runs on, `$PATH` the
   * task's PATH. Test code only, never user input.
   */
  taskPrologExports?: Record<string, string>;
}

const SBIN = '/usr/sbin';
const REQUIRED = { 'slurm-wlm': ['slurmctld', 'slurmd'], munge: ['munged'] } as const;
const ACCOUNTING = { slurmdbd: ['slurmdbd'], 'mariadb-server': ['mariadbd'] } as const;
/** Marks every process of one cluster, so stop() finds the job steps slurmd started too. */
const CLUSTER_MARK = 'SERVELAB_SLURM_CLUSTER';
const READY_TIMEOUT_MS = 30_000;

/**
 * Why a cluster cannot be started here (printed by the suites that skip), or null. Slurm's daemons run as root
 * (SlurmUser=root); the accounting and two-node variants need network namespaces as well.
 */
export function slurmUnavailable(opts: SlurmClusterOptions): string | null {
  if (process.platform !== 'linux') return 'Slurm tests need Linux';
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return 'Slurm tests need root (slurmctld and slurmd run as SlurmUser=root)';
  const packages: Record<string, readonly string[]> = { ...REQUIRED, ...(opts.accounting ? ACCOUNTING : {}) };
  const missing = Object.entries(packages)
    .filter(([, binaries]) => binaries.some((binary) => !existsSync(join(SBIN, binary))))
    .map(([name]) => name);
  if (missing.length > 0) return `Slurm tests need the Debian packages ${missing.join(', ')} (apt-get install --no-install-recommends ${missing.join(' ')})`;
  // Each daemon gets its own host name and hosts file (startDaemon).
  const unshare = spawnSync('unshare', ['--uts', '--mount', 'true'], { encoding: 'utf8' });
  if (unshare.status !== 0) return `Slurm tests need UTS and mount namespaces: ${(unshare.stderr || String(unshare.error)).trim()}`;
  if (opts.nodes === 2 || opts.accounting) {
    const probe = `slp${randomBytes(3).toString('hex')}`;
    const added = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
    if (added.status !== 0) return `Slurm tests with ${opts.nodes === 2 ? 'two nodes' : 'accounting'} need network namespaces: ${(added.stderr || String(added.error)).trim()}`;
    spawnSync('ip', ['netns', 'del', probe]);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Processes


function run(command: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): string {
  const result = spawnSync(command, args, { encoding: 'utf8', env: opts.env, input: opts.input, timeout: 30_000 });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr.trim()}`);
  return result.stdout;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 200 ms until it returns true; rejects with `what` and the logs when `timeoutMs` pass. */
async function waitFor(what: string, check: () => boolean | Promise<boolean>, logs: () => string, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`Slurm test cluster: ${what} within ${timeoutMs / 1000} s.\n${logs()}`);
    await sleep(200);
  }
}

function tcpOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}

/** All processes whose environment carries `mark`, with every process below them (a job's own processes may drop it). */
function markedProcesses(mark: string): number[] {
  const children = new Map<number, number[]>();
  const marked: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(mark)) marked.push(pid);
    } catch {
      // Gone meanwhile, or a kernel thread.
    }
  }
  const found = new Set<number>();
  const queue = [...marked];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (found.has(pid)) continue;
    found.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...found];
}

function killPids(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** Whether a process is gone or a zombie (dead, waiting to be reaped by its parent). */
function isDead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}

async function untilDead(pids: number[], timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (pids.some((pid) => !isDead(pid)) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}


// ---------------------------------------------------------------------------------------------------------------
// Network namespaces (two nodes, accounting)

interface SlurmNetwork {
  /** The controller's address on the bridge (root namespace). */
  hostAddress: string;
  /** A namespace with one address on the bridge. */
  add(name: string, address: string): void;
  remove(): void;
}

function ip(args: string[]): void {
  run('ip', args);
}

/** A bridge in the root namespace on a /24 under 10.232.0.0/16 that no route uses yet. */
function createNetwork(id: string): SlurmNetwork {
  const routes = run('ip', ['-4', 'route', 'show']);
  let subnet = -1;
  for (let tries = 0; tries < 50 && subnet < 0; tries++) {
    const n = randomInt(0, 255);
    if (!routes.includes(`10.232.${n}.`)) subnet = n;
  }
  if (subnet < 0) throw new Error('no free 10.232.x.0/24 subnet for the Slurm test cluster');
  const bridge = `sl${id}b`;
  const namespaces: string[] = [];
  let bridgeMade = false;
  const network: SlurmNetwork = {
    hostAddress: `10.232.${subnet}.1`,
    add(name, address) {
      ip(['netns', 'add', name]);
      namespaces.push(name);
      const veth = `${name}h`.slice(0, 15);
      ip(['link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name]);
      ip(['link', 'set', veth, 'addrgenmode', 'none']);
      ip(['link', 'set', veth, 'master', bridge, 'up']);
      ip(['-n', name, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
      ip(['-n', name, 'link', 'set', 'eth0', 'up']);
      ip(['-n', name, 'link', 'set', 'lo', 'up']);
    },
    remove() {
      for (const name of namespaces.splice(0)) spawnSync('ip', ['netns', 'del', name]);
      if (bridgeMade) spawnSync('ip', ['link', 'del', bridge]);
      bridgeMade = false;
    },
  };
  try {
    ip(['link', 'add', bridge, 'type', 'bridge']);
    bridgeMade = true;
    ip(['link', 'set', bridge, 'addrgenmode', 'none']);
    ip(['addr', 'add', `${network.hostAddress}/24`, 'dev', bridge]);
    ip(['link', 'set', bridge, 'up']);
  } catch (error) {
    network.remove();
    throw error;
  }
  return network;
}

// ---------------------------------------------------------------------------------------------------------------
// Configuration

interface ConfigInput {
  dir: string;
  clusterName: string;
  controllerHost: string;
  controllerAddress: string;
  ctldPort: number;
  slurmdPort: number;
  nodes: SlurmNode[];
  dbd: { address: string; port: number } | null;
}

const NODE_CPUS = 2;
const NODE_MEMORY_MB = 4000;
/** The fake GPUs (GRES `gpu:fake:2`) of each node. */
export const GPUS_PER_NODE = 2;
export const TEST_GPU_TYPE = 'fake';
/** The partitions every test cluster has: `debug` (default, no limit) and `short` (1 h, 10 min by default). */
export const TEST_PARTITIONS = [
  { name: 'debug', line: 'Default=YES MaxTime=INFINITE State=UP' },
  { name: 'short', line: 'MaxTime=01:00:00 DefaultTime=00:10:00 State=UP' },
] as const;

function slurmConf(c: ConfigInput): string {
  const d = c.dir;
  const perNode = c.nodes.length > 1 ? '-%n' : '';
  const nodeNames = c.nodes.map((node) => node.name).join(',');
  return [
    `ClusterName=${c.clusterName}`,
    // slurmctld refuses to start unless this names the host it runs on: it runs with this host name (startDaemon).
    `SlurmctldHost=${c.controllerHost}(${c.controllerAddress})`,
    `SlurmctldPort=${c.ctldPort}`,
    `SlurmdPort=${c.slurmdPort}`,
    'AuthType=auth/munge',
    'CredType=cred/munge',
    `AuthInfo=socket=${d}/munge/munge.sock`,
    // Listen on the address the daemon's host name resolves to, not on every address (slurm_setup_addr in Slurm
    // 22.05 src/common/slurm_protocol_api.c); startDaemon makes that the address given here.
    'CommunicationParameters=NoCtldInAddrAny,NoInAddrAny',
    'SlurmUser=root',
    'SlurmdUser=root',
    `StateSaveLocation=${d}/state`,
    `SlurmdSpoolDir=${d}/spool${perNode}`,
    `SlurmctldPidFile=${d}/run/slurmctld.pid`,
    `SlurmdPidFile=${d}/run/slurmd${perNode}.pid`,
    `SlurmctldLogFile=${d}/log/slurmctld.log`,
    `SlurmdLogFile=${d}/log/slurmd${perNode}.log`,
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'SchedulerType=sched/backfill',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_Core',
    'ReturnToService=2',
    'MpiDefault=none',
    // Marks every job's processes as this cluster's (and the test run's), so stop() and the leftover check find them.
    `TaskProlog=${d}/task-prolog.sh`,
    'MailProg=/bin/true',
    // Without it each job takes all of a node's memory, and jobs run one at a time.
    'DefMemPerCPU=1000',
    'JobCompType=jobcomp/filetxt',
    `JobCompLoc=${d}/log/jobcomp.txt`,
    ...(c.dbd
      ? [
          'AccountingStorageType=accounting_storage/slurmdbd',
          `AccountingStorageHost=${c.dbd.address}`,
          `AccountingStoragePort=${c.dbd.port}`,
          'AccountingStorageTRES=gres/gpu',
          // The munge socket for connections to slurmdbd (AuthInfo covers only the rest; slurm.conf(5)).
          `AccountingStoragePass=${d}/munge/munge.sock`,
        ]
      : ['AccountingStorageType=accounting_storage/none']),
    'JobAcctGatherType=jobacct_gather/linux',
    'GresTypes=gpu',
    ...c.nodes.map(
      (node) => `NodeName=${node.name} NodeAddr=${node.address} CPUs=${NODE_CPUS} RealMemory=${NODE_MEMORY_MB} Gres=gpu:${TEST_GPU_TYPE}:${GPUS_PER_NODE} State=UNKNOWN`,
    ),
    // Partition lines after every node line.
    ...TEST_PARTITIONS.map((p) => `PartitionName=${p.name} Nodes=${nodeNames} ${p.line}`),
    '',
  ].join('\n');
}

function gresConf(c: ConfigInput): string {
  return c.nodes.map((node) => `NodeName=${node.name} Name=gpu Type=${TEST_GPU_TYPE} File=${c.dir}/dev/${node.name}/nvidia[0-${GPUS_PER_NODE - 1}]\n`).join('');
}

/** slurmstepd adds each `export NAME=VALUE` a TaskProlog prints to the task's environment (slurm.conf(5), TaskProlog). */
function taskProlog(dir: string, extra: Record<string, string> = {}): string {
  const run = process.env.SERVELAB_TEST_RUN;
  const exports = Object.entries(extra).map(([name, value]) => {
    if (!/^[A-Za-z_]\w*$/.test(name) || /["`\\\n]/.test(value)) throw new Error(`TaskProlog export ${name}: not a plain name and value`);
    return `echo "export ${name}=${value}"`;
  });
  return ['#!/bin/sh', `echo "export ${CLUSTER_MARK}=${dir}"`, ...(run && /^[\w.-]+$/.test(run) ? [`echo "export SERVELAB_TEST_RUN=${run}"`] : []), ...exports, ''].join('\n');
}

/** The /etc/hosts the controller and the nodes see: each name at its slurm.conf address. */
function hostsOf(c: ConfigInput): string {
  return ['127.0.0.1 localhost', `${c.controllerAddress} ${c.controllerHost}`, ...c.nodes.map((node) => `${node.address} ${node.name}`), ''].join('\n');
}

function slurmdbdConf(d: string, dbd: { address: string; port: number }, mysqlPort: number): string {
  return [
    'AuthType=auth/munge',
    `AuthInfo=socket=${d}/munge/munge.sock`,
    'DbdHost=localhost',
    `DbdAddr=${dbd.address}`,
    `DbdPort=${dbd.port}`,
    'SlurmUser=root',
    `PidFile=${d}/run/slurmdbd.pid`,
    `LogFile=${d}/log/slurmdbd.log`,
    'StorageType=accounting_storage/mysql',
    'StorageHost=127.0.0.1',
    `StoragePort=${mysqlPort}`,
    'StorageUser=slurm',
    'StoragePass=slurmpw',
    'StorageLoc=slurm_acct_db',
    '',
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// The cluster

export async function startSlurmCluster(opts: SlurmClusterOptions): Promise<SlurmCluster> {
  const unavailable = slurmUnavailable(opts);
  if (unavailable) throw new Error(unavailable);
  const dir = await mkdtemp(join(tmpdir(), 'servelab-slurm-'));
  // Login users read slurm.conf and talk to munged's socket below this folder.
  await chmod(dir, 0o755);
  const id = randomBytes(2).toString('hex');
  const clusterName = `sl${id}`;
  const mark = `${CLUSTER_MARK}=${dir}`;
  const slurmConfPath = join(dir, 'slurm.conf');
  const hostsFile = join(dir, 'hosts');
  // slurmdbd finds slurmdbd.conf beside SLURM_CONF.
  const daemonEnv: NodeJS.ProcessEnv = { ...process.env, [CLUSTER_MARK]: dir, SLURM_CONF: slurmConfPath };
  const children: { name: string; child: ChildProcess; output: () => string }[] = [];
  let network: SlurmNetwork | null = null;

  const killEverything = () => {
    killPids(markedProcesses(mark), 'SIGKILL');
    for (const { child } of children) if (!exited(child)) child.kill('SIGKILL');
    network?.remove();
  };
  const onExit = () => {
    killEverything();
    spawnSync('rm', ['-rf', dir]);
  };
  // A crashed run must leave no daemon, job, namespace or folder behind.
  process.once('exit', onExit);

  const logs = () => {
    const files = existsSync(join(dir, 'log')) ? readdirSync(join(dir, 'log')).filter((name) => name.endsWith('.log')) : [];
    const fileLogs = files.map((name) => `--- ${name}\n${tail(readFileSync(join(dir, 'log', name), 'utf8'))}`);
    const childLogs = children.map(({ name, output }) => `--- ${name} (stdout/stderr)\n${tail(output())}`);
    return [...fileLogs, ...childLogs].join('\n');
  };

  /**
   * Starts a foreground daemon, in `netns` if given. With `hostname` it runs in UTS and mount namespaces of its own
   * that give it that host name and the cluster's /etc/hosts: Slurm daemons bind to the address their own host name
   * resolves to (CommunicationParameters, see slurmConf), which must be the address slurm.conf gives them.
   */
  const startDaemon = (name: string, command: string[], where: { netns?: string; hostname?: string } = {}) => {
    const named = where.hostname
      ? ['unshare', '--uts', '--mount', '--propagation', 'private', 'sh', '-c', 'hostname "$1" && mount --bind "$2" /etc/hosts && shift 2 && exec "$@"', 'sh', where.hostname, hostsFile, ...command]
      : command;
    // Each of nsenter, unshare and sh execs the next, so the child's PID is the daemon's.
    const [file, ...args] = (where.netns ? ['nsenter', `--net=/run/netns/${where.netns}`, '--', ...named] : named) as [string, ...string[]];
    const child = spawn(file, args, { env: daemonEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (error) => (output += `\nspawn failed: ${error.message}`));
    children.push({ name, child, output: () => output });
    return child;
  };
  const alive = (child: ChildProcess, name: string) => {
    if (exited(child)) throw new Error(`Slurm test cluster: ${name} exited (${child.exitCode ?? child.signalCode}).\n${logs()}`);
  };

  try {
    for (const sub of ['munge', 'state', 'run', 'log', 'dev']) await mkdir(join(dir, sub), { recursive: true });
    await chmod(join(dir, 'munge'), 0o755);

    // Nodes and addresses.
    const needsNetwork = opts.nodes === 2 || opts.accounting;
    if (needsNetwork) network = createNetwork(id);
    const nodes: SlurmNode[] =
      opts.nodes === 1
        ? [{ name: 'node1', address: '127.0.0.1', netns: null }]
        : [1, 2].map((n) => ({ name: `gpu${n}`, address: `${(network as SlurmNetwork).hostAddress.replace(/\.1$/, '')}.1${n}`, netns: `sl${id}g${n}` }));
    for (const node of nodes) if (node.netns) network?.add(node.netns, node.address);
    const dbdNetns = `sl${id}db`;
    const dbd = opts.accounting ? { address: (network as SlurmNetwork).hostAddress.replace(/\.1$/, '.2'), port: 6819 } : null;
    if (dbd) network?.add(dbdNetns, dbd.address);

    const input: ConfigInput = {
      dir,
      clusterName,
      controllerHost: `ctl${id}`,
      // With namespaces, on the bridge: slurmdbd and the nodes in them reach slurmctld there.
      controllerAddress: network ? network.hostAddress : '127.0.0.1',
      ctldPort: await freePort(),
      // In namespaces each node has its own ports; on loopback slurmd needs a free one.
      slurmdPort: opts.nodes === 1 ? await freePort() : 6818,
      nodes,
      dbd,
    };
    await writeFile(slurmConfPath, slurmConf(input), { mode: 0o644 });
    await writeFile(join(dir, 'gres.conf'), gresConf(input), { mode: 0o644 });
    await writeFile(hostsFile, hostsOf(input), { mode: 0o644 });
    await writeFile(join(dir, 'task-prolog.sh'), taskProlog(dir, opts.taskPrologExports), { mode: 0o755 });
    for (const node of nodes) {
      await mkdir(join(dir, 'dev', node.name), { recursive: true });
      for (let g = 0; g < GPUS_PER_NODE; g++) await symlink('/dev/null', join(dir, 'dev', node.name, `nvidia${g}`));
      if (nodes.length > 1) await mkdir(join(dir, `spool-${node.name}`), { recursive: true });
    }
    if (nodes.length === 1) await mkdir(join(dir, 'spool'), { recursive: true });
    const env = { SLURM_CONF: slurmConfPath };
    const clientEnv = daemonEnv;
    const client = (command: string, args: string[]) => {
      const result = spawnSync(command, args, { encoding: 'utf8', env: clientEnv, timeout: 30_000 });
      return { stdout: result.stdout ?? '', stderr: result.stderr ?? String(result.error ?? ''), code: result.status };
    };

    // munge: a key of its own (munged wants it 0600 and owned by the user it runs as).
    const key = randomBytes(128);
    await writeFile(join(dir, 'munge', 'munge.key'), key, { mode: 0o600 });
    const munged = startDaemon('munged', [
      `${SBIN}/munged`,
      '--foreground',
      `--socket=${dir}/munge/munge.sock`,
      `--key-file=${dir}/munge/munge.key`,
      `--pid-file=${dir}/munge/munged.pid`,
      `--log-file=${dir}/log/munged.log`,
      `--seed-file=${dir}/munge/munged.seed`,
    ]);
    await waitFor('munged did not create its socket', () => (alive(munged, 'munged'), existsSync(join(dir, 'munge', 'munge.sock'))), logs);

    if (dbd) {
      const mysqlPort = 3306;
      const data = join(dir, 'mysql');
      await mkdir(data);
      run('mariadb-install-db', ['--no-defaults', '--user=root', `--datadir=${data}/data`, '--auth-root-authentication-method=socket', '--skip-test-db'], { env: daemonEnv });
      const mariadbd = startDaemon(
        'mariadbd',
        [
          `${SBIN}/mariadbd`,
          '--no-defaults',
          '--user=root',
          `--datadir=${data}/data`,
          `--socket=${data}/sock`,
          `--port=${mysqlPort}`,
          '--bind-address=127.0.0.1',
          `--pid-file=${data}/mariadbd.pid`,
          `--log-error=${dir}/log/mariadbd.log`,
        ],
        { netns: dbdNetns },
      );
      const sql = (statement: string) => spawnSync('mariadb', ['-S', `${data}/sock`, '-e', statement], { encoding: 'utf8', env: daemonEnv });
      await waitFor('MariaDB did not answer', () => (alive(mariadbd, 'mariadbd'), sql('SELECT 1').status === 0), logs);
      const grant = sql("CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';");
      if (grant.status !== 0) throw new Error(`MariaDB refused the slurm user: ${grant.stderr}`);
      await writeFile(join(dir, 'slurmdbd.conf'), slurmdbdConf(dir, dbd, mysqlPort), { mode: 0o600 });
      const slurmdbd = startDaemon('slurmdbd', [`${SBIN}/slurmdbd`, '-D'], { netns: dbdNetns });
      await waitFor('slurmdbd did not listen', async () => (alive(slurmdbd, 'slurmdbd'), tcpOpen(dbd.address, dbd.port)), logs);
    }

    const slurmctld = startDaemon('slurmctld', [`${SBIN}/slurmctld`, '-D', '-f', slurmConfPath], { hostname: input.controllerHost });
    let ping = '';
    await waitFor(
      'slurmctld did not answer scontrol ping',
      () => {
        alive(slurmctld, 'slurmctld');
        const answer = client('scontrol', ['ping']);
        ping = `${answer.stdout}${answer.stderr}`;
        return /is UP/.test(ping);
      },
      () => `scontrol ping: ${ping}\n${logs()}`,
    );
    const slurmds = nodes.map((node) =>
      startDaemon(`slurmd ${node.name}`, [`${SBIN}/slurmd`, '-D', '-f', slurmConfPath, '-N', node.name], { ...(node.netns ? { netns: node.netns } : {}), hostname: node.name }),
    );
    await waitFor(
      'the nodes did not become idle',
      () => {
        slurmds.forEach((child, i) => alive(child, `slurmd ${nodes[i]?.name}`));
        const states = client('sinfo', ['-h', '-N', '-o', '%N %T']).stdout.trim().split('\n');
        return nodes.every((node) => states.some((line) => line === `${node.name} idle`));
      },
      logs,
    );
    if (dbd) {
      // slurmctld registers the cluster with slurmdbd when it starts.
      await waitFor('slurmctld did not register the cluster with slurmdbd', () => client('sacctmgr', ['-nP', 'show', 'cluster', 'format=cluster']).stdout.includes(clusterName), logs);
    }

    let stopped = false;
    const cluster: SlurmCluster = {
      dir,
      clusterName,
      slurmConf: slurmConfPath,
      env,
      nodes,
      partitions: TEST_PARTITIONS.map((p) => p.name),
      accounting: opts.accounting,
      client,
      addUser(user, userOpts = {}) {
        if (!opts.accounting) throw new Error('addUser needs a cluster started with accounting');
        const account = userOpts.account ?? 'servelab';
        const sacctmgr = (args: string[]) => run('sacctmgr', ['-i', ...args], { env: clientEnv });
        if (!client('sacctmgr', ['-nP', 'show', 'account', account, 'format=account']).stdout.trim()) sacctmgr(['add', 'account', account, `Cluster=${clusterName}`, 'Description=test', 'Organization=test']);
        if (userOpts.qos && !client('sacctmgr', ['-nP', 'show', 'qos', userOpts.qos, 'format=name']).stdout.trim()) sacctmgr(['add', 'qos', userOpts.qos]);
        sacctmgr(['add', 'user', user, `Account=${account}`, `Cluster=${clusterName}`]);
        if (userOpts.qos) sacctmgr(['modify', 'user', user, 'set', `QOS+=${userOpts.qos}`]);
      },
      async stopDaemon(name) {
        const entry = children.find((c) => c.name === name);
        if (!entry) throw new Error(`no ${name} in this cluster`);
        await stopChild(entry.child);
      },
      profileLines: () => `# The Slurm test cluster ${clusterName}\nexport SLURM_CONF='${slurmConfPath}'\n`,
      async addToProfile(homeDir) {
        await appendFile(join(homeDir, '.profile'), cluster.profileLines());
      },
      logs,
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          // Daemons first (slurmd before slurmctld, so nodes do not report to a missing controller), then whatever
          // job processes are left.
          for (const entry of [...children].reverse()) await stopChild(entry.child);
          const jobs = markedProcesses(mark);
          killPids(jobs, 'SIGKILL');
          // A killed process lingers a moment, longer on a busy machine: stop() returns once they are dead.
          await untilDead(jobs, 10_000);
        } finally {
          network?.remove();
          process.removeListener('exit', onExit);
          await rm(dir, { recursive: true, force: true });
        }
      },
    };
    return cluster;
  } catch (error) {
    killEverything();
    process.removeListener('exit', onExit);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

function tail(text: string, lines = 30): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}
