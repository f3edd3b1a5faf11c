import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { runServe } from './serve';

let dir: string;
let argvFile: string;
let openPage: string | undefined;
let stdout = '';
const stop = new AbortController();
let exited: Promise<number>;
const savedPath = process.env.PATH;

/** Resolves with the HTTP status of a refused upgrade, or 101 when the socket opened. */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

/** One call over the page's socket, answered with its envelope. */
function callOver(url: string, name: string, input: unknown = {}): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'call', id: 1, name, input })));
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; id?: number; envelope?: unknown };
      if (message.type !== 'result' || message.id !== 1) return;
      ws.close();
      resolve(message.envelope);
    });
    ws.on('error', reject);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'servelab-serve-'));
  const renderer = join(dir, 'renderer');
  mkdirSync(renderer);
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Servelab</title>');
  // A stand-in for the desktop's URL opener that records its command line, as /proc/<pid>/cmdline shows it to every user.
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  argvFile = join(dir, 'opener-argv');
  for (const name of ['xdg-open', 'open']) {
    writeFileSync(join(bin, name), `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}'\n`);
    chmodSync(join(bin, name), 0o755);
  }
  process.env.PATH = `${bin}:${savedPath ?? ''}`;
  exited = runServe(
    ['--open', '--port', '0', '--data-dir', join(dir, 'data'), '--no-user-known-hosts', 'studies/launch.servelab'],
    { stdout: (text) => (stdout += text), stderr: () => {}, env: { ...process.env, HOME: dir }, cwd: dir },
    renderer,
    stop.signal,
  );
  for (let waited = 0; !(existsSync(argvFile) && readFileSync(argvFile, 'utf8').includes('\n')); waited += 50) {
    if (waited > 15_000) throw new Error(`the opener was not run; serve printed:\n${stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

afterAll(async () => {
  stop.abort();
  await exited;
  // The forwarding page does not outlive serve (nor its 30 s).
  expect(openPage !== undefined && existsSync(openPage)).toBe(false);
  process.env.PATH = savedPath;
  rmSync(dir, { recursive: true, force: true });
});

describe('servelab serve', () => {
  it('refuses a file that is not a project, naming it', async () => {
    let stderr = '';
    const code = await runServe(['notes.txt'], { stdout: () => {}, stderr: (text) => (stderr += text), env: {}, cwd: dir }, join(dir, 'renderer'));
    expect(code).toBe(2);
    expect(stderr).toMatch(/^Not a project file \(a project's name ends with \.servelab\): notes\.txt/);
  });
});

describe('servelab serve --open', () => {
  it('puts no secret on the opener command line', async () => {
    const argv = readFileSync(argvFile, 'utf8').trim();
    // The opener gets a page only this user can read, which forwards to the sign-in address.
    const pageUrl = new URL(argv);
    expect(pageUrl.protocol).toBe('file:');
    expect(pageUrl.search + pageUrl.hash).toBe('');
    const page = fileURLToPath(pageUrl);
    openPage = page;
    expect(statSync(page).mode & 0o077).toBe(0);
    expect(statSync(dirname(page)).mode & 0o077).toBe(0);
    const forwarded = /http-equiv="refresh" content="0;url=([^"]+)"/.exec(readFileSync(page, 'utf8'))?.[1];
    expect(forwarded).toBeDefined();
    const opened = new URL(forwarded!.replace(/&amp;/g, '&'));
    expect(opened.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ws = `ws://127.0.0.1:${opened.port}/ws`;
    // Nothing of the command line opens the core, whatever it is tried as.
    for (const value of [argv, page]) {
      expect(await upgradeStatus(`${ws}?token=${encodeURIComponent(value)}`)).toBe(401);
      expect(await upgradeStatus(`${ws}?session=${encodeURIComponent(value)}`)).toBe(401);
    }
    // What the page forwards to is a sign-in code: it gives one browser tab a session, once.
    const code = opened.searchParams.get('code');
    expect(code).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    const signIn = () =>
      fetch(`${opened.origin}/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ code }) });
    const first = await signIn();
    expect(first.status).toBe(200);
    const { session } = (await first.json()) as { session: string };
    // The session opens the socket; the project named on the command line waits there for the page, resolved
    // against serve's working folder.
    expect(await callOver(`${ws}?session=${encodeURIComponent(session)}`, 'app:openRequests')).toEqual({ ok: true, data: { paths: [join(dir, 'studies/launch.servelab')] } });
    expect((await signIn()).status).toBe(409);
    // The address printed in the terminal is a different code: stdout is not readable by other users.
    const printed = /Servelab UI: (\S+)/.exec(stdout)?.[1];
    expect(printed).toBeDefined();
    expect(new URL(printed!).searchParams.get('code')).not.toBe(code);
  });
});
