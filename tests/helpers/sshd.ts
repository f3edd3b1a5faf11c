// A real OpenSSH sshd on 127.0.0.1 for tests, with its own host key, test user, client keys and an
// nvidia-smi stand-in that replays real captures from an H200 box.
import { spawn, spawnSync, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { freePort, stopChild } from './processes';
import type { Readable } from 'node:stream';
import { chmod, chown, copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { h200FixtureDir } from './repo';

export interface TestSshd {
  /** 127.0.0.1 unless started with another listenAddress. */
  host: string;
  port: number;
  user: string;
  /** Empty when sshd runs without root: it cannot check passwords then. */
  password: string;
  identityFile: string;
  encryptedIdentityFile: string;
  identityPassphrase: string;
  hostKeyType: string;
  /** Of the current host key, as `ssh-keygen -lf` prints it. */
  hostKeyFingerprint: string;
  /** HOME of the sessions: the test user's home, or (without root) a folder sshd's ForceCommand sets as HOME. */
  homeDir: string;
  dir: string;
  /** True when this process is root and sshd could log in a dedicated test user. */
  dedicatedUser: boolean;
  /** What sshd has logged (LogLevel VERBOSE, on stderr) since it was started, restarts included. */
  log(): string;
  installNvidiaSmi(): Promise<void>;
  removeNvidiaSmi(): Promise<void>;
  /** Generates a new host key and restarts sshd on the same port. */
  rotateHostKey(): Promise<void>;
  /**
   * Restarts sshd on the same port. By default the open sessions are ended too (as when the box's sshd is
   * restarted with its sessions, or the network drops): clients see their connection close. Processes that
   * detached from their session (setsid) live on.
   */
  restart(opts?: { dropSessions?: boolean }): Promise<void>;
  /** Ends every open SSH session (their processes and TCP connections) while sshd keeps listening. */
  dropSessions(): Promise<void>;
  stop(): Promise<void>;
}

const SSHD = '/usr/sbin/sshd';

// Like Debian's /etc/skel/.profile: ~/bin joins PATH only in a login shell, which is what the probe relies on.
// The echo stands for the chatter real login profiles print.
const PROFILE = '# ~/.profile of the Servelab test user\nif [ -d "$HOME/bin" ] ; then\n    PATH="$HOME/bin:$PATH"\nfi\necho "profile noise: welcome to the test box"\n';
const SSH_KEYGEN = 'ssh-keygen';

/** The exact command the H200 capture in query-gpu.csv was taken with (see the fixture's README). */
const CAPTURED_GPU_QUERY =
  '--query-gpu=index,name,uuid,memory.total,memory.used,memory.free,utilization.gpu,temperature.gpu,power.draw,power.limit,driver_version,compute_cap,pci.bus_id,clocks.max.sm --format=csv,noheader,nounits';

/**
 * A POSIX sh stand-in for nvidia-smi that prints the real H200 captures kept in `captureDir`.
 * It answers only the invocations the captures came from, so a probe asking something else fails loudly.
 */
export function nvidiaSmiStandIn(captureDir: string): string {
  return `#!/bin/sh
# Test stand-in for nvidia-smi: replays captures taken on a real H200 box.
captures='${captureDir}'
case "$*" in
  '') cat "$captures/nvidia-smi.txt" ;;
  '${CAPTURED_GPU_QUERY}') cat "$captures/query-gpu.csv" ;;
  --query-compute-apps=*--format=csv,noheader*) : ;;
  *) echo "nvidia-smi stand-in: no capture for arguments: $*" >&2; exit 2 ;;
esac
`;
}


function run(command: string, args: string[], input?: string): string {
  const result = spawnSync(command, args, { input, encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return result.stdout;
}

/** Account tools fail when another test file holds the /etc/passwd lock at the same moment: retry a few times. */
function runAccountTool(command: string, args: string[], input?: string): void {
  for (let attempt = 1; ; attempt++) {
    const result = spawnSync(command, args, { input, encoding: 'utf8' });
    if (!result.error && result.status === 0) return;
    const message = result.error?.message ?? result.stderr;
    if (attempt >= 10 || !/lock/i.test(message)) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${message}`);
    spawnSync('sleep', ['0.3']);
  }
}

function keygen(path: string, passphrase = ''): void {
  run(SSH_KEYGEN, ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'servelab-test', '-f', path]);
}

function fingerprintOf(publicKeyPath: string): string {
  // "256 SHA256:abc… comment (ED25519)"
  const fingerprint = run(SSH_KEYGEN, ['-lf', publicKeyPath]).split(' ')[1];
  if (!fingerprint?.startsWith('SHA256:')) throw new Error(`unexpected ssh-keygen -lf output for ${publicKeyPath}`);
  return fingerprint;
}

/** Starts sshd; resolves once it listens, rejects with its log if it exits or stays silent. */
function startSshd(configPath: string, port: number): Promise<{ child: ChildProcess; log: () => string }> {
  const launch = sshdLaunches.get(configPath);
  const address = launch?.listenAddress ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const child = launch?.netns || launch?.hostname || launch?.binSh ? spawnIsolatedSshd(configPath, launch) : spawn(SSHD, ['-D', '-e', '-f', configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    let done = false;
    const timer = setTimeout(() => finish(new Error(`sshd did not start listening within 10 s:\n${log}`)), 10_000);
    function finish(error: Error | null) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (error) {
        child.kill('SIGKILL');
        reject(error);
      } else {
        resolve({ child, log: () => log });
      }
    }
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes(`Server listening on ${address} port ${port}`)) finish(null);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (error) => finish(error));
    child.once('exit', (code, signal) => finish(new Error(`sshd exited (${code ?? signal}) before listening:\n${log}`)));
  });
}

/** sshd gets 3 s to end its sessions before it is killed. */
async function stopSshd(child: ChildProcess | undefined): Promise<void> {
  if (child) await stopChild(child, 3_000);
}

/**
 * Starts a throwaway sshd on a free 127.0.0.1 port. As root it creates a unique user (removed by stop());
 * without root it logs in the current user, key auth only (no password), and says so on stderr.
 */
/** Where and how an sshd runs, by config path, so every (re)start of that config launches it the same way. */
interface SshdLaunch {
  listenAddress?: string;
  netns?: string;
  hostname?: string;
  binSh?: string;
}
const sshdLaunches = new Map<string, SshdLaunch>();

/**
 * `ip netns exec NS unshare --uts [--mount] sh -c "hostname H; mount --bind SH /bin/sh; exec sshd …"`: each exec keeps
 * the PID, so the child is sshd. The mount namespace is private, so the bind mount is seen by sshd and its sessions only.
 */
function spawnIsolatedSshd(configPath: string, launch: SshdLaunch): ChildProcessByStdio<null, Readable, Readable> {
  const hostname = launch.hostname ? `hostname '${launch.hostname}' && ` : '';
  const binSh = launch.binSh ? `mount --bind '${launch.binSh}' /bin/sh && ` : '';
  const script = `${hostname}${binSh}exec ${SSHD} -D -e -f '${configPath}'`;
  const command = ['unshare', '--uts', ...(launch.binSh ? ['--mount', '--propagation', 'private'] : []), 'sh', '-c', script];
  const [file, ...args] = launch.netns ? ['ip', 'netns', 'exec', launch.netns, ...command] : command;
  return spawn(file as string, args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface TestSshdOptions {
  nvidiaSmi?: boolean;
  /** Address sshd listens on (default 127.0.0.1). */
  listenAddress?: string;
  /** Port to listen on (default: a free 127.0.0.1 port). */
  port?: number;
  /** Network namespace to run sshd in (root only). */
  netns?: string;
  /** Host name the sessions see, through a UTS namespace of sshd's own (root only). */
  hostname?: string;
  /**
   * keyboard-interactive through PAM (Debian's /etc/pam.d/sshd: pam_unix asks "Password:"), with plain password
   * auth off so that keyboard-interactive is what a password login uses. Root only.
   */
  kbdInteractive?: boolean;
  /** More authorized_keys lines for the test user (e.g. a client key shared by several test hosts). */
  authorizedKeys?: string[];
  /** More sshd_config lines (e.g. AuthenticationMethods). */
  extraConfig?: string[];
  /**
   * An executable mounted over /bin/sh (through its symlink, so `sh` on PATH too) in a private mount namespace of
   * sshd's own: every `sh` the sessions start is this shell, e.g. busybox (ash when called as sh). Root only.
   */
  binSh?: string;
}

export async function startTestSshd(opts: TestSshdOptions = {}): Promise<TestSshd> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'servelab-sshd-'));
  // The test user must be able to reach its home below this folder.
  await chmod(dir, 0o755);

  let child: ChildProcess | undefined;
  const logs: (() => string)[] = [];
  const launch = async (configPath: string, port: number) => {
    const started = await startSshd(configPath, port);
    logs.push(started.log);
    return started.child;
  };
  let userCreated: string | null = null;
  let stopped = false;

  const cleanupSync = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (userCreated) spawnSync('userdel', ['-f', userCreated]);
    spawnSync('rm', ['-rf', dir]);
  };
  // A crashed test run must not leave a user or a daemon behind.
  process.once('exit', cleanupSync);

  try {
    const hostKey = join(dir, 'ssh_host_ed25519_key');
    const identityFile = join(dir, 'id_ed25519');
    const encryptedIdentityFile = join(dir, 'id_ed25519_encrypted');
    const identityPassphrase = `pass-${randomBytes(6).toString('hex')}`;
    keygen(hostKey);
    keygen(identityFile);
    keygen(encryptedIdentityFile, identityPassphrase);
    const authorizedKeys =
      (await readFile(`${identityFile}.pub`, 'utf8')).trim() +
      '\n' +
      (await readFile(`${encryptedIdentityFile}.pub`, 'utf8')).trim() +
      '\n' +
      (opts.authorizedKeys ?? []).map((line) => `${line.trim()}\n`).join('');

    let user: string;
    let password = '';
    let homeDir: string;
    let uid: number;
    let gid: number;
    let authorizedKeysFile: string;
    if (isRoot) {
      user = `sl${randomBytes(4).toString('hex')}`;
      password = `pw-${randomBytes(9).toString('base64url')}`;
      homeDir = join(dir, 'home');
      runAccountTool('useradd', ['-M', '-d', homeDir, '-s', '/bin/bash', user]);
      userCreated = user;
      runAccountTool('chpasswd', [], `${user}:${password}\n`);
      uid = Number(run('id', ['-u', user]).trim());
      gid = Number(run('id', ['-g', user]).trim());
      await mkdir(join(homeDir, '.ssh'), { recursive: true, mode: 0o700 });
      await mkdir(join(homeDir, 'bin'), { recursive: true });
      await writeFile(join(homeDir, '.ssh', 'authorized_keys'), authorizedKeys, { mode: 0o600 });
      await writeFile(join(homeDir, '.profile'), PROFILE);
      await chownTree(homeDir, uid, gid);
      // sshd's privilege separation folder: the only thing created outside the temp folder.
      await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
      authorizedKeysFile = '.ssh/authorized_keys';
    } else {
      const me = userInfo();
      user = me.username;
      uid = me.uid;
      gid = me.gid;
      homeDir = join(dir, 'home');
      await mkdir(join(homeDir, 'bin'), { recursive: true });
      await writeFile(join(homeDir, '.profile'), PROFILE);
      authorizedKeysFile = join(dir, 'authorized_keys');
      await writeFile(authorizedKeysFile, authorizedKeys, { mode: 0o600 });
      process.stderr.write(
        `startTestSshd: not root, so sshd runs as ${user} with key auth only (it cannot check passwords); ` +
          `sessions get HOME=${homeDir} through ForceCommand.\n`,
      );
    }

    const port = opts.port ?? (await freePort());
    const listenAddress = opts.listenAddress ?? '127.0.0.1';
    const configPath = join(dir, 'sshd_config');
    const config = [
      `Port ${port}`,
      `ListenAddress ${listenAddress}`,
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorizedKeysFile}`,
      'PubkeyAuthentication yes',
      `PasswordAuthentication ${isRoot && !opts.kbdInteractive ? 'yes' : 'no'}`,
      `KbdInteractiveAuthentication ${opts.kbdInteractive ? 'yes' : 'no'}`,
      `UsePAM ${opts.kbdInteractive ? 'yes' : 'no'}`,
      'PermitRootLogin no',
      // Test files live under /tmp, whose permissions sshd's strict checks would refuse.
      'StrictModes no',
      'AllowTcpForwarding yes',
      'X11Forwarding no',
      'PrintMotd no',
      'PrintLastLog no',
      'Subsystem sftp internal-sftp',
      'LogLevel VERBOSE',
      // Without root the session belongs to the real user; point HOME at the test home so its .profile applies.
      ...(isRoot ? [] : [`ForceCommand exec env HOME=${homeDir} /bin/sh -c 'cd "$HOME" && eval "$SSH_ORIGINAL_COMMAND"'`]),
      ...(opts.extraConfig ?? []),
      '',
    ].join('\n');
    await writeFile(configPath, config);
    if (opts.binSh && !isRoot) throw new Error('startTestSshd: binSh needs root (a mount namespace with a bind mount over /bin/sh).');
    if (opts.netns || opts.hostname || opts.listenAddress || opts.binSh) {
      sshdLaunches.set(configPath, {
        listenAddress,
        ...(opts.netns ? { netns: opts.netns } : {}),
        ...(opts.hostname ? { hostname: opts.hostname } : {}),
        ...(opts.binSh ? { binSh: opts.binSh } : {}),
      });
    }
    run(SSHD, ['-t', '-f', configPath]);
    child = await launch(configPath, port);

    const captureDir = join(homeDir, 'nvidia-smi-captures');
    const standInPath = join(homeDir, 'bin', 'nvidia-smi');

    const sshd: TestSshd = {
      host: listenAddress,
      port,
      user,
      password,
      identityFile,
      encryptedIdentityFile,
      identityPassphrase,
      hostKeyType: 'ssh-ed25519',
      hostKeyFingerprint: fingerprintOf(`${hostKey}.pub`),
      homeDir,
      dir,
      dedicatedUser: isRoot,
      log: () => logs.map((read) => read()).join(''),
      async installNvidiaSmi() {
        await mkdir(captureDir, { recursive: true });
        for (const name of await readdir(h200FixtureDir)) await copyFile(join(h200FixtureDir, name), join(captureDir, name));
        await writeFile(standInPath, nvidiaSmiStandIn(captureDir), { mode: 0o755 });
        await chmod(standInPath, 0o755);
        await chownTree(captureDir, uid, gid);
        await chown(standInPath, uid, gid);
      },
      async removeNvidiaSmi() {
        await rm(standInPath, { force: true });
      },
      async rotateHostKey() {
        await stopSshd(child);
        await rm(hostKey, { force: true });
        await rm(`${hostKey}.pub`, { force: true });
        keygen(hostKey);
        sshd.hostKeyFingerprint = fingerprintOf(`${hostKey}.pub`);
        child = await launch(configPath, port);
      },
      async restart(restartOpts = {}) {
        const sessions = (restartOpts.dropSessions ?? true) ? descendantsOf(child?.pid) : [];
        await stopSshd(child);
        killAll(sessions);
        child = await launch(configPath, port);
      },
      async dropSessions() {
        killAll(descendantsOf(child?.pid));
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await stopSshd(child);
          if (userCreated) {
            const name = userCreated;
            userCreated = null;
            // -f: a session that has not closed yet must not keep the account alive.
            runAccountTool('userdel', ['-f', name]);
          }
        } finally {
          await rm(dir, { recursive: true, force: true });
          process.removeListener('exit', cleanupSync);
          sshdLaunches.delete(configPath);
        }
      },
    };
    if (opts.nvidiaSmi ?? true) await sshd.installNvidiaSmi();
    return sshd;
  } catch (error) {
    cleanupSync();
    process.removeListener('exit', cleanupSync);
    throw error;
  }
}

/** All processes below `root` in the process tree, read from /proc (Linux). */
function descendantsOf(root: number | undefined): number[] {
  if (root === undefined) return [];
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so parse after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const next = children.get(queue.shift() as number) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  await chown(path, uid, gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(child, uid, gid);
    else await chown(child, uid, gid);
  }
}
