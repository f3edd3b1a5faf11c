// A real OpenSSH sshd on 127.0.0.1 for tests, with its own host key, test user, client keys and an
// nvidia-smi stand-in that replays real captures from an H200 box.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, chown, copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { h200FixtureDir } from './repo';

export interface TestSshd {
  host: '127.0.0.1';
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
  installNvidiaSmi(): Promise<void>;
  removeNvidiaSmi(): Promise<void>;
  /** Generates a new host key and restarts sshd on the same port. */
  rotateHostKey(): Promise<void>;
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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
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
  return new Promise((resolve, reject) => {
    const child = spawn(SSHD, ['-D', '-e', '-f', configPath], { stdio: ['ignore', 'pipe', 'pipe'] });
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
      if (log.includes(`Server listening on 127.0.0.1 port ${port}`)) finish(null);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (error) => finish(error));
    child.once('exit', (code, signal) => finish(new Error(`sshd exited (${code ?? signal}) before listening:\n${log}`)));
  });
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 3_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts a throwaway sshd on a free 127.0.0.1 port. As root it creates a unique user (removed by stop());
 * without root it logs in the current user, key auth only (no password), and says so on stderr.
 */
export async function startTestSshd(opts: { nvidiaSmi?: boolean } = {}): Promise<TestSshd> {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const dir = await mkdtemp(join(tmpdir(), 'servelab-sshd-'));
  // The test user must be able to reach its home below this folder.
  await chmod(dir, 0o755);

  let child: ChildProcess | undefined;
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
      (await readFile(`${identityFile}.pub`, 'utf8')).trim() + '\n' + (await readFile(`${encryptedIdentityFile}.pub`, 'utf8')).trim() + '\n';

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

    const port = await freePort();
    const configPath = join(dir, 'sshd_config');
    const config = [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorizedKeysFile}`,
      'PubkeyAuthentication yes',
      `PasswordAuthentication ${isRoot ? 'yes' : 'no'}`,
      'KbdInteractiveAuthentication no',
      'UsePAM no',
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
      '',
    ].join('\n');
    await writeFile(configPath, config);
    run(SSHD, ['-t', '-f', configPath]);
    child = (await startSshd(configPath, port)).child;

    const captureDir = join(homeDir, 'nvidia-smi-captures');
    const standInPath = join(homeDir, 'bin', 'nvidia-smi');

    const sshd: TestSshd = {
      host: '127.0.0.1',
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
        await stopChild(child);
        await rm(hostKey, { force: true });
        await rm(`${hostKey}.pub`, { force: true });
        keygen(hostKey);
        sshd.hostKeyFingerprint = fingerprintOf(`${hostKey}.pub`);
        child = (await startSshd(configPath, port)).child;
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await stopChild(child);
          if (userCreated) {
            const name = userCreated;
            userCreated = null;
            // -f: a session that has not closed yet must not keep the account alive.
            runAccountTool('userdel', ['-f', name]);
          }
        } finally {
          await rm(dir, { recursive: true, force: true });
          process.removeListener('exit', cleanupSync);
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


async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  await chown(path, uid, gid);
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await chownTree(child, uid, gid);
    else await chown(child, uid, gid);
  }
}
