// ANSI escapes in engine logs: SGR colours and styles become styled segments; every other escape or control
// sequence (cursor moves, erase, OSC window titles, bells) is dropped so nothing garbled reaches the page.

/** A colour of the 16-colour palette (a CSS class per theme) or an exact one (256-colour cube, truecolor). */
export type AnsiColor = { palette: number } | { rgb: string };

export interface AnsiStyle {
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  fg?: AnsiColor;
  bg?: AnsiColor;
}

export interface AnsiSegment {
  text: string;
  style: AnsiStyle;
}

const ESC = 0x1b;

/** Anything that is not plain printable text (tab aside). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point here
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
// eslint-disable-next-line no-control-regex -- as above
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

function hex(n: number): string {
  return n.toString(16).padStart(2, '0');
}

/** The xterm 256-colour table above the 16 palette colours: a 6×6×6 cube, then 24 greys. */
export function xterm256(index: number): string {
  if (index >= 232) {
    const v = 8 + (index - 232) * 10;
    return `#${hex(v)}${hex(v)}${hex(v)}`;
  }
  const i = index - 16;
  const level = (c: number) => (c === 0 ? 0 : 55 + c * 40);
  return `#${hex(level(Math.floor(i / 36)))}${hex(level(Math.floor(i / 6) % 6))}${hex(level(i % 6))}`;
}

function clampByte(n: number | undefined): number {
  return Math.max(0, Math.min(255, Number.isFinite(n) ? Math.trunc(n!) : 0));
}

/**
 * `38;5;n` / `38;2;r;g;b` (and 48 for the background) starting at `params[at]` (the 5 or 2); returns the colour
 * and how many parameters it used.
 */
function extendedColor(params: number[], at: number): { color: AnsiColor | undefined; used: number } {
  const kind = params[at];
  if (kind === 5) {
    const n = clampByte(params[at + 1]);
    return { color: n < 16 ? { palette: n } : { rgb: xterm256(n) }, used: 2 };
  }
  if (kind === 2) {
    const [r, g, b] = [params[at + 1], params[at + 2], params[at + 3]].map(clampByte) as [number, number, number];
    return { color: { rgb: `#${hex(r)}${hex(g)}${hex(b)}` }, used: 4 };
  }
  return { color: undefined, used: 1 };
}

/** Applies one SGR parameter list to `style` (a fresh object: segments keep the style they were cut with). */
function applySgr(style: AnsiStyle, paramText: string): AnsiStyle {
  const params = paramText === '' ? [0] : paramText.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  const next: AnsiStyle = { ...style };
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (p === 0) {
      for (const key of Object.keys(next) as (keyof AnsiStyle)[]) delete next[key];
    } else if (p === 1) next.bold = true;
    else if (p === 2) next.dim = true;
    else if (p === 3) next.italic = true;
    else if (p === 4) next.underline = true;
    else if (p === 22) {
      delete next.bold;
      delete next.dim;
    } else if (p === 23) delete next.italic;
    else if (p === 24) delete next.underline;
    else if (p >= 30 && p <= 37) next.fg = { palette: p - 30 };
    else if (p >= 90 && p <= 97) next.fg = { palette: p - 90 + 8 };
    else if (p === 39) delete next.fg;
    else if (p >= 40 && p <= 47) next.bg = { palette: p - 40 };
    else if (p >= 100 && p <= 107) next.bg = { palette: p - 100 + 8 };
    else if (p === 49) delete next.bg;
    else if (p === 38 || p === 48) {
      const { color, used } = extendedColor(params, i + 1);
      if (color) next[p === 38 ? 'fg' : 'bg'] = color;
      i += used;
    }
    // Anything else (blink, inverse, fonts) is left out: it would only distract in a log.
  }
  return next;
}

/** Where the escape sequence starting at `text[at]` (an ESC) ends, and its SGR parameters if it is one. */
function escapeAt(text: string, at: number): { end: number; sgr: string | null } {
  const n = text.length;
  const kind = text[at + 1];
  if (kind === '[') {
    // CSI: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, one final byte 0x40–0x7E.
    let j = at + 2;
    while (j < n && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
    const params = text.slice(at + 2, j);
    while (j < n && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
    if (j >= n) return { end: n, sgr: null };
    const final = text[j];
    return { end: j + 1, sgr: final === 'm' && /^[\d;:]*$/.test(params) ? params : null };
  }
  if (kind === ']' || kind === 'P' || kind === '^' || kind === '_' || kind === 'X') {
    // OSC (titles, hyperlinks) and other strings: up to BEL or ST (ESC \).
    for (let j = at + 2; j < n; j++) {
      if (text.charCodeAt(j) === 0x07) return { end: j + 1, sgr: null };
      if (text.charCodeAt(j) === ESC && text[j + 1] === '\\') return { end: j + 2, sgr: null };
    }
    return { end: n, sgr: null };
  }
  // Two- or three-byte escapes: ESC, intermediates, one final byte (ESC ( B, ESC 7, ESC =, …).
  let j = at + 1;
  while (j < n && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  return { end: Math.min(n, j + 1), sgr: null };
}

/** Drops C0/C1 control characters other than tab from plain text between escapes. */
function printable(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROLS, '') : text;
}

/** One log line as styled segments; adjacent text of one style is one segment, empty segments are left out. */
export function parseAnsi(line: string): AnsiSegment[] {
  if (!CONTROL.test(line)) return line === '' ? [] : [{ text: line, style: {} }];
  const segments: AnsiSegment[] = [];
  let style: AnsiStyle = {};
  let text = '';
  const emit = () => {
    if (text !== '') segments.push({ text, style });
    text = '';
  };
  let i = 0;
  while (i < line.length) {
    const esc = line.indexOf('\x1b', i);
    const stop = esc === -1 ? line.length : esc;
    text += printable(line.slice(i, stop));
    if (esc === -1) break;
    const { end, sgr } = escapeAt(line, esc);
    if (sgr !== null) {
      const next = applySgr(style, sgr);
      if (!sameStyle(next, style)) {
        emit();
        style = next;
      }
    }
    i = end;
  }
  emit();
  return segments;
}

function sameColor(a: AnsiColor | undefined, b: AnsiColor | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return 'palette' in a ? 'palette' in b && a.palette === b.palette : 'rgb' in b && a.rgb === b.rgb;
}

function sameStyle(a: AnsiStyle, b: AnsiStyle): boolean {
  return !!a.bold === !!b.bold && !!a.dim === !!b.dim && !!a.italic === !!b.italic && !!a.underline === !!b.underline && sameColor(a.fg, b.fg) && sameColor(a.bg, b.bg);
}

/** The line's text without any escape sequence or control character: what search and copy work on. */
export function stripAnsi(line: string): string {
  if (!CONTROL.test(line)) return line;
  let out = '';
  for (const segment of parseAnsi(line)) out += segment.text;
  return out;
}

/** CSS classes of a style: `ansi-bold`, `ansi-fg-3`, `ansi-bg-12`, …; exact colours go to `ansiInlineStyle`. */
export function ansiClassName(style: AnsiStyle): string {
  const classes: string[] = [];
  if (style.bold) classes.push('ansi-bold');
  if (style.dim) classes.push('ansi-dim');
  if (style.italic) classes.push('ansi-italic');
  if (style.underline) classes.push('ansi-underline');
  if (style.fg && 'palette' in style.fg) classes.push(`ansi-fg-${style.fg.palette}`);
  if (style.bg && 'palette' in style.bg) classes.push(`ansi-bg-${style.bg.palette}`);
  return classes.join(' ');
}

/** Inline colours for the 256-colour cube and truecolor, which no class can name. */
export function ansiInlineStyle(style: AnsiStyle): { color?: string; backgroundColor?: string } | undefined {
  const fg = style.fg && 'rgb' in style.fg ? style.fg.rgb : undefined;
  const bg = style.bg && 'rgb' in style.bg ? style.bg.rgb : undefined;
  if (fg === undefined && bg === undefined) return undefined;
  return { ...(fg ? { color: fg } : {}), ...(bg ? { backgroundColor: bg } : {}) };
}
