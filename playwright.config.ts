import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './scripts/chromium-args.mjs';

// The real renderer (out/renderer, built by `electron-vite build`) in Debian's Chromium against the real
// headless core, which the fixtures in tests/e2e start per worker.
const ALONE = /studies\.spec\.ts$/;

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results/',
  reporter: 'list',
  // Each worker has its own sshd and lab, and each test its own core: the specs mostly wait on the simulated box and
  // sshd (a third of a core on average), so two files at a time shorten the run on two cores.
  workers: 2,
  fullyParallel: false,
  projects: [
    { name: 'e2e', testIgnore: ALONE },
    // The demo-lab study decides between engines a few percent apart at a fast time scale, where another spec's CPU
    // load can change its decision: it runs alone, after the rest (npm run test:e2e runs it even when one of them
    // failed; its own folder, so that run does not clear the first one's results).
    { name: 'e2e-alone', testMatch: ALONE, dependencies: ['e2e'], outputDir: 'test-results/alone/' },
  ],
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
