import type { PendingPrompt, PromptBroker, PromptResponse } from '../../src/core/ssh/prompt-broker';

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
