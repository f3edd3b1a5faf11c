// Python-compatible formatting: str.format alignment, float repr and json.dumps, so the simulated tools print
// byte-for-byte what the real Python tools print.

/** A number that Python holds as a float (printed as `4.0`, not `4`). */
export class PyFloat {
  constructor(value) {
    this.value = value;
  }
}
export const pyFloat = (v) => new PyFloat(v);

/** Python's repr() of a float. */
export function floatRepr(x) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return `${x}.0`;
  let s = String(x);
  const abs = Math.abs(x);
  if (abs >= 1e16 || (abs !== 0 && abs < 1e-4)) {
    const [mant, exp] = x.toExponential().split('e');
    const e = Number(exp);
    s = `${mant}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return s;
}

/** `{:<width}` / `{:<width.2f}` of str.format. */
export function ljust(s, width) {
  s = String(s);
  return s.length >= width ? s : s + ' '.repeat(width - s.length);
}
export function rjust(s, width) {
  s = String(s);
  return s.length >= width ? s : ' '.repeat(width - s.length) + s;
}
/** `{s:{c}^{n}}`: centred, extra fill on the right like Python. */
export function center(s, width, fill = ' ') {
  s = String(s);
  if (s.length >= width) return s;
  const total = width - s.length;
  const left = Math.floor(total / 2);
  return fill.repeat(left) + s + fill.repeat(total - left);
}
/** `{:.2f}` with Python's round-half-even on the binary value (toFixed rounds the same way for doubles). */
export function fixed(x, digits = 2) {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  const s = x.toFixed(digits);
  return s === `-${(0).toFixed(digits)}` ? s : s;
}

/** json.dumps with Python's default separators; PyFloat values print as floats, NaN/inf as Python writes them. */
export function pyJson(value) {
  if (value instanceof PyFloat) {
    const x = value.value;
    if (Number.isNaN(x)) return 'NaN';
    if (x === Infinity) return 'Infinity';
    if (x === -Infinity) return '-Infinity';
    return floatRepr(x);
  }
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return Number.isInteger(value) ? String(value) : floatRepr(value);
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return pyJsonString(value);
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${pyJsonString(k)}: ${pyJson(v)}`).join(', ')}}`;
}

function pyJsonString(s) {
  // ensure_ascii=True: non-ASCII as \uXXXX, like Python's default.
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (code < 0x20 || (code > 0x7e && code <= 0xffff)) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (code > 0xffff) {
      const v = code - 0x10000;
      out += `\\u${(0xd800 + (v >> 10)).toString(16)}\\u${(0xdc00 + (v & 0x3ff)).toString(16)}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** repr() of a Python str (single quotes unless the text holds one). */
export function strRepr(s) {
  s = String(s);
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    if (ch === quote || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else out += ch;
  }
  return out + quote;
}

/** repr() of simple Python values (for Namespace(...) and dict logs). */
export function pyRepr(v) {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : floatRepr(v);
  if (typeof v === 'string') return strRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(v).map(([k, x]) => `${strRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
}
