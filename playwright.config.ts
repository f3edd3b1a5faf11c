import { defineConfig } from '@playwright/test';

// The real renderer (out/renderer, built by `electron-vite build`) in Debian's Chromium against the real
// headless core, which the fixtures in tests/e2e start per worker.
export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results/',
  reporter: 'list',
  workers: 1,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
    viewport: { width: 1280, height: 860 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
});
