#!/usr/bin/env node
// `npm run bench`: performance claims measured in one run and printed as ratios, never asserted in tests.
//
//   1. Study scheduling: the same 8-trial grid on a simulated box with 8 GPUs and with 1 GPU, through the built
//      `servelab run`; the 8-GPU box should take about an eighth of the time (every free slot kept busy). The
//      simulated GPU time dominates (time scale 0.2); what is left is this machine's own work per trial (process
//      starts, SSH-less shell scripts), which a small machine runs only a few at a time.
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
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runUiBench } from './bench-ui.mjs';
import { runDecisionBench } from './decision-bench.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'servelab.js');
const decisionsOnly = process.argv.includes('--decisions-only');
const runsFlag = process.argv.indexOf('--decision-runs');
const decisionRuns = runsFlag >= 0 ? Number(process.argv[runsFlag + 1]) : 40;
if (!decisionsOnly && !existsSync(join(root, 'out', 'main', 'cli.js'))) {
  console.error('bench: build first (npm run build)');
  process.exit(2);
}

/** Runs `servelab run` on a project; returns the seconds of its stages (up to the generalisation pass) and of the whole run. */
function runStudy(project, dataDir, env = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let stageAt = null;
    let generalisationAt = null;
    let stderr = '';
    const child = spawn(process.execPath, [cli, 'run', project, '--quiet'], {
      env: { ...process.env, SERVELAB_DATA_DIR: dataDir, HOME: dataDir, ...env },
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (stageAt === null && /^== (Grid|Stage)/m.test(stderr)) stageAt = Date.now();
      if (generalisationAt === null && /^== Generalisation/m.test(stderr)) generalisationAt = Date.now();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`servelab run exited ${code}:\n${stderr.slice(-3000)}`));
      const end = Date.now();
      resolve({ stagesSeconds: ((generalisationAt ?? end) - (stageAt ?? started)) / 1000, totalSeconds: (end - started) / 1000 });
    });
  });
}

function gridStudy(gpuCount) {
  const values = [32, 48, 64, 96, 128, 192, 256];
  return {
    schemaVersion: 1,
    study: {
      name: `Scheduling bench, ${gpuCount} GPU${gpuCount > 1 ? 's' : ''}`,
      model: { id: 'Qwen/Qwen3-8B' },
      hosts: [{ hostId: 'demo-lab' }],
      demoLab: { gpu: 'h100', count: gpuCount },
      goal: { kind: 'throughput' },
      engines: [{ engine: 'vllm', version: '0.11.0' }],
      stages: [
        {
          id: 'max-seqs',
          label: 'Max running requests',
          candidates: values.map((v) => ({ id: `seqs-${v}`, label: `--max-num-seqs ${v}`, config: { maxRunningRequests: v } })),
        },
      ],
      // Prefill-heavy and short: the time is the simulated GPU's (sleeps), not this machine's CPU streaming tokens.
      workloads: { primary: { id: 'random-8000-16', dataset: { kind: 'random', inputLen: 8000, outputLen: 16 }, numPrompts: 24, maxConcurrency: 2, seed: 42 } },
      strategy: 'grid',
    },
    state: { status: 'draft', trials: [], decisions: [] },
  };
}

const work = mkdtempSync(join(tmpdir(), 'servelab-bench-'));
try {
  if (decisionsOnly) {
    await runDecisionBench(root, work, decisionRuns);
    process.exit(0);
  }
  console.log('Study scheduling: an 8-trial grid (vLLM, 8 values of --max-num-seqs) on the demo lab');
  const results = {};
  for (const gpus of [1, 8]) {
    const project = join(work, `grid-${gpus}.servelab`);
    writeFileSync(project, JSON.stringify(gridStudy(gpus)));
    const dataDir = join(work, `data-${gpus}`);
    const r = await runStudy(project, dataDir, { SERVELAB_SIMBOX_TIME_SCALE: '0.2' });
    results[gpus] = r;
    console.log(`  ${gpus} GPU${gpus > 1 ? 's' : ' '}: the 8 grid trials ${r.stagesSeconds.toFixed(1)} s (whole run, with setup and the generalisation pass, ${r.totalSeconds.toFixed(1)} s)`);
  }
  const speedup = results[1].stagesSeconds / results[8].stagesSeconds;
  console.log(`  speed-up of 8 GPUs over 1 on the grid: ${speedup.toFixed(2)}× (ideal 8×)`);

  await runUiBench(root, work);

  await runDecisionBench(root, work, decisionRuns);

  if (process.argv.includes('--examples')) {
    console.log('Example studies on the demo lab at the default time scale');
    for (const name of ['qwen3-8b-latency-h100', 'qwen3-32b-throughput-a100']) {
      const project = join(work, `${name}.servelab`);
      copyFileSync(join(root, 'examples', `${name}.servelab`), project);
      const r = await runStudy(project, join(work, `data-${name}`));
      console.log(`  ${name}: ${r.totalSeconds.toFixed(1)} s including engine installs`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
