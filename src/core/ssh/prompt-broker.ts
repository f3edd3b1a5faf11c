import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { ServelabError } from '../../shared/contract';

/**
 * Questions the SSH code must ask a person (key passphrases, passwords, keyboard-interactive prompts such as a
 * 2FA code), decoupled from who answers them: the app's UI (through `onRequest` / `answer` / `cancel`), the
 * CLI's terminal (`attachTtyPrompts`) or a test script (`ScriptedPrompts`).
 */

export type PromptKind = 'passphrase' | 'password' | 'keyboard-interactive';

export interface PromptField {
  text: string;
  /** False for secrets: the answer must not be shown while typed. */
  echo: boolean;
}

export interface PromptRequest {
  hostId: string;
  kind: PromptKind;
  title: string;
  message: string;
  prompts: PromptField[];
  /** Offer "remember in keychain" for this answer. */
  remember?: boolean;
}

export interface PromptResponse {
  answers: string[];
  remember: boolean;
}

export interface PendingPrompt extends PromptRequest {
  id: string;
  createdAt: number;
  /** When the question is given up on (ms since the epoch), or null when it waits for ever. */
  expiresAt: number | null;
}

export type PromptOutcome = 'answered' | 'cancelled' | 'timed-out' | 'failed';

export interface PromptSettled {
  id: string;
  hostId: string;
  outcome: PromptOutcome;
}

/** What the SSH code needs: a way to ask. null means the person cancelled (or nobody could answer). */
export interface PromptAsker {
  ask(request: PromptRequest, opts?: { signal?: AbortSignal }): Promise<PromptResponse | null>;
}

export interface PromptBrokerOptions {
  /** How long a question waits for an answer; null waits for ever. Default 5 minutes. */
  timeoutMs?: number | null;
  /**
   * With no front end listening, a question can never be answered: by default it is cancelled at once
   * rather than holding a connection until the timeout.
   */
  whenNobodyListens?: 'cancel' | 'wait';
  now?: () => number;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;

interface Waiting {
  prompt: PendingPrompt;
  resolve: (response: PromptResponse | null) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  cleanup: () => void;
}

export class PromptBroker implements PromptAsker {
  private readonly waiting = new Map<string, Waiting>();
  private readonly requestListeners = new Set<(prompt: PendingPrompt) => void>();
  private readonly settledListeners = new Set<(event: PromptSettled) => void>();
  private readonly timeoutMs: number | null;
  private readonly whenNobodyListens: 'cancel' | 'wait';
  private readonly now: () => number;

  constructor(opts: PromptBrokerOptions = {}) {
    this.timeoutMs = opts.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : opts.timeoutMs;
    this.whenNobodyListens = opts.whenNobodyListens ?? 'cancel';
    this.now = opts.now ?? Date.now;
  }

  ask(request: PromptRequest, opts: { signal?: AbortSignal } = {}): Promise<PromptResponse | null> {
    if (opts.signal?.aborted) return Promise.resolve(null);
    if (this.requestListeners.size === 0 && this.whenNobodyListens === 'cancel') return Promise.resolve(null);
    const createdAt = this.now();
    const prompt: PendingPrompt = {
      ...request,
      prompts: request.prompts.map((p) => ({ ...p })),
      id: randomUUID(),
      createdAt,
      expiresAt: this.timeoutMs === null ? null : createdAt + this.timeoutMs,
    };
    return new Promise<PromptResponse | null>((resolve, reject) => {
      const onAbort = () => this.settle(prompt.id, 'cancelled', null);
      const entry: Waiting = {
        prompt,
        resolve,
        reject,
        timer: undefined,
        cleanup: () => {
          if (entry.timer) clearTimeout(entry.timer);
          opts.signal?.removeEventListener('abort', onAbort);
        },
      };
      if (this.timeoutMs !== null) {
        entry.timer = setTimeout(() => this.settle(prompt.id, 'timed-out', null), this.timeoutMs);
        entry.timer.unref?.();
      }
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.set(prompt.id, entry);
      for (const listener of [...this.requestListeners]) {
        try {
          listener(copyPrompt(prompt));
        } catch {
          // A failing front end must not leave the question unanswerable by the others.
        }
      }
    });
  }

  /** Called with every new question; returns the unsubscribe function. */
  onRequest(listener: (prompt: PendingPrompt) => void): () => void {
    this.requestListeners.add(listener);
    return () => {
      this.requestListeners.delete(listener);
    };
  }

  /** Called when a question is answered, cancelled, times out or fails, so front ends can close their dialog. */
  onSettled(listener: (event: PromptSettled) => void): () => void {
    this.settledListeners.add(listener);
    return () => {
      this.settledListeners.delete(listener);
    };
  }

  /** Questions still waiting, oldest first (for a front end that attaches late). */
  pending(hostId?: string): PendingPrompt[] {
    return [...this.waiting.values()].map((w) => w.prompt).filter((p) => hostId === undefined || p.hostId === hostId).map(copyPrompt);
  }

  /** Returns false when the question is no longer waiting. Throws BAD_INPUT when the answers do not fit. */
  answer(id: string, response: { answers: string[]; remember?: boolean }): boolean {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    if (!Array.isArray(response.answers) || response.answers.length !== entry.prompt.prompts.length || response.answers.some((a) => typeof a !== 'string')) {
      throw new ServelabError('BAD_INPUT', `Expected ${entry.prompt.prompts.length} answer(s) to "${entry.prompt.title}".`, {
        issues: [{ path: 'answers', message: `must hold ${entry.prompt.prompts.length} string(s)` }],
      });
    }
    return this.settle(id, 'answered', { answers: [...response.answers], remember: entry.prompt.remember === true && response.remember === true });
  }

  cancel(id: string): boolean {
    return this.settle(id, 'cancelled', null);
  }

  /** Ends the question with an error the asking code reports as is (e.g. "no terminal to ask on"). */
  fail(id: string, error: Error): boolean {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    this.waiting.delete(id);
    entry.cleanup();
    entry.reject(error);
    this.notifySettled({ id, hostId: entry.prompt.hostId, outcome: 'failed' });
    return true;
  }

  /** Cancels every waiting question, or those of one host. */
  cancelAll(hostId?: string): void {
    for (const prompt of this.pending(hostId)) this.cancel(prompt.id);
  }

  private settle(id: string, outcome: Exclude<PromptOutcome, 'failed'>, response: PromptResponse | null): boolean {
    const entry = this.waiting.get(id);
    if (!entry) return false;
    this.waiting.delete(id);
    entry.cleanup();
    entry.resolve(response);
    this.notifySettled({ id, hostId: entry.prompt.hostId, outcome });
    return true;
  }

  private notifySettled(event: PromptSettled): void {
    for (const listener of [...this.settledListeners]) {
      try {
        listener(event);
      } catch {
        // Same as above: one front end's failure is not the asker's.
      }
    }
  }
}

function copyPrompt(prompt: PendingPrompt): PendingPrompt {
  return { ...prompt, prompts: prompt.prompts.map((p) => ({ ...p })) };
}

/** A scripted answer: the answers themselves, a full response, or null to cancel. */
export type ScriptedAnswer = string[] | PromptResponse | null;

/**
 * The test front end: answers questions from a queue, in order, and records every question it saw.
 * With an empty queue it cancels (default) or leaves the question waiting for a later `reply`.
 */
export class ScriptedPrompts {
  readonly requests: PendingPrompt[] = [];
  private readonly queue: ScriptedAnswer[] = [];
  private readonly unanswered: PendingPrompt[] = [];
  private readonly seenWaiters: ((prompt: PendingPrompt) => void)[] = [];
  private readonly detachListener: () => void;

  constructor(
    private readonly broker: PromptBroker,
    private readonly opts: { whenEmpty?: 'cancel' | 'wait' } = {},
  ) {
    this.detachListener = broker.onRequest((prompt) => {
      this.requests.push(prompt);
      for (const waiter of this.seenWaiters.splice(0)) waiter(prompt);
      // Answer on a later tick, as a person would: the asker is still inside ask().
      queueMicrotask(() => this.handle(prompt));
    });
  }

  /** Queues answers for the next questions. */
  reply(...answers: ScriptedAnswer[]): this {
    this.queue.push(...answers);
    while (this.unanswered.length > 0 && this.queue.length > 0) this.respond(this.unanswered.shift() as PendingPrompt, this.queue.shift() as ScriptedAnswer);
    return this;
  }

  /** Resolves with the next question that arrives. */
  nextRequest(): Promise<PendingPrompt> {
    return new Promise((resolve) => this.seenWaiters.push(resolve));
  }

  detach(): void {
    this.detachListener();
  }

  private handle(prompt: PendingPrompt): void {
    if (this.queue.length > 0) {
      this.respond(prompt, this.queue.shift() as ScriptedAnswer);
    } else if ((this.opts.whenEmpty ?? 'cancel') === 'cancel') {
      this.broker.cancel(prompt.id);
    } else {
      this.unanswered.push(prompt);
    }
  }

  private respond(prompt: PendingPrompt, answer: ScriptedAnswer): void {
    if (answer === null) this.broker.cancel(prompt.id);
    else if (Array.isArray(answer)) this.broker.answer(prompt.id, { answers: answer, remember: false });
    else this.broker.answer(prompt.id, answer);
  }
}

/** The streams a terminal front end uses; process.stdin / process.stderr by default. */
export interface TtyPromptOptions {
  input?: NodeJS.ReadableStream & { isTTY?: boolean; isRaw?: boolean; setRawMode?: (mode: boolean) => unknown };
  output?: NodeJS.WritableStream;
  /** What to tell the user when there is no terminal to ask on: how else to give the answer. */
  nonInteractiveHint?: (prompt: PendingPrompt) => string;
}

export function defaultNonInteractiveHint(prompt: PendingPrompt): string {
  switch (prompt.kind) {
    case 'passphrase':
      return 'Pass it with --passphrase-env VAR (the name of an environment variable holding it), or load the key into ssh-agent.';
    case 'password':
      return 'Pass it with --password-env VAR (the name of an environment variable holding it), or use a key.';
    case 'keyboard-interactive':
      return 'This login asks questions only a person can answer: run the command from a terminal, or use a key.';
  }
}

/**
 * The CLI's front end: asks on the terminal, one question at a time, hiding what is typed for secret prompts.
 * When stdin is not a terminal the question fails with a message naming the non-interactive alternative.
 * Returns the detach function.
 */
export function attachTtyPrompts(broker: PromptBroker, opts: TtyPromptOptions = {}): () => void {
  const input = opts.input ?? process.stdin;
  const output = opts.output ?? process.stderr;
  const hint = opts.nonInteractiveHint ?? defaultNonInteractiveHint;
  let chain: Promise<void> = Promise.resolve();
  const cancelled = new Set<string>();
  const offSettled = broker.onSettled((event) => {
    if (event.outcome !== 'answered') cancelled.add(event.id);
  });

  const offRequest = broker.onRequest((prompt) => {
    if (!input.isTTY || typeof input.setRawMode !== 'function') {
      broker.fail(
        prompt.id,
        new ServelabError('AUTH_FAILED', `${prompt.title}: there is no terminal to ask on (standard input is not a TTY). ${hint(prompt)}`, {
          details: { needsInput: prompt.kind, hostId: prompt.hostId },
        }),
      );
      return;
    }
    chain = chain.then(async () => {
      if (cancelled.has(prompt.id)) return;
      const answers: string[] = [];
      const heading = [prompt.title, prompt.message].filter((line) => line.trim() !== '');
      if (heading.length > 0) output.write(`${heading.join('\n')}\n`);
      for (const field of prompt.prompts) {
        const text = /\s$/.test(field.text) ? field.text : `${field.text} `;
        const answer = field.echo ? await readEchoed(input, output, text) : await readHidden(input, output, text);
        if (answer === null || cancelled.has(prompt.id)) {
          broker.cancel(prompt.id);
          return;
        }
        answers.push(answer);
      }
      broker.answer(prompt.id, { answers, remember: false });
    });
  });

  return () => {
    offRequest();
    offSettled();
  };
}

function readEchoed(input: NonNullable<TtyPromptOptions['input']>, output: NodeJS.WritableStream, text: string): Promise<string | null> {
  return new Promise((resolve) => {
    const rl = createInterface({ input, output, terminal: true });
    let done = false;
    const finish = (value: string | null) => {
      if (done) return;
      done = true;
      rl.close();
      resolve(value);
    };
    rl.on('SIGINT', () => {
      output.write('\n');
      finish(null);
    });
    rl.on('close', () => finish(null));
    rl.question(text, (answer) => finish(answer));
  });
}

/** Reads one line in raw mode without echoing it. Ctrl-C, or Ctrl-D on an empty line, cancels. */
function readHidden(input: NonNullable<TtyPromptOptions['input']>, output: NodeJS.WritableStream, text: string): Promise<string | null> {
  return new Promise((resolve) => {
    output.write(text);
    const wasRaw = input.isRaw === true;
    input.setRawMode?.(true);
    input.resume();
    let value = '';
    let escape = false;
    const onData = (chunk: Buffer | string) => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (escape) {
          // Skip terminal escape sequences (arrow keys…) up to their final letter or tilde.
          if (/[A-Za-z~]/.test(ch)) escape = false;
          continue;
        }
        if (ch === '\r' || ch === '\n') return finish(value);
        if (ch === '\u0003') return finish(null);
        if (ch === '\u0004') {
          if (value === '') return finish(null);
          continue;
        }
        if (ch === '\u001b') {
          escape = true;
          continue;
        }
        if (ch === '\u007f' || ch === '\b') {
          value = Array.from(value).slice(0, -1).join('');
          continue;
        }
        if (ch === '\u0015') {
          value = '';
          continue;
        }
        if (ch < ' ') continue;
        value += ch;
      }
    };
    const finish = (result: string | null) => {
      input.removeListener('data', onData);
      input.setRawMode?.(wasRaw);
      input.pause();
      output.write('\n');
      resolve(result);
    };
    input.on('data', onData);
  });
}
