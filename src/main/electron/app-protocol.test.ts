import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APP_CSP, APP_INDEX_URL, appFilePath, appProtocolResponse } from './app-protocol';

let dir: string;
let renderer: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'servelab-app-protocol-'));
  renderer = join(dir, 'renderer');
  mkdirSync(join(renderer, 'assets'), { recursive: true });
  writeFileSync(join(renderer, 'index.html'), '<!doctype html><title>Servelab</title>');
  writeFileSync(join(renderer, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(dir, 'secret.txt'), 'not for the page');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the app:// protocol (M3, L1)', () => {
  it('serves the built page and its assets with the CSP header, where self is app://servelab only', async () => {
    const page = await appProtocolResponse(renderer, APP_INDEX_URL);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toBe(APP_CSP);
    expect(await page.text()).toContain('<title>Servelab</title>');
    const script = await appProtocolResponse(renderer, 'app://servelab/assets/app.js');
    expect(script.headers.get('content-type')).toContain('javascript');
  });

  it('gives the Electron page no WebSocket allowance: it talks to the core over IPC', () => {
    expect(APP_CSP).toContain("connect-src 'self';");
    expect(APP_CSP).not.toContain('ws:');
    expect(APP_CSP).toContain("frame-ancestors 'none'");
  });

  it('serves nothing outside out/renderer and nothing for another host', async () => {
    for (const url of ['app://servelab/../secret.txt', 'app://servelab/%2e%2e/secret.txt', 'app://servelab/..%2fsecret.txt', 'app://servelab/a%00.js', 'app://other/index.html', 'file:///etc/passwd', 'app://servelab/missing.js']) {
      expect((await appProtocolResponse(renderer, url)).status, url).toBe(404);
    }
    expect(appFilePath(renderer, 'app://servelab/')).toBe(join(renderer, 'index.html'));
  });
});
