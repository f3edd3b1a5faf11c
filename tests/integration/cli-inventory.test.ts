import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { runInventory, type InventoryTerminal } from '../../src/cli/commands/inventory';
import { runCaptured, type CliRun } from '../helpers/cli';
import { InventorySchema } from '../../src/shared/model/inventory';
import { execFile } from 'node:child_process';
import { cliPath } from '../helpers/repo';
import { fakeLocalAccount, hasNssWrapper } from '../helpers/local-account';

// Without root the test sshd cannot check passwords (see startTestSshd).
const asRoot = process.getuid?.() === 0;
let sshd: TestSshd;
let home: string;
let dataDir: string;

/**
 * Runs `servelab inventory …` in-process with a fresh HOME and data folder, and captures what it prints.
 * Standard input is not a terminal unless a test passes one: the runner's own stdin may well be a TTY.
 */
/** The built command run as a local account of its own, whose passwd entry's home is `accountHome` (ssh takes `~` from there). */
async function asAccount(accountHome: string, args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
  const account = await fakeLocalAccount(join(accountHome, 'account'), { user: 'local-user', home: accountHome, hostname: 'laptop' });
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: accountHome, SERVELAB_DATA_DIR: dataDir, ...extraEnv, ...account.env };
    const child = execFile(process.execPath, [cliPath, 'inventory', ...args], { env, cwd: accountHome, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

async function inventory(
  args: string[],
  env: Record<string, string> = {},
  terminal: InventoryTerminal = { input: new PassThrough(), output: new PassThrough() },
): Promise<CliRun> {
  return runCaptured((io) => runInventory(args, io, terminal), { HOME: home, USER: 'local-user', SERVELAB_DATA_DIR: dataDir, ...env }, home);
}

/**
 * A terminal that types each answer once its prompt has been printed, and records everything shown on it.
 * Answers are typed in order; a prompt with no answer left is cancelled with Ctrl-C.
 */
function scriptedTerminal(answers: { prompt: string; answer: string }[]): InventoryTerminal & { shown: () => string; asked: string[] } {
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    isRaw: false,
    setRawMode(mode: boolean) {
      input.isRaw = mode;
      return input;
    },
  });
  const output = new PassThrough();
  const asked: string[] = [];
  let shown = '';
  let unseen = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString('utf8');
    unseen += chunk.toString('utf8');
    const next = answers[0];
    const at = next ? unseen.indexOf(next.prompt) : -1;
    if (next && at >= 0) {
      answers.shift();
      asked.push(next.prompt);
      unseen = unseen.slice(at + next.prompt.length);
      setImmediate(() => input.write(`${next.answer}\r`));
    } else if (!next && /(Passphrase|Password):\s*$/.test(unseen)) {
      unseen = '';
      setImmediate(() => input.write('\u0003'));
    }
  });
  return { input, output, shown: () => shown, asked };
}

const target = () => `${sshd.user}@127.0.0.1`;
const keyArgs = () => [target(), '--port', String(sshd.port), '--identity', sshd.identityFile, '--timeout', '10'];

beforeAll(async () => {
  sshd = await startTestSshd();
  home = await mkdtemp(join(tmpdir(), 'servelab-cli-'));
  dataDir = join(home, 'data');
});

afterAll(async () => {
  await sshd?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('servelab inventory', () => {
  it('stops at an unknown host key with exit 3 and says how to accept it', async () => {
    const result = await inventory([...keyArgs(), '--json']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`[127.0.0.1]:${sshd.port}`);
    expect(result.stderr).toContain('ED25519');
    expect(result.stderr).toContain(sshd.hostKeyFingerprint);
    expect(result.stderr).toContain('--accept-new');
    expect(existsSync(join(dataDir, 'known_hosts'))).toBe(false);
  });

  it('stores the key with --accept-new and prints the inventory as JSON', async () => {
    const result = await inventory([...keyArgs(), '--accept-new', '--json']);
    expect(result.stderr).toContain('Permanently added');
    expect(result.code).toBe(0);
    const json = InventorySchema.parse(JSON.parse(result.stdout));
    expect(json.hostId).toBe(`${sshd.user}@127.0.0.1:${sshd.port}`);
    expect(json.gpus[0]?.name).toBe('NVIDIA H200');
    expect(json.gpus[0]?.memoryTotalMiB).toBe(143771);
    expect(json.gpus[0]?.computeCapability).toBe('9.0');
    expect(json.cudaVersion).toBe('13.0');
    expect(await readFile(join(dataDir, 'known_hosts'), 'utf8')).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
  });

  it('prints a human summary once the key is known', async () => {
    const result = await inventory(keyArgs());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('GPU 0: NVIDIA H200 · 143771 MiB · sm 9.0');
    expect(result.stdout).toContain('Driver: 580.159.04 · CUDA: 13.0');
    expect(result.stdout).toMatch(/^OS: .*Linux/m);
    expect(result.stdout).toMatch(/^Python: /m);
    expect(result.stdout).toMatch(/^Disk: .* free of /m);
  });

  it('takes the passphrase of an encrypted key from --passphrase-env, and says how to give it when missing', async () => {
    const encrypted = [target(), '--port', String(sshd.port), '--identity', sshd.encryptedIdentityFile, '--json'];
    const result = await inventory([...encrypted, '--passphrase-env', 'KEY_PASS'], { KEY_PASS: sshd.identityPassphrase });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).gpus[0].name).toBe('NVIDIA H200');

    const missing = await inventory(encrypted);
    expect(missing.code).toBe(5);
    expect(missing.stderr).toContain('is encrypted');
    expect(missing.stderr).toContain('--passphrase-env VAR');
  });

  it('asks for the passphrase on a terminal, hiding it, and prints the connection log with -v', async () => {
    const terminal = scriptedTerminal([{ prompt: 'Passphrase:', answer: sshd.identityPassphrase }]);
    const result = await inventory([target(), '-p', String(sshd.port), '-i', sshd.encryptedIdentityFile, '--json', '-v'], {}, terminal);
    expect(result.code, result.stderr).toBe(0);
    expect(terminal.asked).toEqual(['Passphrase:']);
    expect(terminal.shown()).toContain(`Enter the passphrase of key ${sshd.encryptedIdentityFile}`);
    expect(result.stderr).toContain(`servelab: Connecting to ${sshd.user}@127.0.0.1:${sshd.port}…`);
    expect(result.stderr).toContain('asking for its passphrase');
    expect(result.stderr).toContain(`Logged in as ${sshd.user} with key`);
    expect(result.stderr).not.toContain('debug:');
    for (const text of [result.stderr, terminal.shown(), result.stdout]) expect(text).not.toContain(sshd.identityPassphrase);
    expect(JSON.parse(result.stdout).hostId).toBe(`${sshd.user}@127.0.0.1:${sshd.port}`);
  });

  it.skipIf(!asRoot)('asks for the password on a terminal when there is no key', async () => {
    const terminal = scriptedTerminal([{ prompt: 'Password:', answer: sshd.password }]);
    const result = await inventory([target(), '--port', String(sshd.port), '--json'], {}, terminal);
    expect(result.code, result.stderr).toBe(0);
    expect(terminal.asked).toEqual(['Password:']);
    expect(terminal.shown()).not.toContain(sshd.password);
    expect(JSON.parse(result.stdout).gpus[0].name).toBe('NVIDIA H200');
  });

  // ssh's default identities are in the passwd entry's home, not $HOME: the command runs as a local account of its own.
  it.skipIf(!hasNssWrapper)("uses ssh's default identities when neither --identity nor the config names one", async () => {
    const withKey = await mkdtemp(join(tmpdir(), 'servelab-cli-home-'));
    const empty = await mkdtemp(join(tmpdir(), 'servelab-cli-home-'));
    try {
      await mkdir(join(withKey, '.ssh'), { mode: 0o700 });
      await copyFile(sshd.identityFile, join(withKey, '.ssh', 'id_ed25519'));
      const args = [target(), '--port', String(sshd.port), '--json'];
      const found = await asAccount(withKey, [...args, '-vv']);
      expect(found.code, found.stderr).toBe(0);
      expect(found.stderr).toMatch(/servelab: Logged in as \S+ with key \S*id_ed25519\./);
      expect(found.stderr).toContain(`servelab: debug: Route: ${sshd.user}@127.0.0.1:${sshd.port}.`);

      const none = await asAccount(empty, args);
      expect(none.code).toBe(5);
      expect(none.stderr).toContain('No identity file');
      expect(none.stderr).toContain('--identity FILE');
    } finally {
      await rm(withKey, { recursive: true, force: true });
      await rm(empty, { recursive: true, force: true });
    }
  });

  it.skipIf(!hasNssWrapper)('resolves an ~/.ssh/config alias and trusts ~/.ssh/known_hosts', async () => {
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(
      join(home, '.ssh', 'config'),
      `Host testbox\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${sshd.identityFile}\n`,
    );
    await writeFile(join(home, '.ssh', 'known_hosts'), await readFile(join(dataDir, 'known_hosts'), 'utf8'));
    const result = await asAccount(home, ['testbox', '--json'], { SERVELAB_DATA_DIR: join(home, 'other-data') });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).hostId).toBe(`${sshd.user}@127.0.0.1:${sshd.port}`);
  });

  it.skipIf(!asRoot)('logs in with --password-env and writes accepted keys to --known-hosts', async () => {
    const file = join(home, 'kh', 'custom_known_hosts');
    const args = [target(), '--port', String(sshd.port), '--password-env', 'BOX_PASSWORD', '--known-hosts', file, '--json'];
    expect((await inventory(args, { BOX_PASSWORD: sshd.password })).code).toBe(3);
    const result = await inventory([...args, '--accept-new'], { BOX_PASSWORD: sshd.password });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).gpus[0].name).toBe('NVIDIA H200');
    expect(await readFile(file, 'utf8')).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
  });

  it('exits 5 on a failed login and 6 on a closed port', async () => {
    const wrong = await inventory([target(), '--port', String(sshd.port), '--password-env', 'P'], { P: 'wrong' });
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toContain(`${sshd.user}@127.0.0.1`);
    const closed = await inventory([target(), '--port', '1', '--identity', sshd.identityFile, '--timeout', '5']);
    expect(closed.code).toBe(6);
    expect(closed.stderr).toMatch(/refused/);
  });

  it('exits 2 with the usage on bad arguments', async () => {
    const bad = [
      [],
      ['a', 'b'],
      [target(), '--bogus'],
      [target(), '--port', 'x'],
      [target(), '--password-env', 'UNSET_VAR'],
      ['-rf'],
      [target(), '-J', 'jump host'],
      [target(), '--jump', '@bastion'],
      [target(), '-J', 'bastion:99999'],
    ];
    for (const args of bad) {
      const result = await inventory(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage: servelab inventory');
    }
    const help = await inventory(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--accept-new');
    expect(help.stdout).toContain('-J, --jump HOPS');
  });

  it('exits 4 with the OpenSSH warning after the host key changed, even with --accept-new', async () => {
    const before = await readFile(join(dataDir, 'known_hosts'), 'utf8');
    await sshd.rotateHostKey();
    const result = await inventory([...keyArgs(), '--accept-new', '--json']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!');
    expect(result.stderr).toContain(sshd.hostKeyFingerprint);
    expect(result.stderr).toContain(`Offending ED25519 key in ${join(dataDir, 'known_hosts')}:1`);
    expect(await readFile(join(dataDir, 'known_hosts'), 'utf8')).toBe(before);
  });
});
