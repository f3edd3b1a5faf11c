/**
 * Arguments as a person types them in one text field, and back: words split on whitespace, with POSIX shell quoting
 * ('…' literal, "…" with \" \\ \$ \` escapes, a backslash escaping the next character outside quotes) so a JSON value
 * or a path with spaces stays one word. Nothing is expanded: no variables, globs or substitutions.
 */

export interface SplitResult {
  words: string[];
  /** Set when a quote is left open. */
  unterminated?: "'" | '"';
}

export function splitArgs(text: string): SplitResult {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1] as string)) word += text[++i];
      else word += c;
      continue;
    }
    if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      continue;
    }
    // A backslash before a newline continues the line (as in a pasted multi-line command).
    if (c === '\\' && text[i + 1] === '\n') {
      i++;
      continue;
    }
    inWord = true;
    if (c === "'" || c === '"') quote = c;
    else if (c === '\\' && i + 1 < text.length) word += text[++i];
    else word += c;
  }
  if (inWord) words.push(word);
  return quote ? { words, unterminated: quote } : { words };
}

/** Words as text that `splitArgs` reads back as the same words: plain words bare, others single-quoted. */
export function joinArgs(words: readonly string[]): string {
  return words.map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) && !w.startsWith('=') ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}
