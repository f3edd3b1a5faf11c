import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import { PromptBroker } from '../core/ssh/prompt-broker';
import { attachTtyPrompts } from './tty-prompts';
import { passphraseRequest as request } from '../../tests/helpers/prompt-requests';


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

  it('shows what the server sent (keyboard-interactive name, instructions, prompts) without escape sequences', async () => {
    const broker = new PromptBroker();
    const tty = fakeTty();
    attachTtyPrompts(broker, tty);
    const answer = broker.ask(
      request({
        kind: 'keyboard-interactive',
        title: 'Login\u001b]0;owned\u0007',
        message: 'Welcome\u001b[2J\u001b[H',
        prompts: [{ text: 'Code\u001b]52;c;ZWNobyBoaQ==\u0007:', echo: true }],
      }),
    );
    await tick();
    tty.input.write('1\r');
    expect(await answer).toEqual({ answers: ['1'], remember: false });
    // (readline's own line editing adds cursor moves before the prompt.)
    expect(tty.shown()).toContain('Login\nWelcome\n');
    expect(tty.shown()).toContain('Code: ');
    expect(tty.shown()).not.toContain('\u001b]');
    expect(tty.shown()).not.toContain('\u001b[2J');
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
