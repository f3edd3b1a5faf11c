import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import { PromptBroker, ScriptedPrompts, attachTtyPrompts, type PendingPrompt, type PromptRequest, type PromptSettled } from './prompt-broker';
import { ServelabError } from '../../shared/contract';

const request = (extra: Partial<PromptRequest> = {}): PromptRequest => ({
  hostId: 'h1',
  kind: 'passphrase',
  title: 'Passphrase for ~/.ssh/id_ed25519',
  message: 'Enter it',
  prompts: [{ text: 'Passphrase:', echo: false }],
  ...extra,
});

describe('PromptBroker', () => {
  it('hands each question to the front ends with an id and resolves with the answer', async () => {
    const broker = new PromptBroker({ now: () => 5_000, timeoutMs: 1_000 });
    const seen: PendingPrompt[] = [];
    const settled: PromptSettled[] = [];
    broker.onRequest((p) => seen.push(p));
    broker.onSettled((e) => settled.push(e));
    const answer = broker.ask(request({ remember: true }));
    expect(seen).toHaveLength(1);
    const prompt = seen[0] as PendingPrompt;
    expect(prompt).toMatchObject({ hostId: 'h1', kind: 'passphrase', createdAt: 5_000, expiresAt: 6_000, remember: true });
    expect(broker.pending().map((p) => p.id)).toEqual([prompt.id]);
    expect(broker.answer(prompt.id, { answers: ['secret'], remember: true })).toBe(true);
    expect(await answer).toEqual({ answers: ['secret'], remember: true });
    expect(broker.answer(prompt.id, { answers: ['again'] })).toBe(false);
    expect(broker.pending()).toEqual([]);
    expect(settled).toEqual([{ id: prompt.id, hostId: 'h1', outcome: 'answered' }]);
  });

  it('says remember only when it was offered, and rejects answers that do not fit', async () => {
    const broker = new PromptBroker();
    broker.onRequest(() => {});
    const answer = broker.ask(request({ prompts: [{ text: 'Password:', echo: false }, { text: 'Code:', echo: true }] }));
    const [prompt] = broker.pending();
    expect(() => broker.answer(prompt?.id as string, { answers: ['only one'] })).toThrow(ServelabError);
    broker.answer(prompt?.id as string, { answers: ['pw', '123'], remember: true });
    expect(await answer).toEqual({ answers: ['pw', '123'], remember: false });
  });

  it('resolves null on cancel, on timeout, on abort, and at once when nobody listens', async () => {
    expect(await new PromptBroker().ask(request())).toBeNull();

    const broker = new PromptBroker({ timeoutMs: 20 });
    const outcomes: string[] = [];
    broker.onRequest(() => {});
    broker.onSettled((e) => outcomes.push(e.outcome));
    const cancelled = broker.ask(request());
    broker.cancel(broker.pending()[0]?.id as string);
    expect(await cancelled).toBeNull();
    expect(await broker.ask(request())).toBeNull();
    const abort = new AbortController();
    const aborted = broker.ask(request(), { signal: abort.signal });
    abort.abort();
    expect(await aborted).toBeNull();
    expect(outcomes).toEqual(['cancelled', 'timed-out', 'cancelled']);

    const patient = new PromptBroker({ whenNobodyListens: 'wait', timeoutMs: null });
    const waiting = patient.ask(request());
    expect(patient.pending()[0]?.expiresAt).toBeNull();
    patient.cancelAll('h1');
    expect(await waiting).toBeNull();
  });

  it('rejects with the error a front end fails the question with', async () => {
    const broker = new PromptBroker();
    broker.onRequest((p) => broker.fail(p.id, new ServelabError('AUTH_FAILED', 'no terminal')));
    await expect(broker.ask(request())).rejects.toThrow('no terminal');
  });
});

describe('ScriptedPrompts', () => {
  it('answers from its queue in order, records the questions, and cancels when the queue is empty', async () => {
    const broker = new PromptBroker();
    const script = new ScriptedPrompts(broker).reply(['first'], { answers: ['second'], remember: true }, null);
    expect(await broker.ask(request())).toEqual({ answers: ['first'], remember: false });
    expect(await broker.ask(request({ remember: true }))).toEqual({ answers: ['second'], remember: true });
    expect(await broker.ask(request())).toBeNull();
    expect(await broker.ask(request())).toBeNull();
    expect(script.requests).toHaveLength(4);
  });

  it('can hold a question until the test replies', async () => {
    const broker = new PromptBroker();
    const script = new ScriptedPrompts(broker, { whenEmpty: 'wait' });
    const next = script.nextRequest();
    const answer = broker.ask(request({ kind: 'password' }));
    expect((await next).kind).toBe('password');
    script.reply(['late']);
    expect(await answer).toEqual({ answers: ['late'], remember: false });
    script.detach();
  });
});

/** A stand-in for a terminal: what is written to `input` is what the person types. */
function fakeTty() {
  const input = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode(mode: boolean) {
    input.isRaw = mode;
    return input;
  } });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => (shown += chunk.toString()));
  return { input, output, shown: () => shown };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('attachTtyPrompts', () => {
  it('reads a secret without echoing it, editing with backspace, and restores the terminal mode', async () => {
    const broker = new PromptBroker();
    const tty = fakeTty();
    attachTtyPrompts(broker, tty);
    const answer = broker.ask(request());
    await tick();
    expect(tty.input.isRaw).toBe(true);
    tty.input.write('hunter3\u007f2\r');
    expect(await answer).toEqual({ answers: ['hunter2'], remember: false });
    expect(tty.input.isRaw).toBe(false);
    expect(tty.shown()).toContain('Passphrase for ~/.ssh/id_ed25519\nEnter it\nPassphrase: ');
    expect(tty.shown()).not.toContain('hunter');
  });

  it('shows what is typed for echoed prompts, and asks the prompts of a round in turn', async () => {
    const broker = new PromptBroker();
    const tty = fakeTty();
    attachTtyPrompts(broker, tty);
    const answer = broker.ask(
      request({ kind: 'keyboard-interactive', title: 'Two-factor login', message: '', prompts: [{ text: 'Password:', echo: false }, { text: 'Code:', echo: true }] }),
    );
    await tick();
    tty.input.write('pw\r');
    await tick();
    tty.input.write('123456\r');
    expect(await answer).toEqual({ answers: ['pw', '123456'], remember: false });
    expect(tty.shown()).toContain('123456');
    expect(tty.shown()).not.toContain('pw\n');
  });

  it('cancels on Ctrl-C', async () => {
    const broker = new PromptBroker();
    const tty = fakeTty();
    attachTtyPrompts(broker, tty);
    const answer = broker.ask(request());
    await tick();
    tty.input.write('abc\u0003');
    expect(await answer).toBeNull();
  });

  it('fails with the non-interactive alternative when stdin is not a terminal', async () => {
    const broker = new PromptBroker();
    const detach = attachTtyPrompts(broker, { input: Object.assign(new PassThrough(), { isTTY: false }), output: new PassThrough() });
    await expect(broker.ask(request({ kind: 'password', title: 'Password for a@b:22' }))).rejects.toThrow(/not a TTY.*--password-env VAR/);
    await expect(broker.ask(request())).rejects.toThrow(/--passphrase-env VAR/);
    detach();
    expect(await broker.ask(request())).toBeNull();
  });
});
