// PEP 440-ish version ordering, shared by the package index and the flag tables.

/** Compares PEP 440-ish versions such as 0.5.3.post3, 1.2.0rc1 and 0.11.0. */
export function versionCompare(a, b) {
  const parse = (v) => {
    const m = /^(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?/.exec(String(v)) ?? [];
    const release = (m[1] ?? '0').split('.').map(Number);
    const pre = m[2] ? { a: -3, b: -2, rc: -1 }[m[2]] * 1000 + Number(m[3]) : 0;
    return { release, pre, post: m[4] ? Number(m[4]) : 0 };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.release.length, y.release.length); i++) {
    const d = (x.release[i] ?? 0) - (y.release[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre !== y.pre) return x.pre === 0 ? 1 : y.pre === 0 ? -1 : Math.sign(x.pre - y.pre);
  return Math.sign(x.post - y.post);
}
