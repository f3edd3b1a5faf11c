import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ssh2Module from 'ssh2';
import type { AnyAuthMethod, AuthenticationType, KeyboardInteractiveAuthMethod, PasswordAuthMethod } from 'ssh2';
import { AuthPlan, planAuthSteps, tildify, type AuthPlanOptions } from './auth-plan';
import { ConnectionLog } from './connection-log';
import { PromptBroker } from './prompt-broker';
import { ScriptedPrompts } from '../../../tests/helpers/scripted-prompts';
import type { SshTarget } from './ssh-target';
import { ServelabError } from '../../shared/contract';

const ssh2: typeof ssh2Module = (ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module;

let dir: string;
let plainKey: string;
let encryptedKey: string;
const PASSPHRASE = 'correct horse';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-authplan-'));
  plainKey = join(dir, 'id_plain');
  encryptedKey = join(dir, 'id_encrypted');
  const plain = ssh2.utils.generateKeyPairSync('ed25519');
  // One bcrypt round keeps the test fast; the format is the one ssh-keygen writes. About 1 in 100 keys ssh2 writes
  // this way is malformed (ssh-keygen cannot load it either), so a key is kept only once it unlocks.
  let encrypted = ssh2.utils.generateKeyPairSync('ed25519', { passphrase: PASSPHRASE, cipher: 'aes256-ctr', rounds: 1 });
  for (let tries = 1; ssh2.utils.parseKey(encrypted.private, PASSPHRASE) instanceof Error; tries++) {
    if (tries === 20) throw new Error('ssh2 wrote 20 malformed encrypted keys in a row');
    encrypted = ssh2.utils.generateKeyPairSync('ed25519', { passphrase: PASSPHRASE, cipher: 'aes256-ctr', rounds: 1 });
  }
  await writeFile(plainKey, plain.private);
  await writeFile(`${plainKey}.pub`, plain.public);
  await writeFile(encryptedKey, encrypted.private);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('planAuthSteps', () => {
  it('orders none, agent, key files, keyboard-interactive, password', () => {
    expect(planAuthSteps({ identityFiles: ['/k1', '/k2.pub', '/k3'], identitiesOnly: false, agentSocket: '/agent', hasPassword: false, canPrompt: true })).toEqual([
      { kind: 'none' },
      { kind: 'agent', socket: '/agent' },
      { kind: 'key', file: '/k1' },
      { kind: 'key', file: '/k3' },
      { kind: 'keyboard-interactive' },
      { kind: 'password' },
    ]);
  });

  it('leaves out what cannot work', () => {
    expect(planAuthSteps({ identityFiles: [], identitiesOnly: true, agentSocket: '/agent', hasPassword: false, canPrompt: false })).toEqual([{ kind: 'none' }]);
    expect(planAuthSteps({ identityFiles: [], identitiesOnly: false, agentSocket: null, hasPassword: true, canPrompt: false }).map((s) => s.kind)).toEqual([
      'none',
      'keyboard-interactive',
      'password',
    ]);
  });
});

/** Drives a plan the way ssh2 does: the handler is called again after each failure. */
function driver(plan: AuthPlan) {
  return (methodsLeft: AuthenticationType[] | null, partialSuccess = false) =>
    new Promise<AnyAuthMethod | false>((resolve) => plan.handler(methodsLeft as AuthenticationType[], partialSuccess, (method) => resolve(method as AnyAuthMethod | false)));
}

function setup(target: Partial<SshTarget>, extra: Partial<AuthPlanOptions> = {}) {
  const log = new ConnectionLog();
  const broker = new PromptBroker();
  const script = new ScriptedPrompts(broker);
  const waiting: boolean[] = [];
  const plan = new AuthPlan({
    target: { host: 'gpu1', port: 22, user: 'ann', ...target },
    hostId: 'h',
    log: log.writer('h'),
    prompts: broker,
    home: dir,
    onWaitingForUser: (w) => waiting.push(w),
    ...extra,
  });
  return { plan, next: driver(plan), script, waiting, logText: () => log.entries('h').map((e) => e.message).join('\n') };
}

describe('AuthPlan', () => {
  it('starts with none, then offers only what the server still accepts', async () => {
    const { next, logText } = setup({ identityFiles: [plainKey] });
    expect(await next(null)).toEqual({ type: 'none', username: 'ann' });
    const key = await next(['publickey']);
    expect(key).toMatchObject({ type: 'publickey', username: 'ann' });
    // Refused: keyboard-interactive is not offered by the server, so the password comes next (asked: cancelled).
    expect(await next(['publickey', 'password'])).toBe(false);
    expect(logText()).toBe(
      [
        'The server accepts: publickey.',
        'Trying key ~/id_plain…',
        'The server refused key ~/id_plain.',
        'The server does not accept keyboard-interactive login; skipping keyboard-interactive login.',
        'Password entry cancelled.',
      ].join('\n'),
    );
  });

  it('unlocks an encrypted key after a wrong passphrase, saying so, and pauses the caller’s timeout while asking', async () => {
    const remembered: string[] = [];
    const { next, script, waiting, logText } = setup({ identityFiles: [encryptedKey] }, { secrets: { remember: (s) => void remembered.push(s.kind) } });
    script.reply(['wrong'], { answers: [PASSPHRASE], remember: true });
    await next(null);
    expect(await next(['publickey'])).toMatchObject({ type: 'publickey' });
    expect(script.requests.map((r) => r.message)).toEqual([
      `Enter the passphrase of key ~/id_encrypted to log in to ann@gpu1:22.`,
      'The passphrase was wrong; try again (2 of 3).',
    ]);
    expect(script.requests[0]?.remember).toBe(true);
    // The same facts, for a front end that words the question in its own language.
    expect(script.requests.map((r) => r.about)).toEqual([
      { kind: 'passphrase', key: '~/id_encrypted', login: 'ann@gpu1:22', attempt: 1, tries: 3 },
      { kind: 'passphrase', key: '~/id_encrypted', login: 'ann@gpu1:22', attempt: 2, tries: 3 },
    ]);
    expect(waiting).toEqual([true, false, true, false]);
    expect(remembered).toEqual(['passphrase']);
    expect(logText()).toContain('Passphrase was wrong, asking again (2 of 3).');
    expect(logText()).not.toContain(PASSPHRASE);
  });

  it('says "saved" only when the store saved it, and "this session only" when it kept it in memory', async () => {
    for (const [kept, line] of [
      ['saved', 'Saved the passphrase for ~/id_encrypted.'],
      ['session', 'Kept the passphrase for ~/id_encrypted for this session only: no OS keychain is available'],
    ] as const) {
      const { next, script, logText } = setup({ identityFiles: [encryptedKey] }, { secrets: { remember: async () => kept } });
      script.reply({ answers: [PASSPHRASE], remember: true });
      await next(null);
      expect(await next(['publickey'])).toMatchObject({ type: 'publickey' });
      await vi.waitFor(() => expect(logText()).toContain(line));
      if (kept === 'session') expect(logText()).not.toContain('Saved the passphrase');
    }
  });

  it('uses a saved passphrase without asking', async () => {
    const { next, script } = setup({ identityFiles: [encryptedKey] }, { secrets: { passphrase: async () => PASSPHRASE } });
    await next(null);
    expect(await next(['publickey'])).toMatchObject({ type: 'publickey' });
    expect(script.requests).toEqual([]);
  });

  it('explains unusable keys when nothing could be tried', async () => {
    const missing = join(dir, 'missing');
    const { plan, next } = setup({ identityFiles: [missing, encryptedKey] }, { prompts: undefined as never });
    await next(null);
    expect(await next(['publickey'])).toBe(false);
    const failure = plan.failure();
    expect(failure).toBeInstanceOf(ServelabError);
    expect(failure.code).toBe('AUTH_FAILED');
    expect(failure.message).toBe(`Identity file ${missing} does not exist. Identity file ${encryptedKey} is encrypted; a passphrase is needed to use it.`);
  });

  it('lists the methods tried when the server refused them all', async () => {
    const { plan, next, script } = setup({ identityFiles: [plainKey], password: 'saved-pw' });
    script.reply(['typed-pw']);
    await next(null);
    await next(['publickey', 'password']);
    expect(await next(['publickey', 'password'])).toEqual({ type: 'password', username: 'ann', password: 'saved-pw' });
    expect(((await next(['publickey', 'password'])) as PasswordAuthMethod).password).toBe('typed-pw');
    expect(script.requests[0]?.message).toBe('The password was wrong; try again.');
    const failure = plan.failure('Too many authentication failures');
    expect(failure.message).toMatch(/^Permission denied for ann@gpu1 \(port 22\); tried publickey \(.*id_plain\), password\./);
    expect(failure.message).toContain('IdentitiesOnly yes');
  });

  it('relays keyboard-interactive rounds, answers a lone password prompt with the saved password once, and commits a remembered password on partial success', async () => {
    const remembered: string[] = [];
    const { next, script, logText } = setup({ password: 'saved-pw' }, { secrets: { remember: (_s, v) => void remembered.push(v) } });
    script.reply(['123456']);
    await next(null);
    const kbd = (await next(['keyboard-interactive', 'password'])) as KeyboardInteractiveAuthMethod;
    expect(kbd.type).toBe('keyboard-interactive');
    const first = await new Promise<string[]>((resolve) => kbd.prompt('', '', '', [{ prompt: 'Password: ', echo: false }], resolve));
    expect(first).toEqual(['saved-pw']);
    const second = await new Promise<string[]>((resolve) => kbd.prompt('2FA', 'Open your app', '', [{ prompt: 'Code: ', echo: true }], resolve));
    expect(second).toEqual(['123456']);
    expect(script.requests[0]).toMatchObject({ kind: 'keyboard-interactive', title: '2FA', message: 'Open your app', prompts: [{ text: 'Code: ', echo: true }] });
    expect(logText()).toContain('The server asks "Password:"; answering with the saved password.');
    expect(remembered).toEqual([]);
  });

  it('stops everything when a keyboard-interactive question is cancelled, through onAbandon when given', async () => {
    let abandoned = 0;
    const { plan, next, script } = setup({}, { onAbandon: () => abandoned++ });
    script.reply(null);
    await next(null);
    const kbd = (await next(['keyboard-interactive'])) as KeyboardInteractiveAuthMethod;
    kbd.prompt('', '', '', [{ prompt: 'Password: ', echo: false }], () => {
      throw new Error('no answer may be sent after a cancel');
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(abandoned).toBe(1);
    expect(await next(['keyboard-interactive'])).toBe(false);
    expect(plan.failure().details).toMatchObject({ cancelled: true });
    expect(plan.failureIfDecided()?.code).toBe('AUTH_FAILED');
  });
});

describe('tildify', () => {
  it('shows paths under the home as ~/…', () => {
    expect(tildify('/home/ann/.ssh/id', '/home/ann')).toBe('~/.ssh/id');
    expect(tildify('/home/anne/id', '/home/ann')).toBe('/home/anne/id');
  });
});
