// How pasted snippets are split: the shell's rules for what the command parser needs (hand-written edge cases).
import { describe, expect, it } from 'vitest';
import { parseShell, printedText } from './command-parse-shell';

function words(text: string): string[][] {
  const parsed = parseShell(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.commands.map((c) => c.words.map((w) => w.text));
}

describe('parseShell', () => {
  it('splits commands on newlines and operators, joins `\\` lines and drops comments and redirections', () => {
    expect(words('a b \\\n  c # note\nd && e; f | g 2>&1 > out.log &')).toEqual([['a', 'b', 'c'], ['d'], ['e'], ['f'], ['g']]);
  });

  it('removes quotes as the shell does, keeping a quoted JSON value over several lines as one word', () => {
    expect(words(`x '{"a": 1,\n "b": 2}' "say \\"hi\\" \\$HOME" it\\'s`)).toEqual([['x', '{"a": 1,\n "b": 2}', 'say "hi" $HOME', "it's"]]);
  });

  it('expands variables the snippet set, split into words when unquoted, and marks the others', () => {
    const parsed = parseShell('M=org/model\nFLAGS="--a 1"\nexport TP=2\nrun $M ${TP} $FLAGS "$FLAGS" $UNSET');
    if ('error' in parsed) throw new Error(parsed.error);
    const run = parsed.commands[3]!.words;
    expect(run.map((w) => w.text)).toEqual(['run', 'org/model', '2', '--a', '1', '--a 1', '$UNSET']);
    expect(run.map((w) => w.dollar === true)).toEqual([false, false, false, false, false, false, true]);
  });

  it('reads here-documents (quoted delimiter, <<- tab stripping) into the command they feed, and where it writes', () => {
    const parsed = parseShell("cat > a.yaml <<'EOF'\nx: 1\nEOF\ncat <<-END > b.yaml\n\ty: 2\n\tEND\nnext");
    if ('error' in parsed) throw new Error(parsed.error);
    expect(parsed.commands.map((c) => ({ words: c.words.map((w) => w.text), writes: c.writes, heredocs: c.heredocs }))).toEqual([
      { words: ['cat'], writes: ['a.yaml'], heredocs: ['x: 1\n'] },
      { words: ['cat'], writes: ['b.yaml'], heredocs: ['y: 2\n'] },
      { words: ['next'], writes: [], heredocs: [] },
    ]);
  });

  it('keeps a process substitution as one word with its body, a `)` inside quotes or a here-document included', () => {
    const parsed = parseShell("serve --opts <(echo 'a: \")\"') --x 1\nserve --opts <(cat <<EOF\nb: )\nEOF\n) --y 2");
    if ('error' in parsed) throw new Error(parsed.error);
    const [first, second] = parsed.commands;
    expect(first!.words.map((w) => w.text)).toEqual(['serve', '--opts', `<(echo 'a: ")"')`, '--x', '1']);
    expect(first!.words[2]!.procSub).toBe(`echo 'a: ")"'`);
    expect(printedText(first!.words[2]!.procSub!)).toBe('a: ")"\n');
    expect(second!.words.map((w) => w.text).slice(-2)).toEqual(['--y', '2']);
    expect(printedText(second!.words[2]!.procSub!)).toBe('b: )\n');
  });

  it('reads what echo -e and printf print', () => {
    expect(printedText(`echo -e "a:\\n  b: 1"`)).toBe('a:\n  b: 1\n');
    expect(printedText(`printf 'a: 1\\nb: 2\\n'`)).toBe('a: 1\nb: 2\n');
    expect(printedText('curl http://x')).toBeUndefined();
  });

  it('says what is left open', () => {
    expect(parseShell("a 'b")).toEqual({ error: 'a single quote is not closed' });
    expect(parseShell('a "b')).toEqual({ error: 'a double quote is not closed' });
    expect(parseShell('cat <<EOF\nx')).toEqual({ error: 'the here-document ending in EOF is not closed' });
    expect(parseShell('a <(echo x')).toEqual({ error: 'a process substitution <( … ) is not closed' });
  });
});
