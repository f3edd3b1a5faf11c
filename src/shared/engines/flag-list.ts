import type { FlagArity, FlagSpec } from './types';

/**
 * Reads a compact flag list, one flag per line: `--name[,alias…][suffix]`, where the suffix says what follows it:
 * none = one value, `!` = no value (store_true / is_flag), `~` = also `--no-name` (BooleanOptionalAction),
 * `?` = an optional value, `+` = one or more values. A trailing `.` marks a JSON flag that takes `--name.key v`.
 * `#` starts a comment.
 */
export function parseFlagList(text: string, extra: Omit<FlagSpec, 'names' | 'arity'> = {}): FlagSpec[] {
  const specs: FlagSpec[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/#.*$/, '').trim();
    if (!line) continue;
    const m = /^(-[A-Za-z0-9_,.-]*?)([!~?+]?)(\.?)$/.exec(line);
    if (!m) throw new Error(`bad flag list line: ${rawLine}`);
    const [, names = '', suffix = '', dotted = ''] = m;
    const arity: FlagArity = suffix === '!' ? 'none' : suffix === '~' ? 'negatable' : suffix === '?' ? 'optional' : suffix === '+' ? 'many' : 'one';
    specs.push({ names: names.split(','), arity, ...(dotted ? { dotted: true } : {}), ...extra });
  }
  return specs;
}
