// The UI part of `npm run bench`: the renderer's real components on a bench page (perf/ui), built with vite into
// a temporary folder, served on 127.0.0.1 and driven in Debian's Chromium. Prints frame times and counts; asserts
// nothing about time.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
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

function table(rows) {
  const widths = [0, 1].map((c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map(([a, b]) => `    ${a.padEnd(widths[0])}  ${b}`).join('\n');
}

/** Builds the bench page, runs its three measurements in Chromium and prints them. */
export async function runUiBench(root, work) {
  const outDir = join(work, 'ui');
  console.log('UI: the renderer’s components in Chromium (perf/ui, production build)');
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
          ['main-thread frame time p50 / p95 / max', `${ms(ingest.frames.p50)} / ${ms(ingest.frames.p95)} / ${ms(ingest.frames.max)} (${ingest.frames.frames} frames)`],
          ['long tasks (> 50 ms)', `${ingest.frames.longTasks}, ${ms(ingest.frames.longTaskMs)} in all`],
          ['lines held / dropped', `${ingest.linesHeld.toLocaleString('en')} / ${ingest.lostLines} (evicted by the buffer: ${ingest.droppedByBuffer})`],
          ['last line shown is the last line fed', lastOk ? 'yes' : `NO: shown ${JSON.stringify(ingest.lastLinesShown)}, fed “${ingest.lastLineFed}”`],
          ['row elements in the pane(s)', String(ingest.rowsInDom)],
        ]),
      );
    }

    const results = await page.evaluate(() => globalThis.servelabBench.resultsTable({ trials: 10_000, scrollFrames: 240 }));
    console.log(`  Study results table with ${results.trials.toLocaleString('en')} trials (ResultsTab)`);
    console.log(
      table([
        ['time to first render (commit / first frame)', `${ms(results.commitMs)} / ${ms(results.firstFrameMs)}`],
        ['scroll frame time p50 / p95 / max', `${ms(results.frames.p50)} / ${ms(results.frames.p95)} / ${ms(results.frames.max)} (${results.frames.frames} frames, ${Math.round(results.scrolledPx / results.frames.frames)} px a frame, top to bottom)`],
        ['long tasks while scrolling', `${results.frames.longTasks}, ${ms(results.frames.longTaskMs)} in all`],
        ['row elements in the table', String(results.rowsInDom)],
      ]),
    );

    const chart = await page.evaluate(() => globalThis.servelabBench.chart({ points: 2000 }));
    console.log(`  Latency–throughput chart with ${chart.points.toLocaleString('en')} points (EChart + curveOption)`);
    console.log(table([['render time (commit / first frame)', `${ms(chart.commitMs)} / ${ms(chart.firstFrameMs)}`]]));
    if (errors.length > 0) console.log(`  page errors: ${errors.join('; ')}`);
  } finally {
    await browser.close();
    server.close();
  }
}
