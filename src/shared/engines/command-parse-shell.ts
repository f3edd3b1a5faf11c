/**
 * Reads a pasted shell snippet the way bash splits it, without running or expanding anything: simple commands
 * separated by newlines, `;`, `&&`, `||`, `|` and `&`; quotes; backslash continuations; `#` comments; here-documents
 * (`cat > f.yaml <<'EOF' … EOF`) and process substitutions (`<(echo '…')`), whose text is kept for the caller.
 */

export interface ShellWord {
  /** The word after quote removal (`<(…)` for a process substitution). */
  text: string;
  /** The body of a `<(…)` process substitution. */
  procSub?: string;
  /** The word held an unquoted `$` (a variable or substitution Servelab does not expand). */
  dollar?: boolean;
  /** The word held a command substitution, `$(…)` or a backtick pair: its text is kept as written and never run. */
  substitution?: boolean;
}

export interface SimpleCommand {
  words: ShellWord[];
  /** `> FILE` / `>> FILE` targets. */
  writes: string[];
  /** Here-document bodies fed to this command, in order. */
  heredocs: string[];
  /** A here-document with an unquoted delimiter whose body has a `$` or backtick: the shell would expand or run it, so the text is not what it feeds. */
  expandedHeredoc?: boolean;
}

export type ShellParse = { commands: SimpleCommand[] } | { error: string };

export function parseShell(text: string): ShellParse {
  const src = text.replace(/\r\n?/g, '\n');
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], writes: [], heredocs: [] };
  let word: ShellWord | null = null;
  let redirect: 'write' | 'read' | 'heredoc' | null = null;
  const pending: { delimiter: string; strip: boolean; expands: boolean; into: SimpleCommand }[] = [];
  /** The current word had a quote or a backslash (a quoted here-document delimiter turns expansion off). */
  let quoted = false;
  let heredocStrip = false;
  const variables = new Map<string, string>();
  /** `$NAME` / `${NAME}` at `at`: the value of a variable the snippet set, and where the reference ends; else undefined. */
  const expansion = (at: number): { value: string; end: number } | undefined => {
    const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(src.slice(at, at + 200));
    const name = m?.[1] ?? m?.[2];
    const value = name !== undefined ? variables.get(name) : undefined;
    return m && value !== undefined ? { value, end: at + m[0].length } : undefined;
  };

  const endWord = () => {
    if (word === null) return;
    if (redirect === 'write') current.writes.push(word.text);
    else if (redirect === 'heredoc') pending.push({ delimiter: word.text, strip: heredocStrip, expands: !quoted, into: current });
    else if (redirect !== 'read') current.words.push(word);
    redirect = null;
    word = null;
    quoted = false;
  };
  const endCommand = () => {
    endWord();
    // `NAME=value` alone or `export NAME=value` sets a variable later words may use.
    const words = current.words[0]?.text === 'export' ? current.words.slice(1) : current.words;
    if (words.length > 0 && words.every((w) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w.text))) {
      for (const w of words) if (!w.dollar) variables.set(w.text.slice(0, w.text.indexOf('=')), w.text.slice(w.text.indexOf('=') + 1));
    }
    if (current.words.length > 0 || current.writes.length > 0 || current.heredocs.length > 0 || pending.some((p) => p.into === current)) commands.push(current);
    current = { words: [], writes: [], heredocs: [] };
  };
  const add = (c: string) => {
    word = word ?? { text: '' };
    word.text += c;
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '\n') {
      endCommand();
      i++;
      // Here-document bodies start on the line after their operator.
      while (pending.length > 0) {
        const doc = pending.shift() as (typeof pending)[number];
        const lines: string[] = [];
        for (;;) {
          if (i >= src.length) return { error: `the here-document ending in ${doc.delimiter} is not closed` };
          const end = src.indexOf('\n', i);
          const line = src.slice(i, end < 0 ? src.length : end);
          i = end < 0 ? src.length : end + 1;
          const read = doc.strip ? line.replace(/^\t+/, '') : line;
          if (read.trim() === doc.delimiter) break;
          lines.push(read);
        }
        doc.into.heredocs.push(lines.join('\n') + '\n');
        if (doc.expands && lines.some((l) => /[$`]/.test(l))) doc.into.expandedHeredoc = true;
      }
      continue;
    }
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
      continue;
    }
    if (c === '#' && word === null) {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === ';' || c === '|' || c === '&') {
      // `2>&1`, `&>` are redirections of the current command, not separators.
      if (c === '&' && src[i + 1] === '>') {
        endWord();
        redirect = 'write';
        i += src[i + 2] === '>' ? 3 : 2;
        continue;
      }
      endCommand();
      i += (c === '&' && src[i + 1] === '&') || (c === '|' && src[i + 1] === '|') || (c === ';' && src[i + 1] === ';') ? 2 : 1;
      continue;
    }
    if (c === '<' && src[i + 1] === '(' && word === null) {
      const close = matchingParen(src, i + 1);
      if (close < 0) return { error: 'a process substitution <( … ) is not closed' };
      word = { text: src.slice(i, close + 1), procSub: src.slice(i + 2, close) };
      i = close + 1;
      continue;
    }
    if (c === '<' || c === '>') {
      // A file-descriptor number right before the operator belongs to it (`2>`), not to the words.
      if (word !== null && /^\d+$/.test((word as ShellWord).text)) word = null;
      endWord();
      if (c === '<' && src[i + 1] === '<' && src[i + 2] !== '<') {
        heredocStrip = src[i + 2] === '-';
        i += heredocStrip ? 3 : 2;
        redirect = 'heredoc';
        continue;
      }
      if (c === '>' && src[i + 1] === '&') {
        // `>&2`, `2>&1`: a descriptor, not a file.
        i += 2;
        while (i < src.length && /[0-9-]/.test(src[i] as string)) i++;
        continue;
      }
      redirect = c === '>' ? 'write' : 'read';
      i += src[i + 1] === c ? (c === '<' ? 3 : 2) : 1;
      continue;
    }
    if (c === "'" || c === '"' || c === '\\') quoted = true;
    if (c === "'") {
      const close = src.indexOf("'", i + 1);
      if (close < 0) return { error: 'a single quote is not closed' };
      word = word ?? { text: '' };
      word.text += src.slice(i + 1, close);
      i = close + 1;
      continue;
    }
    if (c === '"') {
      word = word ?? { text: '' };
      i++;
      for (;;) {
        if (i >= src.length) return { error: 'a double quote is not closed' };
        const d = src[i] as string;
        if (d === '"') break;
        if (d === '\\' && i + 1 < src.length && '"\\$`\n'.includes(src[i + 1] as string)) {
          if (src[i + 1] !== '\n') word.text += src[i + 1];
          i += 2;
          continue;
        }
        const inner = substitutionEnd(src, i);
        if (inner !== undefined) {
          if (inner < 0) return { error: 'a command substitution $( … ) or ` … ` is not closed' };
          word.text += src.slice(i, inner);
          word.dollar = true;
          word.substitution = true;
          i = inner;
          continue;
        }
        if (d === '$') {
          const known = expansion(i);
          if (known) {
            word.text += known.value;
            i = known.end;
            continue;
          }
          word.dollar = true;
        }
        word.text += d;
        i++;
      }
      i++;
      continue;
    }
    if (c === '\\' && i + 1 < src.length) {
      add(src[i + 1] as string);
      i += 2;
      continue;
    }
    const substituted = substitutionEnd(src, i);
    if (substituted !== undefined) {
      // Read whole, as bash does, so the words inside do not become the server's words.
      if (substituted < 0) return { error: 'a command substitution $( … ) or ` … ` is not closed' };
      add(src.slice(i, substituted));
      (word as unknown as ShellWord).dollar = true;
      (word as unknown as ShellWord).substitution = true;
      i = substituted;
      continue;
    }
    if (c === '$') {
      const known = expansion(i);
      if (known) {
        // Unquoted, the value is split into words as the shell would.
        const parts = known.value.split(/[ \t\n]+/);
        parts.forEach((part, n) => {
          if (n > 0) endWord();
          if (part !== '') add(part);
        });
        i = known.end;
        continue;
      }
      add(c);
      (word as unknown as ShellWord).dollar = true;
      i++;
      continue;
    }
    add(c);
    i++;
  }
  endCommand();
  if (pending.length > 0) return { error: `the here-document ending in ${pending[0]?.delimiter} has no body` };
  return { commands };
}

/** Where a `$(…)` / `$((…))` / backtick substitution starting at `at` ends (one past it), -1 when unclosed, undefined when none starts there. */
function substitutionEnd(src: string, at: number): number | undefined {
  if (src[at] === '$' && src[at + 1] === '(') {
    const close = matchingParen(src, at + 1);
    return close < 0 ? -1 : close + 1;
  }
  if (src[at] === '`') {
    for (let i = at + 1; i < src.length; i++) {
      if (src[i] === '\\') i++;
      else if (src[i] === '`') return i + 1;
    }
    return -1;
  }
  return undefined;
}

/** Index of the `)` closing the `(` at `open`, skipping quoted text and here-document bodies inside. */
function matchingParen(src: string, open: number): number {
  let depth = 0;
  for (let i = open; i < src.length; i++) {
    const c = src[i];
    if (c === "'") {
      i = src.indexOf("'", i + 1);
      if (i < 0) return -1;
    } else if (c === '"') {
      for (i++; i < src.length && src[i] !== '"'; i++) if (src[i] === '\\') i++;
    } else if (c === '\\') i++;
    else if (c === '<' && src[i + 1] === '<') {
      // `<<EOF` inside: skip to the delimiter line so a `)` in the body does not close the substitution.
      const m = /^<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?/.exec(src.slice(i));
      if (m) {
        const bodyStart = src.indexOf('\n', i);
        if (bodyStart < 0) return -1;
        const end = new RegExp(`\\n\\t*${m[1]}[ \\t]*(?=\\n|\\)|$)`).exec(src.slice(bodyStart));
        if (!end) return -1;
        i = bodyStart + end.index + end[0].length - 1;
      }
    } else if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** The text a `<(…)` body prints: `echo '…'`, `echo -e "…"`, `printf '…'` or `cat <<EOF … EOF`; undefined for anything else. */
export function printedText(body: string): string | undefined {
  const parsed = parseShell(body);
  if ('error' in parsed || parsed.commands.length !== 1) return undefined;
  const command = parsed.commands[0] as SimpleCommand;
  // A variable or substitution would be expanded or run by the shell: what it prints is unknown here.
  if (command.words.some((w) => w.dollar)) return undefined;
  const [program, ...args] = command.words.map((w) => w.text);
  if (program === 'cat' && args.length === 0 && command.heredocs.length === 1) return command.expandedHeredoc ? undefined : command.heredocs[0];
  if (program === 'echo') {
    let escapes = false;
    let newline = true;
    while (args[0] !== undefined && /^-[neE]+$/.test(args[0])) {
      const flags = args.shift() as string;
      if (flags.includes('e')) escapes = true;
      if (flags.includes('E')) escapes = false;
      if (flags.includes('n')) newline = false;
    }
    const text = args.join(' ');
    return (escapes ? unescapeC(text) : text) + (newline ? '\n' : '');
  }
  if (program === 'printf' && args.length === 1) return unescapeC(args[0] as string);
  // `printf '%s' TEXT` prints TEXT as it is, in every shell (echo's handling of backslashes differs between them).
  if (program === 'printf' && args.length === 2 && args[0] === '%s') return args[1] as string;
  return undefined;
}

function unescapeC(text: string): string {
  return text.replace(/\\([ntr\\'"])/g, (_, c: string) => ({ n: '\n', t: '\t', r: '\r' })[c] ?? c);
}
