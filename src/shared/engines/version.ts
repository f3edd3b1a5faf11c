/**
 * Engine versions as the engines publish them on PyPI (PEP 440): `0.11.0`, `1.2.0rc1`, `0.5.3.post3`.
 * Only the parts these engines use are understood: a release, then an optional a/b/rc pre-release, .postN and .devN.
 */

export interface ParsedVersion {
  release: number[];
  /** 0 = alpha, 1 = beta, 2 = release candidate. */
  pre?: [number, number];
  post?: number;
  dev?: number;
}

const VERSION = /^v?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|rc|c)[-_.]?(\d*))?(?:[-_.]?post[-_.]?(\d*))?(?:[-_.]?dev[-_.]?(\d*))?(?:\+[A-Za-z0-9.]+)?$/i;

export function parseVersion(text: string): ParsedVersion | undefined {
  const m = VERSION.exec(text.trim());
  if (!m) return undefined;
  const [, release, preKind, preNum, post, dev] = m;
  const parsed: ParsedVersion = { release: (release as string).split('.').map(Number) };
  if (preKind) {
    const kind = preKind.toLowerCase();
    parsed.pre = [kind.startsWith('a') ? 0 : kind.startsWith('b') ? 1 : 2, Number(preNum || 0)];
  }
  if (post !== undefined) parsed.post = Number(post || 0);
  if (dev !== undefined) parsed.dev = Number(dev || 0);
  return parsed;
}

export function isVersion(text: string): boolean {
  return parseVersion(text) !== undefined;
}

/** Negative when a < b, 0 when equal, positive when a > b. Unparsable versions sort after every parsable one. */
export function compareVersions(a: string, b: string): number {
  const va = parseVersion(a);
  const vb = parseVersion(b);
  if (!va || !vb) return va ? -1 : vb ? 1 : a.localeCompare(b);
  const length = Math.max(va.release.length, vb.release.length);
  for (let i = 0; i < length; i++) {
    const d = (va.release[i] ?? 0) - (vb.release[i] ?? 0);
    if (d !== 0) return d;
  }
  // PEP 440 order within one release: .devN < aN < bN < rcN < (final) < .postN.
  const d = phase(va) - phase(vb);
  if (d !== 0) return d;
  if (va.pre && vb.pre) {
    const p = va.pre[0] - vb.pre[0] || va.pre[1] - vb.pre[1];
    if (p !== 0) return p;
  }
  const post = (va.post ?? -1) - (vb.post ?? -1);
  if (post !== 0) return post;
  return (va.dev ?? Infinity) - (vb.dev ?? Infinity) || 0;
}

function phase(v: ParsedVersion): number {
  if (v.pre) return 1;
  if (v.dev !== undefined && v.post === undefined) return 0;
  return 2;
}

/** A half-open range: `since` inclusive, `until` exclusive; either end may be open. */
export interface VersionRange {
  since?: string;
  until?: string;
}

export function inRange(version: string, range: VersionRange): boolean {
  if (range.since !== undefined && compareVersions(version, range.since) < 0) return false;
  if (range.until !== undefined && compareVersions(version, range.until) >= 0) return false;
  return true;
}

/** The newest of `known` that is not newer than `version`, else the oldest known one. */
export function nearestKnown(version: string, known: readonly string[]): string | undefined {
  const sorted = [...known].sort(compareVersions);
  let best: string | undefined;
  for (const k of sorted) if (compareVersions(k, version) <= 0) best = k;
  return best ?? sorted[0];
}
