import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createCore, type Core } from '../../core/create-core';
import { startWsHost, type WsHost } from './ws-host';
import { resolveStaticPath } from './static-files';

let dir: string;
let core: Core;
let host: WsHost;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'servelab-ws-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Servelab</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'do not serve');
  core = await createCore({ dataDir: join(dir, 'data'), userKnownHostsFiles: [] });
  host = await startWsHost(core, { rendererDir: renderer });
});

afterAll(async () => {
  await host.close();
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Resolves with the HTTP status of a refused upgrade, or 101 when the socket opened. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => {});
  });
}

function connect(): Promise<{ ws: WebSocket; call(name: string, input: unknown): Promise<unknown>; events: unknown[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(host.wsUrl, { headers: { Origin: `http://127.0.0.1:${host.port}` } });
    const pending = new Map<number, (envelope: unknown) => void>();
    const events: unknown[] = [];
    let nextId = 1;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; id?: number; envelope?: unknown };
      if (message.type === 'result') pending.get(message.id!)?.(message.envelope);
      else events.push(message);
    });
    ws.on('open', () =>
      resolve({
        ws,
        events,
        call(name, input) {
          const id = nextId++;
          return new Promise((done) => {
            pending.set(id, done);
            ws.send(JSON.stringify({ type: 'call', id, name, input }));
          });
        },
      }),
    );
    ws.on('error', reject);
  });
}

describe('WebSocket host', () => {
  it('listens on 127.0.0.1 only and hands out a page URL with the token in the fragment', () => {
    expect(host.pageUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/#token=[A-Za-z0-9_-]{43}$`));
  });

  it('refuses a connection without the token, with a wrong token, or from a foreign page', async () => {
    const base = `ws://127.0.0.1:${host.port}/ws`;
    expect(await upgradeStatus(base)).toBe(401);
    expect(await upgradeStatus(`${base}?token=${'x'.repeat(43)}`)).toBe(401);
    expect(await upgradeStatus(host.wsUrl, { Origin: 'http://evil.example' })).toBe(403);
    expect(await upgradeStatus(host.wsUrl.replace('/ws?', '/other?'))).toBe(404);
    expect(await upgradeStatus(host.wsUrl, { Origin: `http://127.0.0.1:${host.port}` })).toBe(101);
  });

  it('serves the contract: results, typed errors and events', async () => {
    const client = await connect();
    expect(await client.call('app:info', {})).toMatchObject({ ok: true, data: { name: 'Servelab' } });
    expect(await client.call('hosts:add', { address: 'a b', user: 'u', auth: { method: 'key', identityFile: 'k' } })).toMatchObject({
      ok: false,
      error: { code: 'BAD_INPUT', issues: [{ path: 'address' }] },
    });
    expect(await client.call('no:such', {})).toMatchObject({ ok: false, error: { code: 'UNKNOWN_CALL' } });
    const added = (await client.call('hosts:add', { address: 'gpu1.lab', user: 'ubuntu', auth: { method: 'key', identityFile: '~/.ssh/id' } })) as {
      ok: true;
      data: { id: string };
    };
    expect(added.ok).toBe(true);
    await expect.poll(() => client.events.length).toBeGreaterThan(0);
    expect(client.events[0]).toMatchObject({ type: 'event', name: 'hosts:changed', payload: { hosts: [{ id: added.data.id, address: 'gpu1.lab' }] } });
    client.ws.close();
  });

  it('closes a socket that sends something other than call frames', async () => {
    const client = await connect();
    const closed = new Promise<number>((resolve) => client.ws.on('close', (code) => resolve(code)));
    client.ws.send('not json');
    expect(await closed).toBe(1003);
  });

  it('serves the built renderer with a CSP header, and nothing outside it', async () => {
    const page = await fetch(`http://127.0.0.1:${host.port}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('<title>Servelab</title>');
    expect((await fetch(`http://127.0.0.1:${host.port}/assets/app.js`)).headers.get('content-type')).toContain('javascript');
    expect((await fetch(`http://127.0.0.1:${host.port}/..%2fsecret.txt`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${host.port}/missing.js`)).status).toBe(404);
  });
});

describe('resolveStaticPath', () => {
  it('keeps every path inside the root', () => {
    expect(resolveStaticPath('/srv/r', '/')).toBe('/srv/r/index.html');
    expect(resolveStaticPath('/srv/r', '/assets/a.js?x=1')).toBe('/srv/r/assets/a.js');
    expect(resolveStaticPath('/srv/r', '/../etc/passwd')).toBeNull();
    expect(resolveStaticPath('/srv/r', '/%2e%2e/etc/passwd')).toBeNull();
    expect(resolveStaticPath('/srv/r', '/a%00.js')).toBeNull();
    expect(resolveStaticPath('/srv/r', '/%E0%A4%A')).toBeNull();
  });
});
