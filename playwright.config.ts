import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium-args.mjs';

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
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
    viewport: { width: 1280, height: 860 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
});
