import { describe, it, expect } from 'vitest';
import { PromptBroker, type PendingPrompt, type PromptSettled } from './prompt-broker';
import { ServelabError } from '../../shared/contract';
import { passphraseRequest as request } from '../../../tests/helpers/prompt-requests';


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
