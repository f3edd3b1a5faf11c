import { describe, expect, it } from 'vitest';
import { TerminalTextFilter, terminalSafe } from './terminal-text';

const ESC = '\u001b';

describe('terminalSafe', () => {
  it('keeps plain text, newlines, tabs and any Unicode', () => {
    expect(terminalSafe('INFO 12:00 ready\n\tnext — ünïcødé 🚀\n', { keepColors: false })).toBe('INFO 12:00 ready\n\tnext — ünïcødé 🚀\n');
  });

  it('keeps SGR colors only when asked to (a terminal), and drops them otherwise', () => {
    const colored = `${ESC}[1;31mERROR${ESC}[0m done ${ESC}[38;5;208mx${ESC}[m`;
    expect(terminalSafe(colored, { keepColors: true })).toBe(colored);
    expect(terminalSafe(colored, { keepColors: false })).toBe('ERROR done x');
  });

  it('drops OSC sequences whole: window titles, hyperlinks, clipboard writes', () => {
    const text = `a${ESC}]0;pwned title\u0007b${ESC}]8;;https://evil.example/${ESC}\\link${ESC}]8;;${ESC}\\c${ESC}]52;c;ZWNobyBoaQ==\u0007d`;
    expect(terminalSafe(text, { keepColors: true })).toBe('ablinkcd');
  });

  it('drops every CSI that is not a color: cursor moves, erases, mode changes, reports', () => {
    const text = `x${ESC}[2J${ESC}[H${ESC}[1A${ESC}[?1049h${ESC}[6n${ESC}[31;1Hy${ESC}[0 q${ESC}[>c`;
    expect(terminalSafe(text, { keepColors: true })).toBe('xy');
  });

  it('drops DCS/APC/PM/SOS strings and two-character escapes', () => {
    const text = `a${ESC}P+q544e${ESC}\\b${ESC}_payload${ESC}\\c${ESC}^pm${ESC}\\d${ESC}Xsos${ESC}\\e${ESC}(Bf${ESC}c${ESC}7g${ESC}=h`;
    expect(terminalSafe(text, { keepColors: true })).toBe('abcdefgh');
  });

  it('drops C0 and C1 controls except newline and tab, and turns a lone carriage return into a newline', () => {
    const text = `a\u0000b\u0007c\bd\u007fe\u009b31mf\u0085g\u009d0;x\u0007h\r\ni 10%\ri 20%\r`;
    expect(terminalSafe(text, { keepColors: true })).toBe('abcde31mfg0;xh\ni 10%\ni 20%\n');
  });

  it('drops a sequence left unfinished at the end', () => {
    expect(terminalSafe(`ok${ESC}[31`, { keepColors: true })).toBe('ok');
    expect(terminalSafe(`ok${ESC}]0;title`, { keepColors: true })).toBe('ok');
    expect(terminalSafe(`ok${ESC}`, { keepColors: true })).toBe('ok');
  });

  it('does not let a long or unterminated sequence swallow the output after it', () => {
    const longParams = `${ESC}[${'1;'.repeat(100)}m`;
    expect(terminalSafe(`${longParams}after`, { keepColors: true })).toContain('after');
    expect(terminalSafe(`${ESC}]0;${'x'.repeat(10_000)}\nvisible`, { keepColors: true })).toContain('visible');
  });
});

describe('TerminalTextFilter', () => {
  it('recognizes sequences split across chunks, as log text arrives', () => {
    const filter = new TerminalTextFilter({ keepColors: true });
    const chunks = ['a', ESC, '[3', '1m', 'red', ESC, ']0;ti', 'tle', '\u0007', 'b\r', '\nc\r', 'd'];
    const out = chunks.map((c) => filter.push(c)).join('') + filter.end();
    expect(out).toBe(`a${ESC}[31mredb\nc\nd`);
  });

  it('gives the same result however the text is cut', () => {
    const text = `x${ESC}[1mbold${ESC}[0m${ESC}]2;t${ESC}\\y\r\nz\rw${ESC}[2Kq\u0000`;
    const whole = terminalSafe(text, { keepColors: true });
    for (let cut = 0; cut <= text.length; cut++) {
      const filter = new TerminalTextFilter({ keepColors: true });
      expect(filter.push(text.slice(0, cut)) + filter.push(text.slice(cut)) + filter.end()).toBe(whole);
    }
  });
});
