// Syntax of LocalForward / RemoteForward / DynamicForward specifications, as OpenSSH 9.2 readconf.c
// parse_forward and parse_fwd_field accept them: up to four colon-separated fields, `[…]` for literal fields
// (IPv6), `\` escapes, a `/` marking a Unix socket path, ports by number or service name.
import { a2port } from './values';

interface Field {
  arg: string;
  isPath: boolean;
}

/** The fields, or null for a malformed or trailing part. */
function fields(spec: string): Field[] | null {
  const out: Field[] = [];
  let cp = spec.replace(/^\s+/, '');
  while (out.length < 4) {
    if (cp === '') return out;
    if (cp.startsWith('[')) {
      const close = cp.indexOf(']');
      if (close === -1) return null;
      const after = cp[close + 1];
      if (after !== ':' && after !== undefined) return null;
      const inner = cp.slice(1, close);
      out.push({ arg: inner, isPath: inner.includes('/') });
      cp = cp.slice(close + (after === ':' ? 2 : 1));
      if (after === undefined) return out;
      continue;
    }
    let arg = '';
    let isPath = false;
    let i = 0;
    let ended = false;
    for (; i < cp.length; i++) {
      const c = cp[i] as string;
      if (c === '\\') {
        i++;
        if (i >= cp.length) return null;
        arg += cp[i];
        if (cp[i] === '/') isPath = true;
      } else if (c === '/') {
        isPath = true;
        arg += c;
      } else if (c === ':') {
        ended = true;
        break;
      } else arg += c;
    }
    out.push({ arg, isPath });
    cp = ended ? cp.slice(i + 1) : '';
    if (!ended) return out;
  }
  return cp === '' ? out : null;
}

export function validForward(spec: string, dynamic: boolean, remote: boolean): boolean {
  const f = fields(spec);
  if (f === null) return false;
  const [a, b, c, d] = f;
  let listenPort: number;
  let listenPath = false;
  let connectPort = 0;
  let connectPath = false;
  switch (f.length) {
    case 1:
      if (a?.isPath) {
        listenPath = true;
        listenPort = -2;
      } else listenPort = a2port(a?.arg ?? '');
      break;
    case 2:
      if (a?.isPath && b?.isPath) {
        listenPath = connectPath = true;
        listenPort = connectPort = -2;
      } else if (b?.isPath) {
        listenPort = a2port(a?.arg ?? '');
        connectPath = true;
        connectPort = -2;
      } else listenPort = a2port(b?.arg ?? '');
      break;
    case 3:
      if (a?.isPath) {
        listenPath = true;
        listenPort = -2;
        connectPort = a2port(c?.arg ?? '');
      } else if (c?.isPath) {
        listenPort = a2port(b?.arg ?? '');
        connectPath = true;
        connectPort = -2;
      } else {
        listenPort = a2port(a?.arg ?? '');
        connectPort = a2port(c?.arg ?? '');
      }
      break;
    case 4:
      listenPort = a2port(b?.arg ?? '');
      connectPort = a2port(d?.arg ?? '');
      break;
    default:
      return false;
  }
  if (dynamic) {
    if (f.length !== 1 && f.length !== 2) return false;
  } else {
    if (f.length !== 3 && f.length !== 4 && !connectPath && !listenPath) return false;
    if (connectPort <= 0 && !connectPath) return false;
  }
  if ((listenPort < 0 && !listenPath) || (!remote && listenPort === 0)) return false;
  return true;
}
