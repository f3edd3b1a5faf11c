// Logging in the ways OpenSSH does, against real sshd (keys, encrypted keys, passwords, keyboard-interactive
// through PAM, partial success, ssh-agent) and against ssh2's own Server for a two-round, two-factor login.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import * as ssh2Module from 'ssh2';
import type { Client } from 'ssh2';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { openSshClient, type OpenSshClientOptions } from '../../src/core/ssh/connect';
import { execCollect } from '../../src/core/ssh/exec';
import type { SshTarget } from '../../src/core/ssh/ssh-target';
import { ConnectionLog } from '../../src/core/ssh/connection-log';
import { PromptBroker } from '../../src/core/ssh/prompt-broker';
import { attachTtyPrompts } from '../../src/cli/tty-prompts';
import { ScriptedPrompts } from '../helpers/scripted-prompts';
import type { RememberedSecret } from '../../src/core/ssh/auth-plan';
import { ServelabError } from '../../src/shared/contract';

const ssh2: typeof ssh2Module = (ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module;
const asRoot = process.getuid?.() === 0;

let plain: TestSshd;
let kbd: TestSshd | undefined;
let scratch: string;
let agent: ChildProcess | undefined;
let agentSocket: string;
let twoFactor: ssh2Module.Server;
let twoFactorPort: number;
let twoFactorHostKey: { keyType: string; publicKey: string };
let files = 0;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'servelab-auth-'));
  [plain, kbd] = await Promise.all([
    startTestSshd({ nvidiaSmi: false }),
    // Key then keyboard-interactive, or keyboard-interactive alone: both paths go through PAM's "Password:".
    asRoot ? startTestSshd({ nvidiaSmi: false, kbdInteractive: true, extraConfig: ['AuthenticationMethods publickey,keyboard-interactive keyboard-interactive'] }) : undefined,
  ]);

  agentSocket = join(scratch, 'agent.sock');
  agent = spawn('ssh-agent', ['-D', '-a', agentSocket], { stdio: 'ignore' });
  for (let i = 0; i < 100 && !existsSync(agentSocket); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  const added = spawnSync('ssh-add', ['-q', plain.identityFile], { env: { ...process.env, SSH_AUTH_SOCK: agentSocket }, encoding: 'utf8' });
  if (added.status !== 0) throw new Error(`ssh-add failed: ${added.stderr}`);

  const hostKeyPath = join(scratch, 'two_factor_host_key');
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKeyPath]);
  const [keyType, publicKey] = readFileSync(`${hostKeyPath}.pub`, 'utf8').trim().split(' ') as [string, string];
  twoFactorHostKey = { keyType, publicKey };
  twoFactor = new ssh2.Server({ hostKeys: [readFileSync(hostKeyPath)] }, (client) => {
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'keyboard-interactive') return ctx.reject(['keyboard-interactive']);
      ctx.prompt([{ prompt: 'Password: ', echo: false }], 'Two-factor login', 'Step 1 of 2', (answers) => {
        if (answers[0] !== 'pw-2fa') return ctx.reject(['keyboard-interactive']);
        ctx.prompt([{ prompt: 'Verification code: ', echo: true }], 'Two-factor login', 'Step 2 of 2: the code from your app', (codes) => {
          if (codes[0] === '246810') ctx.accept();
          else ctx.reject(['keyboard-interactive']);
        });
      });
    });
    client.on('ready', () => {
      client.on('session', (accept) => {
        accept().on('exec', (acceptExec) => {
          const channel = acceptExec();
          channel.write('two-factor ok\n');
          channel.exit(0);
          channel.end();
        });
      });
    });
    client.on('error', () => {});
  });
  await new Promise<void>((resolve) => twoFactor.listen(0, '127.0.0.1', resolve));
  twoFactorPort = (twoFactor.address() as { port: number }).port;
});

afterAll(async () => {
  agent?.kill();
  twoFactor?.close();
  await Promise.all([plain?.stop(), kbd?.stop()]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function trusting(sshd: TestSshd): Promise<KnownHostsStore> {
  const store = new KnownHostsStore({ appFile: join(scratch, `known_hosts_${++files}`), readOnlyFiles: [] });
  const [keyType, publicKey] = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).trim().split(' ') as [string, string];
  await store.add({ host: sshd.host, port: sshd.port, keyType, publicKey });
  return store;
}

interface Session {
  broker: PromptBroker;
  answers: ScriptedPrompts;
  log: ConnectionLog;
  remembered: { secret: RememberedSecret; value: string }[];
  opts: OpenSshClientOptions;
  logText(): string;
}

async function session(sshd: TestSshd): Promise<Session> {
  const broker = new PromptBroker();
  const log = new ConnectionLog();
  const remembered: Session['remembered'] = [];
  return {
    broker,
    answers: new ScriptedPrompts(broker),
    log,
    remembered,
    opts: {
      knownHosts: await trusting(sshd),
      timeoutSeconds: 10,
      prompts: broker,
      log: log.writer('box'),
      hostId: 'box',
      secrets: { remember: (secret, value) => void remembered.push({ secret, value }) },
    },
    logText: () => log.entries('box').map((e) => e.message).join('\n'),
  };
}

function target(sshd: TestSshd, extra: Partial<SshTarget> = {}): SshTarget {
  return { host: sshd.host, port: sshd.port, user: sshd.user, ...extra };
}

async function whoami(client: Client): Promise<string> {
  try {
    return (await execCollect(client, 'id -un', { timeoutSeconds: 10 })).stdout.trim();
  } finally {
    client.end();
  }
}

async function caught(promise: Promise<Client>): Promise<ServelabError> {
  try {
    (await promise).end();
  } catch (error) {
    expect(error).toBeInstanceOf(ServelabError);
    return error as ServelabError;
  }
  throw new Error('expected a failure');
}

describe('keys', () => {
  it('tries each IdentityFile in order, skipping a missing one, and says so', async () => {
    const s = await session(plain);
    const missing = join(scratch, 'no_such_key');
    expect(await whoami(await openSshClient(target(plain, { identityFiles: [missing, plain.identityFile] }), s.opts))).toBe(plain.user);
    expect(s.logText()).toContain(`Key ${missing} does not exist; skipping it.`);
    expect(s.logText()).toContain(`Trying key ${plain.identityFile}…`);
    expect(s.logText()).toContain(`Logged in as ${plain.user} with key ${plain.identityFile}.`);
    expect(s.answers.requests).toEqual([]);
  });

  it('asks for a passphrase, asks again after a wrong one, remembers it on request and never logs it', async () => {
    const s = await session(plain);
    s.answers.reply(['not-the-passphrase'], { answers: [plain.identityPassphrase], remember: true });
    expect(await whoami(await openSshClient(target(plain, { identityFiles: [plain.encryptedIdentityFile] }), s.opts))).toBe(plain.user);
    expect(s.answers.requests.map((r) => [r.kind, r.hostId, r.prompts])).toEqual([
      ['passphrase', 'box', [{ text: 'Passphrase:', echo: false }]],
      ['passphrase', 'box', [{ text: 'Passphrase:', echo: false }]],
    ]);
    expect(s.answers.requests[0]?.remember).toBe(true);
    expect(s.answers.requests[1]?.message).toMatch(/wrong.*\(2 of 3\)/);
    expect(s.logText()).toContain('Passphrase was wrong, asking again (2 of 3).');
    expect(s.remembered).toEqual([{ secret: { kind: 'passphrase', identityFile: plain.encryptedIdentityFile }, value: plain.identityPassphrase }]);
    expect(s.logText()).not.toContain(plain.identityPassphrase);
    expect(s.logText()).not.toContain('not-the-passphrase');
  });

  it('goes on to the next key when the passphrase is cancelled, and gives up a key after three wrong ones', async () => {
    const s = await session(plain);
    s.answers.reply(null);
    expect(await whoami(await openSshClient(target(plain, { identityFiles: [plain.encryptedIdentityFile, plain.identityFile] }), s.opts))).toBe(plain.user);
    expect(s.logText()).toContain(`Passphrase entry cancelled; skipping key ${plain.encryptedIdentityFile}.`);

    const u = await session(plain);
    u.answers.reply(['a'], ['b'], ['c'], null);
    const wrong = await caught(openSshClient(target(plain, { identityFiles: [plain.encryptedIdentityFile] }), u.opts));
    expect(wrong.code).toBe('AUTH_FAILED');
    expect(u.answers.requests.filter((r) => r.kind === 'passphrase')).toHaveLength(3);
    expect(u.logText()).toContain(`Passphrase was wrong 3 times; skipping key ${plain.encryptedIdentityFile}.`);
  });

  it('fails with the flag to use when the terminal front end has no terminal', async () => {
    const broker = new PromptBroker();
    const input = Object.assign(new PassThrough(), { isTTY: false });
    attachTtyPrompts(broker, { input, output: new PassThrough() });
    const error = await caught(
      openSshClient(target(plain, { identityFiles: [plain.encryptedIdentityFile] }), { knownHosts: await trusting(plain), timeoutSeconds: 10, prompts: broker }),
    );
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.message).toContain('not a TTY');
    expect(error.message).toContain('--passphrase-env');
  });
});

describe('passwords', () => {
  it.runIf(asRoot)('asks for the password when none is saved, and again when it is refused', async () => {
    const s = await session(plain);
    s.answers.reply(['wrong-password'], { answers: [plain.password], remember: true });
    expect(await whoami(await openSshClient(target(plain), s.opts))).toBe(plain.user);
    expect(s.answers.requests.map((r) => r.kind)).toEqual(['password', 'password']);
    expect(s.answers.requests[1]?.message).toMatch(/wrong/);
    expect(s.logText()).toContain('The server refused the password.');
    expect(s.logText()).toContain('Password was wrong, asking again (2 of 3).');
    expect(s.remembered).toEqual([{ secret: { kind: 'password', user: plain.user, host: plain.host, port: plain.port }, value: plain.password }]);
    expect(s.logText()).not.toContain(plain.password);
  });

  it.runIf(asRoot)('stops the whole login when the password question is cancelled', async () => {
    const s = await session(plain);
    s.answers.reply(null);
    const error = await caught(openSshClient(target(plain), s.opts));
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.details).toMatchObject({ cancelled: true });
  });
});

describe('keyboard-interactive', () => {
  it.runIf(asRoot)('relays PAM’s prompt with its echo flag', async () => {
    const sshd = kbd as TestSshd;
    const s = await session(sshd);
    s.answers.reply([sshd.password]);
    expect(await whoami(await openSshClient(target(sshd), s.opts))).toBe(sshd.user);
    expect(s.answers.requests).toHaveLength(1);
    expect(s.answers.requests[0]).toMatchObject({ kind: 'keyboard-interactive', prompts: [{ text: 'Password: ', echo: false }] });
    expect(s.logText()).toContain('The server asks "Password:"; passing the question on.');
    expect(s.logText()).not.toContain(sshd.password);
  });

  it.runIf(asRoot)('answers the second factor after a key the server accepted partially', async () => {
    const sshd = kbd as TestSshd;
    const s = await session(sshd);
    s.answers.reply([sshd.password]);
    expect(await whoami(await openSshClient(target(sshd, { identityFiles: [sshd.identityFile] }), s.opts))).toBe(sshd.user);
    expect(s.logText()).toContain(`The server accepted key ${sshd.identityFile} and asks for more (keyboard-interactive).`);
  });

  it.runIf(asRoot)('stops the login when a prompt is cancelled', async () => {
    const sshd = kbd as TestSshd;
    const s = await session(sshd);
    s.answers.reply(null);
    const error = await caught(openSshClient(target(sshd), s.opts));
    expect(error.code).toBe('AUTH_FAILED');
    expect(error.details).toMatchObject({ cancelled: true });
    expect(s.answers.requests).toHaveLength(1);
  });

  it('relays two rounds of a two-factor login with their name, instructions and echo flags, and retries a wrong code', async () => {
    const store = new KnownHostsStore({ appFile: join(scratch, `known_hosts_${++files}`), readOnlyFiles: [] });
    await store.add({ host: '127.0.0.1', port: twoFactorPort, ...twoFactorHostKey });
    const broker = new PromptBroker();
    const answers = new ScriptedPrompts(broker).reply(['pw-2fa'], ['000000'], ['pw-2fa'], ['246810']);
    const log = new ConnectionLog();
    const client = await openSshClient(
      { host: '127.0.0.1', port: twoFactorPort, user: 'someone' },
      { knownHosts: store, timeoutSeconds: 10, prompts: broker, log: log.writer('2fa'), hostId: '2fa' },
    );
    try {
      expect((await execCollect(client, 'anything', { timeoutSeconds: 5 })).stdout).toBe('two-factor ok\n');
    } finally {
      client.end();
    }
    expect(answers.requests.map((r) => ({ title: r.title, message: r.message, prompts: r.prompts }))).toEqual([
      { title: 'Two-factor login', message: 'Step 1 of 2', prompts: [{ text: 'Password: ', echo: false }] },
      { title: 'Two-factor login', message: 'Step 2 of 2: the code from your app', prompts: [{ text: 'Verification code: ', echo: true }] },
      { title: 'Two-factor login', message: 'Step 1 of 2', prompts: [{ text: 'Password: ', echo: false }] },
      { title: 'Two-factor login', message: 'Step 2 of 2: the code from your app', prompts: [{ text: 'Verification code: ', echo: true }] },
    ]);
    const text = log.entries('2fa').map((e) => e.message).join('\n');
    expect(text).toContain('Trying keyboard-interactive login again (2 of 3)…');
    for (const secret of ['pw-2fa', '246810', '000000']) expect(text).not.toContain(secret);
  });
});

describe('ssh-agent', () => {
  it('logs in with a key held by the agent', async () => {
    const s = await session(plain);
    expect(await whoami(await openSshClient(target(plain, { agentSocket, identityFiles: [] }), s.opts))).toBe(plain.user);
    expect(s.logText()).toContain(`Trying keys from the SSH agent (${agentSocket})…`);
    expect(s.logText()).toContain('The SSH agent offers 1 key(s).');
    expect(s.logText()).toContain(`Logged in as ${plain.user} with the SSH agent’s keys.`);
  });

  it('with IdentitiesOnly offers only the agent keys named by IdentityFile', async () => {
    const s = await session(plain);
    // The agent holds the plain key; IdentityFile names the encrypted one (its .pub is read, not the key).
    const error = await caught(openSshClient(target(plain, { agentSocket, identityFiles: [plain.encryptedIdentityFile], identitiesOnly: true }), { ...s.opts, prompts: undefined as never }));
    expect(error.code).toBe('AUTH_FAILED');
    expect(s.logText()).toContain('The SSH agent holds 1 key(s), none of them named by IdentityFile (IdentitiesOnly is set).');

    const t = await session(plain);
    const named = target(plain, { agentSocket, identityFiles: [`${plain.identityFile}.pub`], identitiesOnly: true });
    expect(await whoami(await openSshClient(named, t.opts))).toBe(plain.user);
    expect(t.logText()).toContain('The SSH agent offers 1 key(s).');
  });

  it('skips an agent socket that does not exist', async () => {
    const s = await session(plain);
    const gone = join(scratch, 'gone.sock');
    expect(await whoami(await openSshClient(target(plain, { agentSocket: gone, identityFiles: [plain.identityFile] }), s.opts))).toBe(plain.user);
    expect(s.logText()).toContain(`Not using the SSH agent: the agent socket ${gone} does not exist.`);
  });
});
