import { describe, it, expect } from 'vitest';
import { PromptBroker } from '../../src/core/ssh/prompt-broker';
import { ScriptedPrompts } from './scripted-prompts';
import { passphraseRequest as request } from './prompt-requests';


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
