import { randomUUID } from 'node:crypto';
import { ServelabError } from '../../shared/contract';
import type { PromptAbout } from '../../shared/model/prompt';

/**
 * Questions the SSH code must ask a person (key passphrases, passwords, keyboard-interactive prompts such as a
 * 2FA code), decoupled from who answers them: the app's UI (through `onRequest` / `answer` / `cancel`), the
 * CLI's terminal (`attachTtyPrompts` in src/cli/tty-prompts.ts) or a test script (`ScriptedPrompts` in
 * tests/helpers/scripted-prompts.ts).
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
  /** The facts behind `title` and `message`, for a front end that words them in another language. */
  about?: PromptAbout;
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
