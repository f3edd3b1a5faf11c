// A screenshot walk through every page of the workbench, as a newcomer meets it: the real renderer (out/renderer,
// from `npx electron-vite build`) against the real core (`servelab serve`, own data folder and HOME) in Debian's
// Chromium. It runs the example latency study on the demo lab (at a fast simulated time scale) so the study pages have
// content, then shoots each page in English and Turkish, light and dark, at 1280×800 and 1920×1080, plus one shot of
// the whole scrolled page at 1280 wide. Run by hand, not part of `npm test`; it asserts nothing, it only shows.
//
//   node scripts/ui-tour.mjs [--out DIR] [--lang en,tr] [--scale 0.002]
//
// Prints where it wrote the screenshots (default /tmp/ui-tour/<lang>/<name>-<size>-<theme>.png).
/* global document, getComputedStyle -- the functions given to page.evaluate run in the page */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium-args.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: {
    out: { type: 'string', default: join(tmpdir(), 'ui-tour') },
    lang: { type: 'string', default: 'en,tr' },
    scale: { type: 'string', default: '0.002' },
  },
});
const SIZES = [
  { name: '1280', width: 1280, height: 800 },
  { name: '1920', width: 1920, height: 1080 },
];
const THEMES = ['light', 'dark'];
// The example latency study (examples/qwen3-8b-latency-h100.servelab), by the name it gives itself.
const EXAMPLE_NAME = 'Qwen3-8B, lowest latency on one H100';
const PRINTED_RESULTS = ['qwen3-8b_h100_vllm-0.11.0_sharegpt_c4.txt', 'qwen3-8b-fp8_h100_sglang-0.5.3_flashinfer_sharegpt_c4.txt'].map((file) =>
  join(root, 'tests/fixtures/vllm-bench-text', file),
);

// ---- the renderer's own words, so the walk finds its buttons in either language ----

/** `'key': 'text'` pairs of one language's catalogue files; enough for the plain strings the walk clicks. */
function catalogue(lang) {
  const dir = join(root, 'src/renderer/src/i18n', lang);
  const messages = new Map();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.ts'))) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const [, key, value] of text.matchAll(/'([\w.-]+)':\s*'((?:[^'\\]|\\.)*)'/g)) messages.set(key, value.replace(/\\'/g, "'"));
  }
  return messages;
}

function wordsOf(lang) {
  const messages = catalogue(lang);
  return (key, vars = {}) => {
    const text = messages.get(key);
    if (text === undefined) throw new Error(`no message ${key} in ${lang}`);
    return text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name] ?? `{${name}}`));
  };
}

// ---- the core ----

async function startCore(work) {
  const dataDir = join(work, 'data');
  const home = join(work, 'home');
  await mkdir(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  const { SSH_AUTH_SOCK: _agent, ...env } = process.env;
  const child = spawn(process.execPath, [join(root, 'bin/servelab.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--no-user-known-hosts'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, HOME: home, SERVELAB_SIMBOX_TIME_SCALE: options.scale },
  });
  let output = '';
  const pageUrl = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`servelab serve printed no address within 30 s:\n${output}`)), 30_000);
    const onData = (chunk) => {
      output += chunk.toString();
      const match = /Servelab UI: (http:\/\/127\.0\.0\.1:\d+\/\?code=\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`servelab serve exited (${code}):\n${output}`));
    });
  });
  return { child, pageUrl, dataDir };
}

// ---- an SSH box, for the host key question and the passphrase prompt ----

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * OpenSSH's sshd on 127.0.0.1 with its own host key, taking one passphrase-protected key of the current user: reading
 * it asks about the host key, then for the passphrase. Null when sshd is not installed (those shots are then left out).
 */
async function startSshd(work) {
  if (!existsSync('/usr/sbin/sshd')) return null;
  const dir = join(work, 'sshd');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const keygen = (path, passphrase) => spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'servelab-ui-tour', '-f', path]);
  keygen(join(dir, 'host_key'), '');
  keygen(join(dir, 'id_tour'), 'tour passphrase');
  await writeFile(join(dir, 'authorized_keys'), readFileSync(join(dir, 'id_tour.pub')));
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PidFile none',
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      '',
    ].join('\n'),
  );
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise((resolve) => {
    let log = '';
    const timer = setTimeout(resolve, 5000);
    child.stderr.on('data', (chunk) => {
      log += chunk.toString();
      if (log.includes('Server listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { child, port, identityFile: join(dir, 'id_tour') };
}

// ---- shooting ----

function shooter(page, dir) {
  const written = [];
  async function setTheme(theme) {
    await page.evaluate((value) => {
      document.documentElement.dataset.theme = value;
      document.documentElement.style.colorScheme = value;
    }, theme);
  }
  /** One state of the page: every size and theme, then the whole scrolled content at 1280 wide in both themes. */
  async function shoot(name) {
    await page.waitForTimeout(300); // lets a chart or a transition settle; the tour asserts nothing about time
    await page.evaluate(() => document.querySelector('.content')?.scrollTo(0, 0));
    for (const size of SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      for (const theme of THEMES) {
        await setTheme(theme);
        const path = join(dir, `${name}-${size.name}-${theme}.png`);
        await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
        written.push(path);
      }
    }
    const scrollHeight = await page.evaluate(() => document.querySelector('.content')?.scrollHeight ?? 0);
    await page.setViewportSize({ width: 1280, height: 800 });
    if (scrollHeight > 800) {
      await page.setViewportSize({ width: 1280, height: Math.min(scrollHeight + 40, 6000) });
      for (const theme of THEMES) {
        await setTheme(theme);
        const path = join(dir, `${name}-1280full-${theme}.png`);
        await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
        written.push(path);
      }
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await setTheme('light');
  }
  return { shoot, written };
}

/**
 * Tabs through the page (up to `stops` times) and prints each focused element that shows no focus ring: neither an
 * outline nor a box shadow while it has focus. Printed, not asserted, like the screenshots.
 */
async function checkFocusRings(page, name, stops = 150) {
  await page.evaluate(() => {
    for (const el of document.querySelectorAll('[data-tour-focus]')) el.removeAttribute('data-tour-focus');
    document.activeElement?.blur?.();
    document.querySelector('.content')?.scrollTo(0, 0);
  });
  const missing = new Set();
  const seen = new Set();
  for (let i = 0; i < stops; i++) {
    await page.keyboard.press('Tab');
    const found = await page.evaluate(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      // Around once when an element comes back (marked while the walk is on this page; the next check clears it).
      const again = el.hasAttribute('data-tour-focus');
      el.setAttribute('data-tour-focus', '');
      const style = getComputedStyle(el);
      const ring = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
      const label = el.getAttribute('aria-label') || el.textContent?.trim().slice(0, 40) || el.getAttribute('name') || '';
      return { again, id: `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).trim().split(/\s+/).join('.')}` : ''} “${label}”`, ring };
    });
    if (!found) continue;
    if (found.again) break;
    seen.add(found.id);
    if (!found.ring) missing.add(found.id);
  }
  console.log(`  focus rings on ${name}: ${seen.size} controls tabbed through, ${missing.size} without a visible ring`);
  for (const id of missing) console.log(`    ${id}`);
}

/** Runs a step of the walk; a step that fails is reported and the walk goes on with the next. */
async function step(label, body) {
  try {
    await body();
  } catch (error) {
    console.log(`  ! ${label}: ${String(error?.message ?? error).split('\n')[0]}`);
  }
}

// ---- the walk ----

async function walk(page, lang, core, shoot) {
  const m = wordsOf(lang);
  const nav = (key) => page.getByRole('navigation', { name: m('nav.label') }).getByRole('button', { name: m(key) });
  const tab = (key) => page.getByRole('tab', { name: m(key) });
  const long = { timeout: 600_000 }; // a study run on a busy machine

  // The sign-in code signs in one tab once; the tab keeps its session across reloads.
  if (page.url() === 'about:blank') await page.goto(core.pageUrl);
  await page.evaluate((value) => localStorage.setItem('servelab.locale', value), lang);
  await page.reload();
  await nav('nav.hosts').waitFor();

  await step('Hosts and the getting-started guide', async () => {
    await shoot('01-hosts-welcome');
    if (lang === 'en') await checkFocusRings(page, 'Hosts');
    const card = page.getByRole('article').first();
    await card.getByRole('button', { name: new RegExp(`^${m('host.readInventory')}`) }).click();
    await page.waitForTimeout(4000);
    await shoot('02-hosts-inventory');
  });

  await step('An SSH host: its host key and the passphrase prompt', async () => {
    if (!core.sshd) return;
    const label = 'lab-box';
    const card = page.getByRole('article', { name: label, exact: true });
    if (lang === 'en') {
      const form = page.locator('form').filter({ has: page.getByRole('button', { name: m('addHost.submit'), exact: true }) });
      await form.getByLabel(m('hostForm.label')).fill(label);
      await form.getByLabel(m('hostForm.address')).fill('127.0.0.1');
      await form.getByLabel(m('hostForm.port')).fill(String(core.sshd.port));
      await form.getByLabel(m('hostForm.identityFile')).fill(core.sshd.identityFile);
      await form.getByRole('button', { name: m('addHost.submit'), exact: true }).click();
    }
    await card.getByRole('button', { name: m('host.readInventoryOf', { label }), exact: true }).click();
    if (lang === 'en') {
      const question = page.getByRole('dialog', { name: m('hostKey.title'), exact: true });
      await question.waitFor({ timeout: 30_000 });
      await shoot('03-hosts-host-key');
      await question.getByRole('button', { name: m('hostKey.accept'), exact: true }).click();
    }
    const prompt = page.getByRole('dialog').filter({ has: page.locator('input[type=password]') });
    await prompt.waitFor({ timeout: 30_000 });
    await shoot('03-prompt-passphrase');
    // Left unanswered, so the next language is asked again.
    await prompt.getByRole('button', { name: m('prompt.cancel'), exact: true }).click();
    await page.waitForTimeout(1500);
    await shoot('03-hosts-ssh-cancelled');
  });

  await step('Engines', async () => {
    await nav('nav.engines').click();
    await shoot('04-engines');
    if (lang === 'en') await checkFocusRings(page, 'Engines');
    if (lang !== 'en') return; // installing and launching once is enough; the Turkish walk sees the server running
    const install = page.getByRole('region', { name: m('engines.install.title') });
    await install.getByLabel(m('engines.field.engine'), { exact: true }).selectOption('vllm');
    await install.getByRole('button', { name: m('engines.install.submit') }).click();
    const launch = page.getByRole('region', { name: m('engines.launch.title') });
    await launch.getByRole('button', { name: m('engines.launch.submit') }).waitFor();
    await page.waitForFunction(() => !document.querySelector('[data-testid="install-running"]'), null, { timeout: 120_000 }).catch(() => {});
    await page.waitForTimeout(3000);
    await launch.getByRole('button', { name: m('engines.launch.submit') }).click();
    await launch.getByTestId('server-state').filter({ hasText: m('engines.server.state.ready') }).waitFor({ timeout: 120_000 });
    const bench = page.getByRole('region', { name: m('bench.title') });
    await bench.getByRole('button', { name: m('bench.run') }).click();
    await shoot('04-engines-benchmark-running');
    await bench.getByRole('group', { name: m('bench.summaryLabel') }).waitFor({ timeout: 180_000 });
    await shoot('05-engines-server');
    // A launched server outlives the core (it is a job on the box): stop it, or it keeps running after the tour.
    await launch.getByRole('button', { name: m('engines.server.stop'), exact: true }).click();
    await launch.getByTestId('server-state').filter({ hasNotText: m('engines.server.state.ready') }).waitFor();
  });

  await step('Results and Compare', async () => {
    await nav('nav.results').click();
    if (lang === 'en') await page.getByLabel(m('results.import.input')).setInputFiles(PRINTED_RESULTS);
    await page.getByRole('table', { name: m('results.tableLabel') }).waitFor();
    await shoot('06-results');
    if (lang === 'en') await checkFocusRings(page, 'Results');
    const boxes = page.getByRole('table', { name: m('results.tableLabel') }).locator('tbody').getByRole('checkbox');
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    await page.getByRole('button', { name: m('compare.results.button', { count: 2 }) }).click();
    await page.getByRole('dialog').waitFor();
    await shoot('07-compare');
    await page.keyboard.press('Escape');
    await page.getByRole('table', { name: m('results.tableLabel') }).getByRole('button', { name: new RegExp(`^${m('results.open', { title: '' })}`) }).first().click();
    await shoot('08-result-details');
  });

  await step('Studies: the list and New from example', async () => {
    await nav('nav.studies').click();
    await page.getByRole('heading', { level: 1, name: m('studies.title') }).waitFor();
    await shoot('10-studies');
    if (lang === 'en') await checkFocusRings(page, 'Studies');
    if (lang !== 'en') return;
    await page.getByRole('button', { name: m('studies.examples.useNamed', { name: EXAMPLE_NAME }) }).click();
    await page.getByRole('dialog').waitFor();
    await shoot('11-studies-example-dialog');
    await page.getByRole('dialog').getByRole('button', { name: m('studies.example.submit') }).click();
    await tab('studies.tab.plan').waitFor();
  });

  if (lang !== 'en') {
    await step('Studies: reopen the example from Recent', async () => {
      await page.getByRole('button', { name: new RegExp(`^${m('studies.recent.openNamed', { name: '' })}`) }).first().click();
      await tab('studies.tab.plan').click();
    });
  }

  await step('Study plan', async () => {
    await page.getByRole('table', { name: m('studies.plan.tableLabel') }).locator('tbody tr').first().waitFor({ timeout: 60_000 });
    await shoot('12-study-plan');
  });

  if (lang === 'en') {
    await step('Study run', async () => {
      await page.getByRole('button', { name: m('studies.run'), exact: true }).click();
      await page.getByRole('log').first().locator('.log-line').first().waitFor({ timeout: 60_000 });
      await page.waitForTimeout(3000);
      await shoot('13-study-running');
      await page.getByTestId('study-status').filter({ hasText: m('studies.status.done') }).waitFor(long);
    });
  }

  await step('Study run monitor, done', async () => {
    await tab('studies.tab.run').click();
    await shoot('14-study-run-done');
    if (lang === 'en') await checkFocusRings(page, 'Run monitor');
    await page.locator('.study-trial').first().click();
    await page.waitForTimeout(1000);
    await shoot('15-study-trial-logs');
  });
  await step('Study results', async () => {
    await tab('studies.tab.results').click();
    await shoot('16-study-results');
  });
  await step('Study recommendation', async () => {
    await tab('studies.tab.recommendation').click();
    await shoot('17-study-recommendation');
  });
  await step('Study report', async () => {
    await tab('studies.tab.report').click();
    await shoot('18-study-report');
  });

  await step('Study wizard', async () => {
    await page.getByRole('button', { name: m('studies.back') }).click();
    await page.getByRole('button', { name: m('studies.new'), exact: true }).click();
    const wizard = page.getByRole('region', { name: m('studies.new') });
    const next = wizard.getByRole('button', { name: m('wizard.next') });
    await shoot('20-wizard-1-model-empty');
    await wizard.getByLabel(m('wizard.model.id'), { exact: true }).fill('Qwen/Qwen3-8B');
    await shoot('21-wizard-1-model');
    if (lang === 'en') await checkFocusRings(page, 'Wizard');
    await next.click();
    await shoot('22-wizard-2-hardware-empty');
    await wizard.getByRole('checkbox').first().check();
    await shoot('23-wizard-2-hardware');
    await next.click();
    await shoot('24-wizard-3-goal');
    await next.click();
    await shoot('25-wizard-4-engines-empty');
    await wizard.getByRole('checkbox').first().check();
    await wizard.getByRole('checkbox').nth(1).check().catch(() => {});
    await shoot('26-wizard-4-engines');
    await next.click();
    await shoot('27-wizard-5-stages');
    await next.click();
    await shoot('28-wizard-6-workloads');
    await next.click();
    await shoot('29-wizard-7-strategy');
    await next.click();
    await shoot('30-wizard-8-review');
  });
}

// ---- main ----

const outDir = options.out;
if (!existsSync(join(root, 'out/renderer/index.html'))) {
  console.error('No built renderer in out/renderer: run `npx electron-vite build` first.');
  process.exit(1);
}
const work = await mkdtemp(join(tmpdir(), 'servelab-ui-tour-'));
const core = await startCore(work);
core.sshd = await startSshd(work);
// Interrupted, the core still stops: it ends what it started on the demo lab.
for (const signal of ['SIGINT', 'SIGTERM'])
  process.once(signal, () => {
    core.sshd?.child.kill('SIGTERM');
    core.child.kill('SIGTERM');
  });
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const written = [];
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('pageerror', (error) => console.log(`  page error: ${error.message}`));
  for (const lang of options.lang.split(',')) {
    const dir = join(outDir, lang);
    await mkdir(dir, { recursive: true });
    console.log(`Walking the workbench in ${lang}…`);
    const { shoot, written: shots } = shooter(page, dir);
    await walk(page, lang, core, shoot);
    written.push(...shots);
  }
} finally {
  await browser.close();
  core.sshd?.child.kill('SIGTERM');
  core.child.kill('SIGTERM');
  await new Promise((resolve) => core.child.once('exit', resolve));
  await rm(work, { recursive: true, force: true });
}
console.log(`Wrote ${written.length} screenshots to ${outDir}/<lang>/`);
