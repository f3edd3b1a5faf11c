// The CLI's front end for the questions the SSH code asks a person (PromptBroker): the terminal.
import { createInterface } from 'node:readline';
import { ServelabError } from '../shared/contract';
import type { PendingPrompt, PromptBroker } from '../core/ssh/prompt-broker';
import { terminalSafe } from '../shared/terminal-text';

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
      // Keyboard-interactive name, instructions and prompts are the server's text: shown without escape sequences.
      const heading = [prompt.title, prompt.message].map(shown).filter((line) => line.trim() !== '');
      if (heading.length > 0) output.write(`${heading.join('\n')}\n`);
      for (const field of prompt.prompts) {
        const fieldText = shown(field.text);
        const text = /\s$/.test(fieldText) ? fieldText : `${fieldText} `;
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

function shown(text: string): string {
  return terminalSafe(text, { keepColors: false });
}
