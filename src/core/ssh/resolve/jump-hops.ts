import { ServelabError } from '../../../shared/contract';

/** One ProxyJump hop as written: the host it names, with the user and port given with it. */
export interface JumpHop {
  name: string;
  user?: string;
  port?: number;
}

/** `[user@]host[:port]`, `[user@][v6addr][:port]` or `ssh://[user@]host[:port]`. */
export function parseJumpHop(hop: string, forHost = 'this host'): JumpHop {
  let rest = hop.startsWith('ssh://') ? hop.slice('ssh://'.length).replace(/\/$/, '') : hop;
  const bad = () =>
    new ServelabError('BAD_INPUT', `ProxyJump hop "${hop}" for ${forHost} is not [user@]host[:port].`, { issues: [{ path: 'proxyJump', message: 'is not [user@]host[:port]' }] });
  let user: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at === 0) throw bad();
  if (at > 0) {
    user = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  let name: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest);
  if (bracketed) {
    name = bracketed[1] as string;
    portText = bracketed[2];
  } else if ((rest.match(/:/g) ?? []).length === 1) {
    [name, portText] = rest.split(':') as [string, string];
  } else {
    name = rest;
  }
  if (!name || /\s/.test(name) || name.startsWith('-')) throw bad();
  const spec: JumpHop = { name };
  if (user !== undefined) spec.user = user;
  if (portText !== undefined) {
    const port = Number(portText);
    if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw bad();
    spec.port = port;
  }
  return spec;
}

/**
 * A ProxyJump value split the way ssh splits it: the hop nearest the destination (reached directly from the
 * destination's ProxyCommand) and the hops before it, still as one comma list (ssh passes them on as `-J`).
 */
export function splitJumpList(value: string, forHost: string): { last: JumpHop; before: string | undefined } {
  const comma = value.lastIndexOf(',');
  const last = parseJumpHop(comma < 0 ? value : value.slice(comma + 1), forHost);
  const before = comma < 0 ? undefined : value.slice(0, comma);
  // ssh checks the syntax of every hop before running any.
  if (before !== undefined) for (const hop of before.split(',')) parseJumpHop(hop, forHost);
  return { last, before };
}
