import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import WebSocket from 'ws';
import { createCore, type Core } from '../../core/create-core';
import { startWsHost, type WsHost } from './ws-host';
import { resolveStaticPath } from '../../core/util/static-path';

let dir: string;
let core: Core;
let host: WsHost;
let clock = 1_000_000;
let wsUrl: string;
let grant: { session: string; proofKey: string };

/** What the page does with a sign-in code: POST /session. */
async function signIn(url: string, headers: Record<string, string> = {}): Promise<Response> {
  const code = new URL(url).searchParams.get('code');
  return fetch(`${host.origin}/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ code }),
  });
}

async function newSession(): Promise<{ session: string; proofKey: string }> {
  const res = await signIn(host.signInUrl());
  expect(res.status).toBe(200);
  return (await res.json()) as { session: string; proofKey: string };
}

const sessionUrl = (session: string) => `ws://127.0.0.1:${host.port}/ws?session=${encodeURIComponent(session)}`;

/** A raw HTTP GET with a chosen Host header (fetch does not let a test set it). */
function statusWithHost(hostHeader: string, path = '/'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers: { Host: hostHeader } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'servelab-ws-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Servelab</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'do not serve');
  core = await createCore({ dataDir: join(dir, 'data'), userKnownHostsFiles: [] });
  host = await startWsHost(core, { rendererDir: renderer, now: () => clock });
  grant = await newSession();
  wsUrl = sessionUrl(grant.session);
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

function connect(url = wsUrl): Promise<{ ws: WebSocket; call(name: string, input: unknown): Promise<unknown>; events: unknown[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { Origin: `http://127.0.0.1:${host.port}` } });
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
  it('listens on 127.0.0.1 only and hands out sign-in links with a fresh code each', () => {
    const a = host.signInUrl();
    expect(a).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/\\?code=[A-Za-z0-9_-]{43}$`));
    expect(host.signInUrl()).not.toBe(a);
  });

  it('refuses a connection without a session, with a wrong one, or from a foreign page', async () => {
    const base = `ws://127.0.0.1:${host.port}/ws`;
    expect(await upgradeStatus(base)).toBe(401);
    expect(await upgradeStatus(`${base}?session=${'x'.repeat(43)}`)).toBe(401);
    expect(await upgradeStatus(wsUrl, { Origin: 'http://evil.example' })).toBe(403);
    expect(await upgradeStatus(wsUrl.replace('/ws?', '/other?'))).toBe(404);
    expect(await upgradeStatus(wsUrl, { Origin: `http://127.0.0.1:${host.port}` })).toBe(101);
  });

  it('trades a sign-in code for a session once, and ends that session when the code comes back', async () => {
    const link = host.signInUrl();
    const first = await signIn(link);
    expect(first.status).toBe(200);
    const { session } = (await first.json()) as { session: string };
    const client = await connect(sessionUrl(session));
    const closed = new Promise<number>((resolve) => client.ws.on('close', (code) => resolve(code)));
    const again = await signIn(link);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toContain('already used');
    expect(await closed).toBe(4401);
    expect(await upgradeStatus(sessionUrl(session))).toBe(401);
  });

  it('refuses an expired code, an unknown code, a foreign page and a non-JSON request', async () => {
    const link = host.signInUrl(30_000);
    clock += 30_001;
    expect((await signIn(link)).status).toBe(410);
    expect((await signIn(`${host.origin}/?code=${'y'.repeat(43)}`)).status).toBe(401);
    expect((await signIn(host.signInUrl(), { Origin: 'http://evil.example' })).status).toBe(403);
    const plain = await fetch(`${host.origin}/session`, { method: 'POST', body: 'code=x' });
    expect(plain.status).toBe(415);
    expect((await fetch(`${host.origin}/session`)).status).toBe(405);
  });

  it('answers only to its own address: another Host header is refused', async () => {
    expect(await statusWithHost(`127.0.0.1:${host.port}`)).toBe(200);
    expect(await statusWithHost(`localhost:${host.port}`)).toBe(200);
    expect(await statusWithHost(`rebound.example:${host.port}`)).toBe(421);
    expect(await statusWithHost(`127.0.0.1:${host.port + 1}`)).toBe(421);
    expect(await upgradeStatus(wsUrl, { Host: `rebound.example:${host.port}` })).toBe(421);
  });

  it('proves it knows the session: hello nonce → HMAC with the proof key the page holds', async () => {
    const client = await connect();
    const nonce = 'n'.repeat(32);
    const reply = new Promise<unknown>((resolve) => client.ws.once('message', (data) => resolve(JSON.parse(String(data)))));
    client.ws.send(JSON.stringify({ type: 'hello', nonce }));
    expect(await reply).toEqual({ type: 'hello', proof: createHmac('sha256', grant.proofKey).update(nonce).digest('base64url') });
    client.ws.close();
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

  it('closes open sockets with "server stopped" when it shuts down, so pages stop reconnecting', async () => {
    const other = await startWsHost(core, {});
    const res = await fetch(`${other.origin}/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code: new URL(other.signInUrl()).searchParams.get('code') }),
    });
    const { session } = (await res.json()) as { session: string };
    const ws = new WebSocket(`ws://127.0.0.1:${other.port}/ws?session=${session}`);
    await new Promise((resolve) => ws.on('open', resolve));
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await other.close();
    expect(await closed).toBe(1001);
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
