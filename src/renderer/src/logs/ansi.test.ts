import { describe, expect, it } from 'vitest';
import { ansiClassName, ansiInlineStyle, parseAnsi, stripAnsi, xterm256 } from './ansi';

describe('parseAnsi', () => {
  it('reads the coloured log level vLLM prints', () => {
    const line = '\x1b[32mINFO\x1b[0m 12-01 20:01:16 [api_server.py:1024] Starting vLLM API server 0 on http://0.0.0.0:8000';
    expect(parseAnsi(line)).toEqual([
      { text: 'INFO', style: { fg: { palette: 2 } } },
      { text: ' 12-01 20:01:16 [api_server.py:1024] Starting vLLM API server 0 on http://0.0.0.0:8000', style: {} },
    ]);
  });

  it('reads uvicorn’s levels, bold and bright colours, and resets by 22/39', () => {
    const line = '\x1b[33mWARNING\x1b[0m:  \x1b[1;91mboom\x1b[22m still red\x1b[39m plain';
    const segments = parseAnsi(line);
    expect(segments.map((s) => s.text)).toEqual(['WARNING', ':  ', 'boom', ' still red', ' plain']);
    expect(segments[0]!.style).toEqual({ fg: { palette: 3 } });
    expect(segments[2]!.style).toEqual({ bold: true, fg: { palette: 9 } });
    expect(segments[3]!.style).toEqual({ fg: { palette: 9 } });
    expect(segments[4]!.style).toEqual({});
  });

  it('reads dim, italic, underline and backgrounds, and an empty SGR as a reset', () => {
    const segments = parseAnsi('\x1b[2;3;4;41mx\x1b[mY\x1b[104mZ\x1b[49m');
    expect(segments).toEqual([
      { text: 'x', style: { dim: true, italic: true, underline: true, bg: { palette: 1 } } },
      { text: 'Y', style: {} },
      { text: 'Z', style: { bg: { palette: 12 } } },
    ]);
  });

  it('reads 256-colour and truecolor foregrounds and backgrounds', () => {
    const segments = parseAnsi('\x1b[38;5;196mred\x1b[38;5;3mpal\x1b[48;2;10;20;300mrgb\x1b[38:5:244mgrey');
    expect(segments[0]!.style.fg).toEqual({ rgb: '#ff0000' });
    expect(segments[1]!.style.fg).toEqual({ palette: 3 });
    expect(segments[2]!.style).toEqual({ fg: { palette: 3 }, bg: { rgb: '#0a14ff' } });
    expect(segments[3]!.style.fg).toEqual({ rgb: xterm256(244) });
    expect(xterm256(16)).toBe('#000000');
    expect(xterm256(231)).toBe('#ffffff');
    expect(xterm256(232)).toBe('#080808');
  });

  it('drops cursor moves, erase, OSC titles and stray control characters', () => {
    const line = '\x1b]0;vllm serve\x07\x1b[2K\x1b[1G\x1b[?25lLoading\x08 safetensors \x1b(B\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ 50%\x1b[A';
    expect(stripAnsi(line)).toBe('Loading safetensors link 50%');
    expect(parseAnsi(line).every((s) => [...s.text].every((c) => c.charCodeAt(0) >= 0x20))).toBe(true);
  });

  it('drops an escape cut off at the end of the line', () => {
    expect(stripAnsi('ok \x1b[3')).toBe('ok ');
    expect(stripAnsi('ok \x1b]0;title never ended')).toBe('ok ');
  });

  it('keeps tabs and plain lines as they are', () => {
    expect(parseAnsi('a\tb')).toEqual([{ text: 'a\tb', style: {} }]);
    expect(parseAnsi('')).toEqual([]);
    expect(stripAnsi('(APIServer pid=1) INFO: Started server process')).toBe('(APIServer pid=1) INFO: Started server process');
  });
});

describe('ANSI styles as CSS', () => {
  it('names palette colours and styles by class and exact colours inline', () => {
    expect(ansiClassName({ bold: true, fg: { palette: 1 }, bg: { palette: 10 } })).toBe('ansi-bold ansi-fg-1 ansi-bg-10');
    expect(ansiClassName({ dim: true, italic: true, underline: true })).toBe('ansi-dim ansi-italic ansi-underline');
    expect(ansiClassName({ fg: { rgb: '#123456' } })).toBe('');
    expect(ansiInlineStyle({ fg: { rgb: '#123456' }, bg: { rgb: '#abcdef' } })).toEqual({ color: '#123456', backgroundColor: '#abcdef' });
    expect(ansiInlineStyle({ fg: { palette: 2 } })).toBeUndefined();
  });
});
