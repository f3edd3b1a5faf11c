#!/usr/bin/env node
// `npm run bench`: performance claims measured in one run and printed as ratios, never asserted in tests.
//
//   1. Study scheduling and the core (scripts/bench-study.mjs): the same 8-trial grid through the built `servelab run`
//      on the demo lab as 1 GPU, 8 GPUs and two boxes of 4 GPUs, at a time scale where the simulated GPU time
//      dominates (checked and printed: this machine's CPU per trial beside the trial's wall time). Prints each
//      figure with its goal: wall time ÷ ideal, the speed-ups, the core's CPU and peak RSS, launches ÷ distinct
//      server configurations with the journalled reason of every relaunch, and `servelab import` of 1,000 real
//      result files. `--study-only` runs only this part; `--study-time-scale S` tries another scale.
//   2. UI (scripts/bench-ui.mjs): the renderer's real components in Chromium — a log pane ingesting 10,000
//      lines/s for 10 s (frame times, lines lost), a 10,000-trial results table (first render, scroll frames) and
//      a 2,000-point chart (render time).
//   3. Decision accuracy (scripts/decision-bench.mjs): seeded virtual runs of the example studies and of the bench's
//      own stress case (vLLM at concurrency 2: large run-to-run noise, candidates a few percent apart; 100 seeds),
//      today's rule against the interval rule, right answers and GPU time side by side. `--decision-runs N` (seeds
//      per example, default 40; about two minutes in all on two cores); `--decisions-only` runs only
//      this part (no build needed).
//   4. With --examples: the two example studies on the demo lab at the demo's default time scale (each is meant
//      to finish in about two minutes).
//
// Needs the built CLI (`npm run build`, which `npm run bench` does first).
import { existsSync, mkdtempSync, rmSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runUiBench } from './bench-ui.mjs';
import { runDecisionBench } from './decision-bench.mjs';
import { measuredRun, runStudyBench } from './bench-study.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const decisionsOnly = process.argv.includes('--decisions-only');
const runsFlag = process.argv.indexOf('--decision-runs');
const decisionRuns = runsFlag >= 0 ? Number(process.argv[runsFlag + 1]) : 40;
const studyOnly = process.argv.includes('--study-only');
const scaleFlag = process.argv.indexOf('--study-time-scale');
if (!decisionsOnly && !existsSync(join(root, 'out', 'main', 'cli.js'))) {
  console.error('bench: build first (npm run build)');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'servelab-bench-'));
// Each part is skipped rather than the process ended early, so the temp folder is always removed below.
try {
  if (!decisionsOnly) await runStudyBench(root, work, scaleFlag >= 0 ? { timeScale: Number(process.argv[scaleFlag + 1]) } : {});

  if (!decisionsOnly && !studyOnly) await runUiBench(root, work);

  if (!studyOnly) await runDecisionBench(root, work, decisionRuns);

  if (!decisionsOnly && !studyOnly && process.argv.includes('--examples')) {
    console.log('Example studies on the demo lab at the default time scale');
    for (const name of ['qwen3-8b-latency-h100', 'qwen3-32b-throughput-a100']) {
      const project = join(work, `${name}.servelab`);
      copyFileSync(join(root, 'examples', `${name}.servelab`), project);
      const r = await measuredRun(root, project, join(work, `data-${name}`));
      console.log(`  ${name}: ${r.totalSeconds.toFixed(1)} s including engine installs`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
