// The page's Content-Security-Policy is the renderer's last line of defence: scripts only from the app itself,
// no eval, no plugins, no foreign connections; and the browser-served copy sends the same policy as a header.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { RENDERER_CSP } from '../../src/cli/serve/ws-host';
import { APP_CSP } from '../../src/main/electron/app-protocol';

function parsePolicy(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

const html = readFileSync(join(repoRoot, 'src', 'renderer', 'index.html'), 'utf8');
const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]+)"/i.exec(html)?.[1];

describe('renderer CSP', () => {
  it('is declared in index.html', () => {
    expect(meta).toBeDefined();
  });

  it('allows scripts only from the app and never eval or inline script', () => {
    const policy = parsePolicy(meta!);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(meta).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    // The desktop app talks to the core over IPC: the page itself allows no WebSocket anywhere.
    expect(policy.get('connect-src')).toEqual(["'self'"]);
  });

  it('is sent as a header by the app:// protocol with the same directives (plus frame-ancestors)', () => {
    const header = parsePolicy(APP_CSP);
    const page = parsePolicy(meta!);
    for (const [name, values] of page) expect(header.get(name), name).toEqual(values);
    expect([...header.keys()].sort()).toEqual([...page.keys(), 'frame-ancestors'].sort());
    expect(header.get('frame-ancestors')).toEqual(["'none'"]);
  });

  it('is sent as a header by the loopback host with the same directives, its WebSocket, and frame-ancestors', () => {
    const header = parsePolicy(RENDERER_CSP);
    const page = parsePolicy(meta!);
    for (const [name, values] of page) {
      if (name === 'connect-src') expect(header.get(name)).toEqual([...values, 'ws://127.0.0.1:*']);
      else expect(header.get(name), name).toEqual(values);
    }
    expect(header.get('frame-ancestors')).toEqual(["'none'"]);
  });
});
