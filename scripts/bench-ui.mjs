// The UI part of `npm run bench`: the renderer's real components on a bench page (perf/ui), built with vite into
// a temporary folder, served on 127.0.0.1 and driven in Debian's Chromium; then the built renderer (out/renderer):
// its chunks, and the JavaScript its first page fetches from `servelab serve`. Prints each figure beside its goal;
// asserts nothing about time.
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium-args.mjs';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.json': 'application/json' };


async function buildPage(root, outDir) {
  const { build } = await import('vite');
  const { default: react } = await import('@vitejs/plugin-react');
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  await build({
    configFile: false,
    root: join(root, 'perf', 'ui'),
    base: './',
    logLevel: 'warn',
    plugins: [react()],
    define: { __SERVELAB_VERSION__: JSON.stringify(version) },
    build: { outDir, emptyOutDir: true, minify: true, reportCompressedSize: false, chunkSizeWarningLimit: 8000 },
  });
}

function serve(dir) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^([/\\])+/, '');
    const file = join(dir, path === '' ? 'index.html' : path);
    if (!file.startsWith(dir + sep) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const ms = (n) => `${n.toFixed(1)} ms`;
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/** The goals the figures are read against (README, bench paragraph), printed beside them. */
const GOALS = { tableFirstFrameMs: 300, frameMs: 16.7, chartDrawnMs: 100, chunkBytes: 500_000 };
const goal = (text, met, target) => `${text}   goal ${target}${met ? '' : ' — not met'}`;
/**
 * rAF deltas are whole 60 Hz frames give or take the timer's jitter (16.6–16.8 ms, then 33.3 ms): a p95 of one frame
 * meets "≤ 16.7 ms", a dropped frame does not.
 */
const withinOneFrame = (p95) => p95 < GOALS.frameMs * 1.5;

/**
 * Starts the built `servelab serve` with a throwaway data folder; resolves with its sign-in address and a stop
 * function. Only 127.0.0.1; no user known_hosts, no ssh config of the user's.
 */
async function startServe(root, work) {
  const home = join(work, 'serve-home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const child = spawn(
    process.execPath,
    [join(root, 'bin', 'servelab.js'), 'serve', '--port', '0', '--data-dir', join(home, 'data'), '--no-user-known-hosts', '--ssh-config', join(home, '.ssh', 'config')],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: home, SERVELAB_DATA_DIR: join(home, 'data') } },
  );
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`servelab serve printed no address within 20 s:\n${output}`)), 20_000);
    const onData = (chunk) => {
      output += chunk;
      const match = /Servelab UI: (http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`servelab serve exited (${code}) before printing its address:\n${output}`));
    });
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  return { url, stop };
}

/**
 * The built renderer (out/renderer, from `electron-vite build`): every chunk's size, and the JavaScript the first
 * page (Hosts) fetches when opened in Chromium from `servelab serve`.
 */
async function measureBundle(root, work, browser) {
  const assets = join(root, 'out', 'renderer', 'assets');
  if (!existsSync(assets)) {
    console.log('  Renderer bundle: not built (run electron-vite build first)');
    return;
  }
  const chunks = readdirSync(assets)
    .filter((name) => name.endsWith('.js'))
    .map((name) => ({ name, bytes: statSync(join(assets, name)).size }))
    .sort((a, b) => b.bytes - a.bytes);
  const serve = await startServe(root, work);
  const fetched = new Map();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('response', async (response) => {
      if (response.request().resourceType() !== 'script') return;
      const body = await response.body().catch(() => null);
      if (body) fetched.set(new URL(response.url()).pathname.split('/').pop(), body.length);
    });
    await page.goto(serve.url);
    await page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    await page.close();
  } finally {
    await serve.stop();
  }
  const largest = chunks[0]?.bytes ?? 0;
  const firstBytes = [...fetched.values()].reduce((a, b) => a + b, 0);
  const total = chunks.reduce((a, c) => a + c.bytes, 0);
  console.log(`  Renderer bundle (out/renderer, ${chunks.length} JS chunks, ${kB(total)} in all; * = fetched by the first page)`);
  console.log(table(chunks.map((c) => [`${fetched.has(c.name) ? '*' : ' '} ${c.name}`, kB(c.bytes)])));
  console.log(
    table([
      ['largest chunk', goal(kB(largest), largest <= GOALS.chunkBytes, `≤ ${kB(GOALS.chunkBytes)}`)],
      ['JavaScript the first page (Hosts) fetches', `${kB(firstBytes)} in ${fetched.size} files (${Math.round((100 * firstBytes) / total)} % of the bundle)`],
    ]),
  );
}

function table(rows) {
  const widths = [0, 1].map((c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map(([a, b]) => `    ${a.padEnd(widths[0])}  ${b}`).join('\n');
}

/** Builds the bench page, runs its three measurements in Chromium and prints them. */
export async function runUiBench(root, work) {
  const outDir = join(work, 'ui');
  const { execFileSync } = await import('node:child_process');
  const chromiumVersion = (() => {
    try {
      return execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'Chromium (version unknown)';
    }
  })();
  const { loadavg, cpus } = await import('node:os');
  console.log(`UI: the renderer’s components in ${chromiumVersion} (perf/ui, production build); load ${loadavg().map((n) => n.toFixed(2)).join(' ')} on ${cpus().length} cores`);
  await buildPage(root, outDir);
  const server = await serve(outDir);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
    await page.waitForFunction(() => 'servelabBench' in globalThis, null, { timeout: 30_000 });

    for (const panes of [1, 3]) {
      const ingest = await page.evaluate((n) => globalThis.servelabBench.logIngest({ linesPerSecond: 10_000, seconds: 10, intervalMs: 10, panes: n }), panes);
      const lastOk = ingest.lastLinesShown.every((line) => line === ingest.lastLineFed);
      console.log(
        panes === 1
          ? `  Server log pane ingesting 10,000 lines/s for ${ingest.seconds.toFixed(1)} s: ${ingest.linesFed.toLocaleString('en')} lines in ${ingest.events} servers:log events → store → LogView`
          : `  ${panes} server log panes at 10,000 lines/s each (${ingest.linesFed.toLocaleString('en')} lines, ${ingest.events} events)`,
      );
      console.log(
        table([
          ['main-thread frame time p50 / p95 / max', goal(`${ms(ingest.frames.p50)} / ${ms(ingest.frames.p95)} / ${ms(ingest.frames.max)} (${ingest.frames.frames} frames, ${ingest.frames.slow} longer than one)`, withinOneFrame(ingest.frames.p95), `p95 ≤ ${GOALS.frameMs} ms (one 60 Hz frame)`)],
          ['long tasks (> 50 ms)', `${ingest.frames.longTasks}, ${ms(ingest.frames.longTaskMs)} in all`],
          ['lines held / dropped', goal(`${ingest.linesHeld.toLocaleString('en')} / ${ingest.lostLines} (evicted by the buffer: ${ingest.droppedByBuffer})`, ingest.lostLines === 0, 'none dropped')],
          ['last line shown is the last line fed', lastOk ? 'yes' : `NO: shown ${JSON.stringify(ingest.lastLinesShown)}, fed “${ingest.lastLineFed}”`],
          ['row elements in the pane(s)', String(ingest.rowsInDom)],
        ]),
      );
    }

    const results = await page.evaluate(() => globalThis.servelabBench.resultsTable({ trials: 10_000, scrollFrames: 240 }));
    console.log(`  Study results table with ${results.trials.toLocaleString('en')} trials (ResultsTab)`);
    console.log(
      table([
        ['time to first render (commit / first frame)', goal(`${ms(results.commitMs)} / ${ms(results.firstFrameMs)}`, results.firstFrameMs <= GOALS.tableFirstFrameMs, `≤ ${GOALS.tableFirstFrameMs} ms (first frame)`)],
        ['scroll frame time p50 / p95 / max', goal(`${ms(results.frames.p50)} / ${ms(results.frames.p95)} / ${ms(results.frames.max)} (${results.frames.frames} frames, ${results.frames.slow} longer than one, ${Math.round(results.scrolledPx / results.frames.frames)} px a frame, top to bottom)`, withinOneFrame(results.frames.p95), `p95 ≤ ${GOALS.frameMs} ms (one 60 Hz frame)`)],
        ['long tasks while scrolling', `${results.frames.longTasks}, ${ms(results.frames.longTaskMs)} in all`],
        ['row elements in the table', String(results.rowsInDom)],
      ]),
    );

    const chart = await page.evaluate(() => globalThis.servelabBench.chart({ points: 2000 }));
    console.log(`  Latency–throughput chart with ${chart.points.toLocaleString('en')} points (EChart + curveOption)`);
    console.log(
      table([
        ['render time (commit / first frame)', `${ms(chart.commitMs)} / ${ms(chart.firstFrameMs)}`],
        ['until the chart is painted (echarts loaded, drawn)', goal(ms(chart.drawnMs), chart.drawnMs <= GOALS.chartDrawnMs, `≤ ${GOALS.chartDrawnMs} ms`)],
      ]),
    );
    if (errors.length > 0) console.log(`  page errors: ${errors.join('; ')}`);
    await measureBundle(root, work, browser);
  } finally {
    await browser.close();
    server.close();
  }
}
