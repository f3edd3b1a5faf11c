import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import * as ssh2Module from 'ssh2';
import type { AnyAuthMethod, AuthHandlerMiddleware, AuthenticationType, KeyboardInteractiveCallback, ParsedKey, Prompt } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import type { SshTarget } from './ssh-target';
import { targetAddress, targetLabel } from './ssh-target';
import type { PromptAsker, PromptRequest, PromptResponse } from './prompt-broker';
import type { ConnectionLogLevel, ConnectionLogWriter } from './connection-log';
import { agentIdentities, agentSocketProblem, createAgent, singleKeyAgent } from './agent';
import type { SecretPersistence } from '../secrets/secret-store';
import { certificateKind, withCertificate } from './certificate-auth';

// ssh2 is CommonJS: Node's ESM loader exposes `utils` only on the default export, bundlers on the namespace.
const ssh2: typeof ssh2Module = (ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module;

/**
 * How Servelab logs in, modelled on OpenSSH's order (PreferredAuthentications publickey, keyboard-interactive,
 * password), each step offered only while the server still lists its method:
 *
 * 1. `none`, which tells us what the server accepts before anything is asked of the user;
 * 2. the agent (IdentityAgent, else SSH_AUTH_SOCK). With IdentitiesOnly only the agent keys whose public key
 *    matches an IdentityFile (its `.pub`, or the unencrypted key itself) are offered, and none when no
 *    IdentityFile is set. That is OpenSSH's rule, simplified: agent keys come first rather than interleaved.
 *    First of all, each CertificateFile certificate that certifies an agent key is offered with that key, the
 *    agent signing (a certificate whose private key is only in the agent); it is not offered again in step 3;
 * 3. each IdentityFile in order. An encrypted key is unlocked with a saved passphrase, else by asking
 *    (3 tries; a wrong one is asked again, saying so; cancel skips that key; an empty answer skips it too,
 *    as in OpenSSH). With each key go its user certificates, as ssh 9.2 loads them (ssh.c
 *    load_public_identity_files): when CertificateFile is set, each one that certifies the key, before the plain
 *    key (ssh offers CertificateFile certificates first of all, even before agent keys: here they come after the
 *    agent, a simplification); when no CertificateFile is set, `<key>-cert.pub` if it certifies the key, right
 *    after the plain key. Host certificates are never offered (sshconnect2.c pubkey_prepare);
 * 4. keyboard-interactive: every round of prompts goes to the person (a saved password answers a lone
 *    password prompt once), up to 3 attempts;
 * 5. password: the saved one, then asking (3 tries).
 *
 * Cancelling a password or keyboard-interactive question stops the whole login. Every step is written to
 * the connection log; no passphrase, password or answer ever is.
 */

export type AuthStep =
  | { kind: 'none' }
  | { kind: 'agent'; socket: string }
  | { kind: 'key'; file: string }
  | { kind: 'keyboard-interactive' }
  | { kind: 'password' };

export interface AuthStepsInput {
  identityFiles: string[];
  identitiesOnly: boolean;
  agentSocket: string | null;
  hasPassword: boolean;
  /** Whether a person can be asked (passphrases, passwords, keyboard-interactive). */
  canPrompt: boolean;
}

/** The ordered steps for a target (see the module comment). Pure. */
export function planAuthSteps(input: AuthStepsInput): AuthStep[] {
  const steps: AuthStep[] = [{ kind: 'none' }];
  if (input.agentSocket && !(input.identitiesOnly && input.identityFiles.length === 0)) steps.push({ kind: 'agent', socket: input.agentSocket });
  for (const file of input.identityFiles) {
    // A .pub IdentityFile only names which agent key to use.
    if (!file.endsWith('.pub')) steps.push({ kind: 'key', file });
  }
  if (input.hasPassword || input.canPrompt) steps.push({ kind: 'keyboard-interactive' }, { kind: 'password' });
  return steps;
}

/** The SSH method each step uses, as servers list them. */
export function stepMethod(step: AuthStep): AuthenticationType {
  switch (step.kind) {
    case 'none':
      return 'none';
    case 'agent':
    case 'key':
      return 'publickey';
    case 'keyboard-interactive':
      return 'keyboard-interactive';
    case 'password':
      return 'password';
  }
}

/** Which identity files a target offers: `identityFile` first, then `identityFiles`. */
export function targetIdentityFiles(target: SshTarget): string[] {
  return [...new Set([...(target.identityFile ? [target.identityFile] : []), ...(target.identityFiles ?? [])])];
}

export type RememberedSecret = { kind: 'passphrase'; identityFile: string } | { kind: 'password'; user: string; host: string; port: number };

/** Secrets kept outside the target (the OS keychain in the app). */
export interface AuthSecrets {
  /** A saved passphrase for this key file, or null. */
  passphrase?(identityFile: string): Promise<string | null>;
  /** Keeps a secret the person asked to remember, once it is known to work. Its presence makes prompts offer "remember". */
  remember?(secret: RememberedSecret, value: string): Promise<SecretPersistence | void> | SecretPersistence | void;
  /** Told about every typed secret that worked, remembered or not (the pool keeps them in memory to reconnect). */
  accepted?(secret: RememberedSecret, value: string): void;
}

export interface AuthPlanOptions {
  target: SshTarget;
  /** Which host the prompts and log lines belong to. */
  hostId: string;
  prompts?: PromptAsker;
  log?: ConnectionLogWriter;
  secrets?: AuthSecrets;
  /** For showing key paths as ~/…; default $HOME. */
  home?: string;
  /** Told when a question to a person starts and ends, so the caller can pause its connect timeout. */
  onWaitingForUser?: (waiting: boolean) => void;
  signal?: AbortSignal;
  /**
   * Called when the login must stop in the middle of a keyboard-interactive round (cancelled, or nobody can
   * answer): the caller should close the connection, so that no made-up answer reaches the server, where it
   * would count as a failed login. Without it, blank answers are sent.
   */
  onAbandon?: () => void;
  /** Tries for each passphrase, password and keyboard-interactive login (OpenSSH's NumberOfPasswordPrompts). */
  maxTries?: number;
}

interface Attempt {
  method: AnyAuthMethod;
  /** For log lines: "key ~/.ssh/id_ed25519". */
  description: string;
  /** For the failure message: "publickey (/home/me/.ssh/id_ed25519)". */
  methodLabel: string;
  step: AuthStep;
}

interface Problem {
  message: string;
  details: Record<string, unknown>;
}

const DEFAULT_MAX_TRIES = 3;

export class AuthPlan {
  readonly steps: AuthStep[];
  /** Set when the handler passed ssh2 an attempt and ssh2 has not reported on it yet. */
  private current: Attempt | undefined;
  private readonly queue: AuthStep[];
  private iterator: AsyncGenerator<Attempt, void, void> | undefined;
  private iteratorStep: AuthStep | undefined;
  private methodsLeft: AuthenticationType[] | null = null;
  private readonly tried: string[] = [];
  private readonly problems: Problem[] = [];
  private cancelled = false;
  private fatal: Error | undefined;
  private storedPasswordSpent = false;
  /** A typed password sent to the server, kept until the server says whether it worked. */
  private pendingPassword: { value: string; remember: boolean } | undefined;
  private kbdPromptedThisRound = false;
  private certificateProblem: string | undefined;
  private certificateProblemLogged = false;
  // CertificateFile certificates already offered with their key from the agent: not offered again with a key file.
  private readonly certificatesViaAgent = new Set<string>();
  private readonly maxTries: number;
  private readonly home: string;
  private readonly label: string;

  constructor(private readonly opts: AuthPlanOptions) {
    this.maxTries = opts.maxTries ?? DEFAULT_MAX_TRIES;
    this.home = opts.home ?? (process.env.HOME || homedir());
    this.label = targetLabel(opts.target);
    this.steps = planAuthSteps({
      identityFiles: targetIdentityFiles(opts.target),
      identitiesOnly: opts.target.identitiesOnly ?? false,
      agentSocket: opts.target.agentSocket ?? null,
      hasPassword: opts.target.password !== undefined,
      canPrompt: opts.prompts !== undefined,
    });
    this.queue = [...this.steps];
  }

  /** Whether anything beyond `none` can be tried. */
  hasCredentials(): boolean {
    return this.steps.some((step) => step.kind !== 'none');
  }

  /** ssh2's `authHandler`: called first with null, then after each failure with what the server still allows. */
  readonly handler: AuthHandlerMiddleware = (methodsLeft, partialSuccess, next) => {
    this.nextAttempt(methodsLeft ?? null, partialSuccess === true).then(
      (attempt) => (attempt ? next(attempt.method) : next(false as unknown as AnyAuthMethod)),
      (error: unknown) => {
        this.fatal = error instanceof Error ? error : new Error(String(error));
        next(false as unknown as AnyAuthMethod);
      },
    );
  };

  /** Call when the server accepted the login. */
  async succeeded(): Promise<void> {
    if (this.current) this.log('info', `Logged in as ${this.opts.target.user} with ${this.current.description}.`);
    await this.commitPassword();
  }

  /** The error to report when the login did not succeed; `serverMessage` is ssh2's error, if any. */
  failure(serverMessage?: string): ServelabError {
    const { target } = this.opts;
    if (this.fatal) {
      return this.fatal instanceof ServelabError ? this.fatal : new ServelabError('AUTH_FAILED', `Login to ${this.label} failed: ${this.fatal.message}`);
    }
    const base = { host: target.host, port: target.port, user: target.user };
    if (this.cancelled) {
      return new ServelabError('AUTH_FAILED', `Login to ${this.label} was cancelled.`, { details: { ...base, cancelled: true } });
    }
    if (this.tried.length === 0 && this.problems.length > 0) {
      const [first] = this.problems;
      return new ServelabError('AUTH_FAILED', this.problems.map((p) => p.message).join(' '), { details: { ...base, ...(first?.details ?? {}) } });
    }
    const methods = [...new Set(this.tried)];
    const hints = ['Check the user name'];
    if (this.steps.some((s) => s.kind === 'key' || s.kind === 'agent')) hints.push("that the public key is in the user's ~/.ssh/authorized_keys on the box");
    if (target.password !== undefined || this.opts.prompts) hints.push('the password, and that the server allows password login');
    let message =
      methods.length > 0
        ? `Permission denied for ${target.user}@${target.host} (port ${target.port}); tried ${methods.join(', ')}. ${hints.join(', ')}.`
        : `Permission denied for ${target.user}@${target.host} (port ${target.port}): none of the login methods the server accepts (${(this.methodsLeft ?? []).join(', ') || 'none'}) could be tried. Give a key or a password.`;
    if (serverMessage && /too many authentication failures/i.test(serverMessage)) {
      message += ' The server stopped after too many attempts: set IdentitiesOnly yes and the one IdentityFile this box needs.';
    }
    if (this.problems.length > 0) message += ` Also: ${this.problems.map((p) => p.message).join(' ')}`;
    return new ServelabError('AUTH_FAILED', message, { details: { ...base, methods, ...(this.methodsLeft ? { serverMethods: this.methodsLeft } : {}) } });
  }

  /** The failure when the login already ended on the client's side (cancelled, or no way to ask), else undefined. */
  failureIfDecided(): ServelabError | undefined {
    return this.cancelled || this.fatal ? this.failure() : undefined;
  }

  private async nextAttempt(methodsLeft: AuthenticationType[] | null, partialSuccess: boolean): Promise<Attempt | null> {
    const previous = this.current;
    this.current = undefined;
    if (methodsLeft) this.methodsLeft = methodsLeft;
    if (previous) await this.reportOutcome(previous, partialSuccess);
    for (;;) {
      if (this.cancelled || this.fatal || this.opts.signal?.aborted) return null;
      if (!this.iterator) {
        const step = this.queue.shift();
        if (!step) return null;
        if (!this.allows(step)) {
          this.log('debug', `The server does not accept ${stepMethod(step)} login; skipping ${describeStep(step, this.home)}.`);
          continue;
        }
        this.iteratorStep = step;
        this.iterator = this.attemptsFor(step);
      }
      if (this.iteratorStep && !this.allows(this.iteratorStep)) {
        await this.iterator.return(undefined);
        this.iterator = undefined;
        continue;
      }
      const result = await this.iterator.next();
      if (result.done) {
        this.iterator = undefined;
        continue;
      }
      // The person may have taken a while: the server may have moved on meanwhile.
      if (this.cancelled || this.fatal || this.opts.signal?.aborted) return null;
      this.current = result.value;
      if (result.value.step.kind !== 'none') this.tried.push(result.value.methodLabel);
      return result.value;
    }
  }

  private async reportOutcome(previous: Attempt, partialSuccess: boolean): Promise<void> {
    // ssh2 moves on from the agent without passing on what the server said, so its outcome is always "refused".
    if (partialSuccess && previous.step.kind !== 'agent' && previous.step.kind !== 'none') {
      this.log('info', `The server accepted ${previous.description} and asks for more (${(this.methodsLeft ?? []).join(', ')}).`);
      await this.commitPassword();
      return;
    }
    this.pendingPassword = undefined;
    if (previous.step.kind === 'none') {
      if (this.methodsLeft) this.log('debug', `The server accepts: ${this.methodsLeft.join(', ')}.`);
      return;
    }
    if (previous.step.kind === 'keyboard-interactive' && !this.kbdPromptedThisRound) {
      this.log('info', 'The server ended keyboard-interactive login without asking anything.');
      return;
    }
    this.log('warn', `The server refused ${previous.description}.`);
  }

  private allows(step: AuthStep): boolean {
    if (step.kind === 'none') return true;
    return this.methodsLeft === null || this.methodsLeft.includes(stepMethod(step));
  }

  private attemptsFor(step: AuthStep): AsyncGenerator<Attempt, void, void> {
    switch (step.kind) {
      case 'none':
        return this.noneAttempt(step);
      case 'agent':
        return this.agentAttempts(step);
      case 'key':
        return this.keyAttempts(step);
      case 'keyboard-interactive':
        return this.keyboardAttempts(step);
      case 'password':
        return this.passwordAttempts(step);
    }
  }

  private async *noneAttempt(step: AuthStep): AsyncGenerator<Attempt, void, void> {
    yield { step, method: { type: 'none', username: this.opts.target.user }, description: 'no authentication', methodLabel: 'none' };
  }

  private async *agentAttempts(step: Extract<AuthStep, { kind: 'agent' }>): AsyncGenerator<Attempt, void, void> {
    const problem = await agentSocketProblem(step.socket);
    if (problem) {
      this.log('info', `Not using the SSH agent: ${problem}.`);
      return;
    }
    const onlyKeys = this.opts.target.identitiesOnly ? await this.identityPublicKeys() : undefined;
    const agent = createAgent(step.socket, {
      ...(onlyKeys ? { onlyKeys } : {}),
      onIdentities: (offered, held) => {
        if (held === 0) this.log('info', 'The SSH agent holds no keys.');
        else if (offered === 0) this.log('info', `The SSH agent holds ${held} key(s), none of them named by IdentityFile (IdentitiesOnly is set).`);
        else this.log('info', `The SSH agent offers ${offered} key(s).`);
      },
    });
    yield* this.agentCertificateAttempts(step);
    this.log('info', `Trying keys from the SSH agent (${this.show(step.socket)})…`);
    yield { step, method: { type: 'agent', username: this.opts.target.user, agent }, description: 'the SSH agent’s keys', methodLabel: 'publickey (ssh-agent)' };
  }

  /**
   * CertificateFile certificates whose private key is in the agent (ssh_config(5): the key may come "via
   * ssh-agent"), each offered on its own with the agent signing, before the agent's plain keys: ssh pairs them
   * with agent keys first of all (sshconnect2.c pubkey_prepare).
   */
  private async *agentCertificateAttempts(step: Extract<AuthStep, { kind: 'agent' }>): AsyncGenerator<Attempt, void, void> {
    const certificateFiles = this.opts.target.certificateFiles ?? [];
    if (certificateFiles.length === 0) return;
    let keys: ParsedKey[];
    try {
      keys = await agentIdentities(step.socket);
    } catch (error) {
      this.log('warn', `The SSH agent could not list its keys: ${(error as Error).message}.`);
      return;
    }
    for (const key of keys) {
      const found = await certificatesFor('', key, certificateFiles, (message) => this.log('debug', message));
      if (found.length === 0) continue;
      if (this.certificateProblem !== undefined) {
        if (!this.certificateProblemLogged) this.log('warn', `Certificates are skipped: ${this.certificateProblem}. Plain keys are still tried.`);
        this.certificateProblemLogged = true;
        return;
      }
      for (const certificate of found) {
        // A key object of its own for each certificate: the certificate is attached to the object.
        const parsed = ssh2.utils.parseKey(`${key.type} ${key.getPublicSSH().toString('base64')}`);
        const copy = Array.isArray(parsed) ? parsed[0] : parsed;
        if (!copy || copy instanceof Error) continue;
        this.certificatesViaAgent.add(certificate.file);
        const shown = this.show(certificate.file);
        this.log('info', `Trying certificate ${shown} (${certificate.type}) with its key from the SSH agent…`);
        yield {
          step,
          method: { type: 'agent', username: this.opts.target.user, agent: singleKeyAgent(step.socket, withCertificate(copy, certificate.blob)) },
          description: `certificate ${shown} (key in the SSH agent)`,
          methodLabel: `publickey certificate (${certificate.file}, ssh-agent)`,
        };
      }
    }
  }

  private async *keyAttempts(step: Extract<AuthStep, { kind: 'key' }>): AsyncGenerator<Attempt, void, void> {
    const file = step.file;
    const shown = this.show(file);
    const attempt = (key: ParsedKey): Attempt => {
      this.log('info', `Trying key ${shown}…`);
      return { step, method: { type: 'publickey', username: this.opts.target.user, key }, description: `key ${shown}`, methodLabel: `publickey (${file})` };
    };

    const withCertificates = (key: ParsedKey, passphrase?: string) => this.withCertificates(step, data, key, attempt, passphrase);

    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const reason =
        code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : code === 'EISDIR' ? 'is a folder' : `cannot be read (${(error as Error).message})`;
      this.problem(`Identity file ${file} ${reason}.`, { identityFile: file }, `Key ${shown} ${reason}; skipping it.`);
      return;
    }

    const plain = parsePrivateKey(data);
    if (plain.key) {
      yield* withCertificates(plain.key);
      return;
    }
    if (plain.isPublic) {
      this.problem(`Identity file ${file} holds a public key; give the private key file (without .pub).`, { identityFile: file }, `${shown} is a public key, not a private key; skipping it.`);
      return;
    }
    if (!plain.encrypted) {
      this.problem(`Identity file ${file} is not a private key Servelab can read (${plain.error}).`, { identityFile: file }, `${shown} is not a private key Servelab can read; skipping it.`);
      return;
    }

    // Encrypted: saved passphrases first, then the person.
    const saved: { value: string; source: string }[] = [];
    const { target } = this.opts;
    if (target.passphrase !== undefined && (file === target.identityFile || targetIdentityFiles(target).length === 1)) saved.push({ value: target.passphrase, source: 'given' });
    const stored = await this.opts.secrets?.passphrase?.(file);
    if (stored) saved.push({ value: stored, source: 'saved' });
    let lastError: string | undefined;
    for (const candidate of saved) {
      const unlocked = parsePrivateKey(data, candidate.value);
      if (unlocked.key) {
        yield* withCertificates(unlocked.key, candidate.value);
        return;
      }
      lastError = unlocked.error;
      this.log('warn', `The ${candidate.source} passphrase does not unlock ${shown}.`);
    }
    if (!this.opts.prompts) {
      if (saved.length > 0) {
        this.problem(`Identity file ${file} could not be decrypted with the passphrase given (${lastError ?? 'wrong passphrase'}).`, { identityFile: file }, `Skipping key ${shown}.`);
      } else {
        this.problem(`Identity file ${file} is encrypted; a passphrase is needed to use it.`, { identityFile: file, needsPassphrase: true }, `Key ${shown} is encrypted and there is no one to ask for its passphrase; skipping it.`);
      }
      return;
    }
    for (let attemptNo = 1; attemptNo <= this.maxTries; attemptNo++) {
      if (attemptNo === 1) this.log('info', `Key ${shown} is encrypted; asking for its passphrase.`);
      const response = await this.ask({
        kind: 'passphrase',
        title: `Passphrase for ${shown}`,
        message:
          attemptNo === 1
            ? `Enter the passphrase of key ${shown} to log in to ${this.label}.`
            : `The passphrase was wrong; try again (${attemptNo} of ${this.maxTries}).`,
        prompts: [{ text: 'Passphrase:', echo: false }],
        about: { kind: 'passphrase', key: shown, login: this.label, attempt: attemptNo, tries: this.maxTries },
        ...(this.opts.secrets?.remember ? { remember: true } : {}),
      });
      if (!response) {
        this.problem(`The passphrase for ${file} was not given.`, { identityFile: file, needsPassphrase: true }, `Passphrase entry cancelled; skipping key ${shown}.`, 'info');
        return;
      }
      const passphrase = response.answers[0] ?? '';
      if (passphrase === '') {
        this.problem(`No passphrase was given for ${file}.`, { identityFile: file, needsPassphrase: true }, `No passphrase given; skipping key ${shown}.`, 'info');
        return;
      }
      const unlocked = parsePrivateKey(data, passphrase);
      if (unlocked.key) {
        this.accepted({ kind: 'passphrase', identityFile: file }, passphrase);
        if (response.remember) await this.remember({ kind: 'passphrase', identityFile: file }, passphrase);
        yield* withCertificates(unlocked.key, passphrase);
        return;
      }
      if (attemptNo < this.maxTries) this.log('warn', `Passphrase was wrong, asking again (${attemptNo + 1} of ${this.maxTries}).`);
    }
    this.problem(`The passphrase for ${file} was wrong ${this.maxTries} times.`, { identityFile: file }, `Passphrase was wrong ${this.maxTries} times; skipping key ${shown}.`);
  }

  /**
   * Certificates cannot be sent (ssh2's internals are not the ones certificate-auth.ts was written for): they are
   * skipped, with one warning, and the plain keys are still tried.
   */
  certificatesUnavailable(problem: string): void {
    this.certificateProblem = problem;
  }

  /**
   * The key with its certificates (see the module comment): CertificateFile certificates before the plain key,
   * else `<key>-cert.pub` after it. Each certificate gets a freshly parsed key of its own.
   */
  private async *withCertificates(
    step: Extract<AuthStep, { kind: 'key' }>,
    data: Buffer,
    key: ParsedKey,
    plainAttempt: (key: ParsedKey) => Attempt,
    passphrase?: string,
  ): AsyncGenerator<Attempt, void, void> {
    const { target } = this.opts;
    const certificateFiles = target.certificateFiles ?? [];
    const found = (await certificatesFor(step.file, key, certificateFiles, (message) => this.log('debug', message))).filter(
      (certificate) => !this.certificatesViaAgent.has(certificate.file),
    );
    if (found.length > 0 && this.certificateProblem !== undefined) {
      if (!this.certificateProblemLogged) this.log('warn', `Certificates are skipped: ${this.certificateProblem}. Plain keys are still tried.`);
      this.certificateProblemLogged = true;
      yield plainAttempt(key);
      return;
    }
    if (certificateFiles.length === 0) yield plainAttempt(key);
    for (const certificate of found) {
      const certKey = parsePrivateKey(data, passphrase).key;
      if (!certKey) break;
      const shown = this.show(certificate.file);
      this.log('info', `Trying certificate ${shown} (${certificate.type}) with key ${this.show(step.file)}…`);
      yield {
        step,
        method: { type: 'publickey', username: target.user, key: withCertificate(certKey, certificate.blob) },
        description: `certificate ${shown}`,
        methodLabel: `publickey certificate (${certificate.file})`,
      };
    }
    if (certificateFiles.length > 0) yield plainAttempt(key);
  }

  private async *keyboardAttempts(step: AuthStep): AsyncGenerator<Attempt, void, void> {
    for (let round = 1; round <= this.maxTries; round++) {
      if (round > 1 && !this.opts.prompts) return;
      this.log('info', round === 1 ? 'Trying keyboard-interactive login…' : `Trying keyboard-interactive login again (${round} of ${this.maxTries})…`);
      this.kbdPromptedThisRound = false;
      yield {
        step,
        method: {
          type: 'keyboard-interactive',
          username: this.opts.target.user,
          prompt: (name, instructions, _lang, prompts, finish) => this.answerKeyboard(name, instructions, prompts, finish),
        },
        description: 'keyboard-interactive login',
        methodLabel: 'keyboard-interactive',
      };
      // A server that fails the method without asking anything will not do better on a retry.
      if (!this.kbdPromptedThisRound) return;
    }
  }

  private answerKeyboard(name: string, instructions: string, prompts: Prompt[], finish: KeyboardInteractiveCallback): void {
    this.kbdPromptedThisRound = true;
    const blanks = () => prompts.map(() => '');
    const texts = prompts.map((p) => p.prompt.trim()).join(' / ');
    const { target } = this.opts;
    const lone = prompts.length === 1 ? prompts[0] : undefined;
    if (!this.storedPasswordSpent && target.password !== undefined && lone && !lone.echo && /password/i.test(lone.prompt)) {
      this.storedPasswordSpent = true;
      this.log('info', `The server asks "${texts}"; answering with the saved password.`);
      finish([target.password]);
      return;
    }
    if (!this.opts.prompts) {
      this.log('warn', `The server asks "${texts}" and there is no one to answer.`);
      finish(blanks());
      return;
    }
    this.log('info', `The server asks "${texts}"; passing the question on.`);
    this.ask({
      kind: 'keyboard-interactive',
      title: name.trim() || `Login to ${this.label}`,
      message: instructions.trim(),
      prompts: prompts.map((p) => ({ text: p.prompt, echo: p.echo === true })),
    }).then(
      (response) => {
        if (!response) {
          this.cancelled = true;
          this.log('info', 'Login cancelled.');
          this.abandon(() => finish(blanks()));
          return;
        }
        finish(prompts.map((_p, i) => response.answers[i] ?? ''));
      },
      (error: unknown) => {
        this.fatal = error instanceof Error ? error : new Error(String(error));
        this.abandon(() => finish(blanks()));
      },
    );
  }

  private abandon(otherwise: () => void): void {
    if (this.opts.onAbandon) this.opts.onAbandon();
    else otherwise();
  }

  private async *passwordAttempts(step: AuthStep): AsyncGenerator<Attempt, void, void> {
    const { target } = this.opts;
    const attempt = (password: string): Attempt => ({
      step,
      method: { type: 'password', username: target.user, password },
      description: 'the password',
      methodLabel: 'password',
    });
    if (target.password !== undefined) {
      this.log('info', 'Trying the saved password…');
      yield attempt(target.password);
    }
    if (!this.opts.prompts) return;
    for (let attemptNo = 1; attemptNo <= this.maxTries; attemptNo++) {
      const wrongBefore = attemptNo > 1 || target.password !== undefined;
      if (attemptNo > 1) this.log('warn', `Password was wrong, asking again (${attemptNo} of ${this.maxTries}).`);
      const response = await this.ask({
        kind: 'password',
        title: `Password for ${targetAddress(target)}`,
        message: wrongBefore
          ? `The password was wrong; try again${attemptNo > 1 ? ` (${attemptNo} of ${this.maxTries})` : ''}.`
          : `Enter the password of ${target.user} on ${this.label}.`,
        prompts: [{ text: 'Password:', echo: false }],
        about: { kind: 'password', address: targetAddress(target), user: target.user, login: this.label, attempt: attemptNo, tries: this.maxTries, wrongBefore },
        ...(this.opts.secrets?.remember ? { remember: true } : {}),
      });
      if (!response) {
        this.cancelled = true;
        this.log('info', 'Password entry cancelled.');
        return;
      }
      const password = response.answers[0] ?? '';
      this.pendingPassword = { value: password, remember: response.remember };
      if (attemptNo === 1) this.log('info', 'Trying password…');
      yield attempt(password);
    }
  }

  private async ask(request: Omit<PromptRequest, 'hostId'>): Promise<PromptResponse | null> {
    const prompts = this.opts.prompts;
    if (!prompts) return null;
    this.opts.onWaitingForUser?.(true);
    try {
      return await prompts.ask({ hostId: this.opts.hostId, ...request }, this.opts.signal ? { signal: this.opts.signal } : {});
    } finally {
      this.opts.onWaitingForUser?.(false);
    }
  }

  private async remember(secret: Parameters<NonNullable<AuthSecrets['remember']>>[0], value: string): Promise<void> {
    try {
      const kept = await this.opts.secrets?.remember?.(secret, value);
      const what = secret.kind === 'passphrase' ? `the passphrase for ${this.show(secret.identityFile)}` : 'the password';
      if (kept === 'session') this.log('warn', `Kept ${what} for this session only: no OS keychain is available to save it, so it will be asked for again after a restart.`);
      else this.log('info', `Saved ${what}.`);
    } catch (error) {
      this.log('warn', `Could not save the ${secret.kind}: ${(error as Error).message}`);
    }
  }

  private async commitPassword(): Promise<void> {
    const pending = this.pendingPassword;
    this.pendingPassword = undefined;
    if (pending === undefined) return;
    const { target } = this.opts;
    const secret: RememberedSecret = { kind: 'password', user: target.user, host: target.host, port: target.port };
    this.accepted(secret, pending.value);
    if (pending.remember) await this.remember(secret, pending.value);
  }

  private accepted(secret: RememberedSecret, value: string): void {
    try {
      this.opts.secrets?.accepted?.(secret, value);
    } catch {
      // Only a convenience for later reconnects.
    }
  }

  /** Public key blobs of the IdentityFiles (from `.pub` files or unencrypted keys), for IdentitiesOnly. */
  private async identityPublicKeys(): Promise<Buffer[]> {
    const blobs: Buffer[] = [];
    for (const file of targetIdentityFiles(this.opts.target)) {
      for (const candidate of file.endsWith('.pub') ? [file] : [`${file}.pub`, file]) {
        let data: Buffer;
        try {
          data = await readFile(candidate);
        } catch {
          continue;
        }
        const parsed = ssh2.utils.parseKey(data);
        const key = Array.isArray(parsed) ? parsed[0] : parsed;
        if (key && !(key instanceof Error)) {
          blobs.push(key.getPublicSSH());
          break;
        }
      }
    }
    return blobs;
  }

  private problem(message: string, details: Record<string, unknown>, logMessage: string, level: ConnectionLogLevel = 'warn'): void {
    this.problems.push({ message, details });
    this.log(level, logMessage);
  }

  private show(path: string): string {
    return tildify(path, this.home);
  }

  private log(level: ConnectionLogLevel, message: string): void {
    this.opts.log?.(level, message);
  }
}

interface CertificateForKey {
  file: string;
  type: string;
  blob: Buffer;
}

/**
 * The user certificates that certify `key`, in order and once each: the CertificateFiles when there are any, else
 * `<identity file>-cert.pub` (ssh.c at V_9_2_P1: "If no certificates have been explicitly listed then try to add
 * the default certificate variant too"). Files that are missing, unreadable, not certificates, for another key or
 * host certificates are left out; `note` hears why a certificate file was.
 */
export async function certificatesFor(identityFile: string, key: ParsedKey, certificateFiles: string[], note?: (message: string) => void): Promise<CertificateForKey[]> {
  const publicKey = key.getPublicSSH();
  const found: CertificateForKey[] = [];
  const candidates = certificateFiles.length > 0 ? certificateFiles : [`${identityFile}-cert.pub`];
  for (const file of [...new Set(candidates)]) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    const [type, base64] = text.trim().split(/\s+/);
    if (!type?.endsWith('-cert-v01@openssh.com') || !base64) {
      note?.(`${file} is not a certificate; not offering it.`);
      continue;
    }
    const blob = Buffer.from(base64, 'base64');
    const kind = certificateKind(blob, publicKey);
    if (kind === undefined) continue;
    if (kind !== 'user') {
      note?.(`Ignoring certificate ${file}: not a user certificate.`);
      continue;
    }
    found.push({ file, type, blob });
  }
  return found;
}

interface ParsedPrivateKey {
  key?: ParsedKey;
  encrypted: boolean;
  isPublic: boolean;
  error?: string;
}

function parsePrivateKey(data: Buffer, passphrase?: string): ParsedPrivateKey {
  const parsed = ssh2.utils.parseKey(data, passphrase);
  if (parsed instanceof Error) {
    return { encrypted: /no passphrase given|bad passphrase|encrypted/i.test(parsed.message), isPublic: false, error: parsed.message };
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key) return { encrypted: false, isPublic: false, error: 'no key found' };
  if (!key.isPrivateKey()) return { encrypted: false, isPublic: true };
  return { key, encrypted: false, isPublic: false };
}

function describeStep(step: AuthStep, home: string): string {
  switch (step.kind) {
    case 'none':
      return 'no authentication';
    case 'agent':
      return 'the SSH agent';
    case 'key':
      return `key ${tildify(step.file, home)}`;
    case 'keyboard-interactive':
      return 'keyboard-interactive login';
    case 'password':
      return 'the password';
  }
}

/** /home/me/.ssh/id → ~/.ssh/id, as people know their keys. */
export function tildify(path: string, home: string): string {
  if (home && (path === home || path.startsWith(`${home}/`))) return `~${path.slice(home.length)}`;
  return path;
}
