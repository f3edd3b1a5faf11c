// Debian's Chromium as the tests and the UI benchmarks drive it: headless, no sandbox (CI runs as root), no GPU,
// and nothing that reaches the network on its own. One list for playwright.config.ts and scripts/bench-ui.mjs.
export const CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
