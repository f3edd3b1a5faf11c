// OpenSSH 9.2 match.c: `*` and `?` wildcards, comma lists with `!` negation. Host lines compare case-sensitively
// (match_pattern); Match host/originalhost lower-case both sides (match_hostname); Match user/localuser do not.

/** C tolower() in the C locale: only A–Z change (ssh's lowercase()). */
export function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function matchPattern(s: string, pattern: string): boolean {
  let si = 0;
  let pi = 0;
  for (;;) {
    if (pi === pattern.length) return si === s.length;
    if (pattern[pi] === '*') {
      while (pattern[pi] === '*') pi++;
      if (pi === pattern.length) return true;
      const rest = pattern.slice(pi);
      for (; si < s.length; si++) if (matchPattern(s.slice(si), rest)) return true;
      return false;
    }
    if (si === s.length) return false;
    if (pattern[pi] !== '?' && pattern[pi] !== s[si]) return false;
    si++;
    pi++;
  }
}

/** 1 for a positive match, -1 when a negated sub-pattern matches, 0 for none (match.c match_pattern_list). */
export function matchPatternList(s: string, list: string, lowerPattern: boolean): -1 | 0 | 1 {
  let positive = false;
  for (const raw of splitList(list)) {
    const negated = raw.startsWith('!');
    let sub = negated ? raw.slice(1) : raw;
    // A sub-pattern of 1023 characters or more makes the whole list fail to match (fixed buffer in match.c).
    if (sub.length >= 1023) return 0;
    if (lowerPattern) sub = asciiLower(sub);
    if (matchPattern(s, sub)) {
      if (negated) return -1;
      positive = true;
    }
  }
  return positive ? 1 : 0;
}

/** The comma-separated items as match.c walks them: a trailing comma adds no empty item. */
function splitList(list: string): string[] {
  const items: string[] = [];
  let i = 0;
  while (i < list.length) {
    let j = i;
    if (list[j] === '!') j++;
    while (j < list.length && list[j] !== ',') j++;
    items.push(list.slice(i, j));
    i = j < list.length ? j + 1 : j;
  }
  return items;
}

export function matchHostname(host: string, list: string): -1 | 0 | 1 {
  return matchPatternList(asciiLower(host), list, true);
}
