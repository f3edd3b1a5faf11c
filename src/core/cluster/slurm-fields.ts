// The value formats of Slurm's client output, read as Slurm 22.05 writes them (SchedMD/slurm, tag slurm-22-05-8-1):
//   - `scontrol -o show node|partition`: one record per line, `Key=Value` pairs separated by spaces
//     (src/api/node_info.c, src/api/partition_info.c). Values have no spaces except free text: OS= (uname), and the
//     Reason=, Comment= and Extra= that node_info.c prints last, in that order.
//   - times: secs2time_str in src/common/parse_time.c, `[days-]hh:mm:ss` or `UNLIMITED`; partitions also print
//     `NONE` for an unset DefaultTime (partition_info.c). Slurm also accepts `mm`, `mm:ss`, `days-hh[:mm]`.
//   - GRES: `name[:type][:count]`, comma separated, newer versions append the sockets, `gpu:a100:4(S:0-1)`.
import type { Gres } from '../../shared/model/cluster';

/** Keys whose free text may contain spaces and `=`; each runs until the next of them (they come last, in this order). */
const FREE_TEXT_KEYS = ['Reason', 'Comment', 'Extra'];

/** One `scontrol -o show …` line as key → value, in the order printed. */
export function parseKeyValueLine(line: string): Map<string, string> {
  const fields = new Map<string, string>();
  let key: string | null = null;
  let freeText = false;
  for (const token of line.trim().split(/\s+/)) {
    const pair = /^([A-Za-z][A-Za-z0-9_:]*)=(.*)$/.exec(token);
    const startsKey = pair !== null && (!freeText || FREE_TEXT_KEYS.includes(pair[1] as string));
    if (pair && startsKey) {
      key = pair[1] as string;
      freeText = FREE_TEXT_KEYS.includes(key);
      fields.set(key, pair[2] as string);
    } else if (key !== null) {
      // A value with spaces (OS=Linux 6.1.0 #1 SMP …, Reason=…): the token continues it.
      fields.set(key, `${fields.get(key)} ${token}`);
    }
  }
  return fields;
}

/** Slurm prints `(null)` (and for some fields `N/A` or nothing) where a value is unset. */
export function valueOrNull(value: string | undefined): string | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  return trimmed === '' || trimmed === '(null)' || trimmed === 'N/A' ? null : trimmed;
}

/**
 * A Slurm time limit in minutes, rounded up as Slurm's time_str2mins does; null for UNLIMITED, INFINITE and NONE.
 * Throws on anything else, naming the text.
 */
export function parseSlurmMinutes(text: string): number | null {
  const value = text.trim();
  if (/^(UNLIMITED|INFINITE|NONE)$/i.test(value)) return null;
  const withDays = /^(\d+)-(\d+)(?::(\d+))?(?::(\d+))?$/.exec(value);
  if (withDays) {
    const [, days, hours, minutes = '0', seconds = '0'] = withDays;
    return Number(days) * 1440 + Number(hours) * 60 + Number(minutes) + Math.ceil(Number(seconds) / 60);
  }
  const clock = /^(\d+)(?::(\d+))?(?::(\d+))?$/.exec(value);
  if (clock) {
    const [, a, b, c] = clock;
    // mm, mm:ss, hh:mm:ss
    if (c !== undefined) return Number(a) * 60 + Number(b) + Math.ceil(Number(c) / 60);
    if (b !== undefined) return Number(a) + Math.ceil(Number(b) / 60);
    return Number(a);
  }
  throw new Error(`"${value}" is not a Slurm time limit`);
}

/** Splits on commas outside parentheses: `gpu:a:2(S:0,1),mps:100` → [`gpu:a:2(S:0,1)`, `mps:100`]. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(') depth++;
    if (char === ')') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

const COUNT_SUFFIX: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4, P: 1024 ** 5 };

/**
 * A node's `Gres=` (or sinfo's %G). A count missing means 1, as in gres.conf; the `no_consume` flag some versions print
 * between type and count is not a type. `(null)` is no GRES.
 */
export function parseGres(text: string): Gres[] {
  const value = valueOrNull(text);
  if (value === null) return [];
  return splitTopLevel(value).map((item) => {
    const bare = item.replace(/\(.*\)$/, '');
    const parts = bare.split(':').filter((part) => part !== '' && part !== 'no_consume');
    const name = parts[0];
    if (!name) throw new Error(`"${item}" is not a GRES`);
    const last = parts.length > 1 ? (parts[parts.length - 1] as string) : '';
    const count = /^(\d+)([KMGTP]?)$/i.exec(last);
    const typeParts = parts.slice(1, count ? -1 : undefined);
    return {
      name,
      type: typeParts.length > 0 ? typeParts.join(':') : null,
      count: count ? Number(count[1]) * (COUNT_SUFFIX[(count[2] as string).toUpperCase()] as number) : 1,
    };
  });
}

/** A comma-separated Slurm list; `(null)`, empty and `ALL` give null (no restriction). */
export function parseNameList(text: string | undefined): string[] | null {
  const value = valueOrNull(text);
  if (value === null || value === 'ALL') return null;
  return value.split(',').filter((name) => name !== '');
}
