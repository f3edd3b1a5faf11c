// The study part of `npm run bench`: the study scheduler and the core, measured through the built `servelab run` on
// the demo lab, at a time scale where the simulated GPU time dominates this machine's own work per trial.
//
// One data folder serves every run, so the engines, the benchmark client and the model's weights are on each
// simulated box before anything is timed (a first study at the fast demo scale puts them there). Then the same
// 8-trial grid runs on one box of 1 GPU, one of 8 GPUs and two boxes of 4 GPUs each, each `servelab run` under
// bench-reaper.py, which reads the core process's own CPU time and peak RSS and the CPU time of everything it
// started. The figures come from each project's journal (bench-study-figures.mjs).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { launchFigures, parseJournal, passFigures } from './bench-study-figures.mjs';

/**
 * Simulated seconds per real-GPU second. At 0.8 a trial (a vLLM launch, about 43 s on a real H100, a warm-up and a
 * measured run) holds its GPU about 75 s, while this machine's work for it (processes started, box scripts, the
 * simulated engine and client) is about 3–7 CPU-seconds, so eight at once on two cores are still timed by the
 * simulated GPUs. At 0.4 that share was 8–13% and eight trials at once ran 7% slower than one at a time (the
 * speed-up read the two cores at 7.2×); a higher scale lowers it further but lengthens the bench (the 1-GPU run is
 * eight trials in a row, about ten minutes).
 */
export const STUDY_BENCH_TIME_SCALE = 0.8;

const GOALS = { idealRatio: 1.05, speedup: 7.5, coreRssMB: 200, importSeconds: 2, cpuShare: 0.1 };

// The grid's workload: concurrency 2 keeps every candidate's --max-num-seqs (32 to 256) above what the server ever
// holds, so the eight trials take the same simulated time and the 8-GPU run can reach 8× (candidates whose durations
// differ would cap the speed-up at Σ/max by construction); long prompts and short answers make it prefill time (the
// simulated GPU sleeping), not tokens streamed through this machine.
const WORKLOAD = { id: 'random-24000-16', dataset: { kind: 'random', inputLen: 24000, outputLen: 16 }, numPrompts: 16, maxConcurrency: 2, seed: 42 };

function gridStudy({ name, boxes, gpus, workload = WORKLOAD, values = [32, 48, 64, 96, 128, 192, 256] }) {
  return {
    schemaVersion: 1,
    study: {
      name,
      model: { id: 'Qwen/Qwen3-8B' },
      hosts: Array.from({ length: boxes }, (_, i) => ({ hostId: i === 0 ? 'demo-lab' : `demo-lab-${i + 1}` })),
      demoLab: { gpu: 'h100', count: gpus },
      goal: { kind: 'throughput' },
      engines: [{ engine: 'vllm', version: '0.11.0' }],
      stages: [
        {
          id: 'max-seqs',
          label: 'Max running requests',
          candidates: values.map((v) => ({ id: `seqs-${v}`, label: `--max-num-seqs ${v}`, config: { maxRunningRequests: v } })),
        },
      ],
      workloads: { primary: workload },
      strategy: 'grid',
    },
    state: { status: 'draft', trials: [], decisions: [] },
  };
}

/** `servelab run` of a project under the reaper: its exit, the core's CPU and RSS, and the whole tree's CPU. */
export function measuredRun(root, project, dataDir, { stopAfterGrid = false } = {}) {
  const cli = join(root, 'bin', 'servelab.js');
  const out = `${project}.usage.json`;
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let stderr = '';
    let stopped = false;
    const child = spawn('python3', [join(root, 'scripts', 'bench-reaper.py'), out, process.execPath, cli, 'run', project, '--quiet'], {
      env: { ...process.env, SERVELAB_DATA_DIR: dataDir, HOME: dataDir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      // The grid is decided: the generalisation pass after it is not timed, and cancelling ends the run sooner.
      if (stopAfterGrid && !stopped && /^== Generalisation/m.test(stderr)) {
        stopped = true;
        child.kill('SIGINT');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 && !(stopped && code === 1)) return reject(new Error(`servelab run exited ${code}:\n${stderr.slice(-3000)}`));
      resolve({ ...JSON.parse(readFileSync(out, 'utf8')), totalSeconds: (Date.now() - started) / 1000, stopped });
    });
  });
}

function simboxConfig(root, simboxHome, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'resources', 'simbox', 'bin', 'simbox'), 'config', ...args], { env: { ...process.env, SERVELAB_SIMBOX_HOME: simboxHome }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`simbox config ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

function projectResults(project) {
  const file = JSON.parse(readFileSync(project, 'utf8'));
  const events = parseJournal(readFileSync(`${project}-data/journal.jsonl`, 'utf8'));
  return { trials: file.state.trials, events, status: file.state.status };
}

const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const mark = (ok) => (ok ? 'met' : 'NOT MET');

async function runGrid(root, work, dataDir, { boxes, gpus, stopAfterGrid }) {
  const name = `${boxes > 1 ? `${boxes} boxes × ` : ''}${gpus} GPU${gpus > 1 ? 's' : ''}`;
  const project = join(work, `grid-${boxes}x${gpus}.servelab`);
  writeFileSync(project, JSON.stringify(gridStudy({ name: `Scheduling bench, ${name}`, boxes, gpus })));
  const load = loadavg()[0];
  const usage = await measuredRun(root, project, dataDir, { stopAfterGrid });
  const { trials, events, status } = projectResults(project);
  if (status !== (usage.stopped ? 'cancelled' : 'done')) throw new Error(`the ${name} study ended ${status}`);
  const pass = passFigures(events, trials, { stageId: 'grid', slots: boxes * gpus });
  const ran = trials.filter((t) => t.status === 'done').length;
  // A run stopped at the grid's decision may have journalled the generalisation launches it then cancelled.
  const gridIds = new Set(trials.filter((t) => t.stageId === 'grid').map((t) => t.id));
  const counted = usage.stopped ? events.filter((e) => e.event !== 'launching' || e.trials.every((id) => gridIds.has(id))) : events;
  return { name, boxes, gpus, load, usage, pass, launches: launchFigures(counted, trials), ran };
}

/** 1,000 result files made from the importer's real captures: vLLM's text blocks from public issues and pull requests, and a --save-result JSON. */
function importCorpus(root, dir) {
  const corpus = join(root, 'tests', 'fixtures', 'bench-import-corpus');
  const sources = [];
  for (const split of ['dev', 'held-out']) {
    for (const name of readdirSync(join(corpus, split)).sort()) {
      if (/^vllm-(issue|pr)-\d+\.md$/.test(name) || /result-\d+-\d+\.json$/.test(name)) sources.push(join(corpus, split, name));
    }
  }
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < 1000; i++) {
    const source = sources[i % sources.length];
    const target = join(dir, `${String(i).padStart(4, '0')}-${source.split('/').pop()}`);
    if (source.endsWith('.json')) {
      // The same run saved again with other numbers, as a sweep of --save-result files would hold.
      const result = JSON.parse(readFileSync(source, 'utf8'));
      for (const key of ['duration', 'request_throughput', 'output_throughput', 'mean_ttft_ms']) if (typeof result[key] === 'number') result[key] *= 1 + (i % 97) / 1000;
      writeFileSync(target, JSON.stringify(result, null, 4));
    } else copyFileSync(source, target);
  }
  return sources;
}

/** `servelab import` under the reaper: wall seconds, and the CPU seconds of the process itself. */
function timedImport(root, dir) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const usage = `${dir}.usage.json`;
    const child = spawn('python3', [join(root, 'scripts', 'bench-reaper.py'), usage, process.execPath, join(root, 'bin', 'servelab.js'), 'import', dir, '--jsonl'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let records = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      for (const byte of chunk) if (byte === 10) records++;
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, records, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuSeconds: JSON.parse(readFileSync(usage, 'utf8')).coreCpuSeconds }));
  });
}

export async function runStudyBench(root, work, { timeScale = STUDY_BENCH_TIME_SCALE } = {}) {
  const dataDir = join(work, 'lab');
  console.log(`Study scheduling and the core, on the demo lab (this machine: load ${loadavg().map(f2).join(' ')} at the start)`);
  // Engines, client and weights onto both boxes at the demo's own fast scale, so no run below times an install.
  const warm = join(work, 'warm.servelab');
  writeFileSync(warm, JSON.stringify(gridStudy({ name: 'Bench warm-up', boxes: 2, gpus: 1, values: [32], workload: { ...WORKLOAD, numPrompts: 2 } })));
  await measuredRun(root, warm, dataDir);
  // The demo lab's boxes take their time scale from their own state (the app's SERVELAB_SIMBOX_* settings do not
  // reach them): set it there, as `simbox config` does on any simulated box.
  for (const box of ['demo-lab', 'demo-lab-2']) await simboxConfig(root, join(dataDir, box, 'simbox'), ['--time-scale', String(timeScale)]);

  const runs = [];
  // Only the 8-GPU run goes on to the generalisation pass (its relaunches are part of (d)); the others stop at the
  // grid's decision, which keeps the bench short.
  for (const shape of [{ boxes: 1, gpus: 1, stopAfterGrid: true }, { boxes: 1, gpus: 8 }, { boxes: 2, gpus: 4, stopAfterGrid: true }]) runs.push(await runGrid(root, work, dataDir, shape));
  const [one, eight, twoByFour] = runs;

  console.log(`  time scale ${timeScale} (a real-GPU second takes ${timeScale} s); the grid: vLLM 0.11.0, Qwen3-8B, 8 values of --max-num-seqs, ${WORKLOAD.numPrompts} requests of ${WORKLOAD.dataset.inputLen} tokens in, ${WORKLOAD.dataset.outputLen} out, at concurrency ${WORKLOAD.maxConcurrency}`);
  console.log('  (at concurrency 2 every candidate takes the same simulated time: the eight trials are of equal length, so 8× is reachable)');
  console.log('  scale check — per trial, this machine\'s CPU next to the trial\'s wall time (launch to stop):');
  for (const r of runs) {
    const heldMean = mean(r.pass.heldSeconds);
    const children = (r.usage.treeCpuSeconds - r.usage.coreCpuSeconds) / r.ran;
    const share = children / heldMean;
    console.log(`    ${r.name.padEnd(17)} engines and box scripts ${f2(children)} CPU-s, the core ${f2(r.usage.coreCpuSeconds / r.ran)} CPU-s, per trial of ${f1(heldMean)} s wall: ${(share * 100).toFixed(1)}% (goal ≤ ${GOALS.cpuShare * 100}%: ${mark(share <= GOALS.cpuShare)})`);
  }
  console.log('  (a) study wall time ÷ ideal, ideal = (Σ benchmark s + Σ server launch s) ÷ GPU slots (the grid, from its first launch to its decision):');
  for (const r of runs) {
    const p = r.pass;
    console.log(`    ${r.name.padEnd(17)} ${f1(p.wallSeconds)} s ÷ ${f1(p.idealSeconds)} s = ${p.ratio.toFixed(3)} (goal ≤ ${GOALS.idealRatio}: ${mark(p.ratio <= GOALS.idealRatio)}); Σ launch ${f1(p.launchSeconds.reduce((a, b) => a + b, 0))} s, Σ benchmark ${f1(p.benchSeconds.reduce((a, b) => a + b, 0))} s, load ${f2(r.load)} at its start`);
  }
  console.log('  (b) speed-up on the 8-trial grid:');
  for (const r of [eight, twoByFour]) {
    const speedup = one.pass.wallSeconds / r.pass.wallSeconds;
    console.log(`    ${r.name.padEnd(17)} vs 1 GPU: ${f1(one.pass.wallSeconds)} s ÷ ${f1(r.pass.wallSeconds)} s = ${f2(speedup)}× (goal ≥ ${GOALS.speedup}×: ${mark(speedup >= GOALS.speedup)})`);
  }
  console.log('  (c) the core (the `servelab run` process alone, its whole run with setup, per trial measured):');
  for (const r of [one, eight]) {
    const rss = r.usage.corePeakRssKiB / 1024;
    const streams = r.gpus * r.boxes;
    console.log(`    ${streams === 1 ? 'one trial at a time ' : 'eight trials at once'} ${f2(r.usage.coreCpuSeconds / r.ran)} CPU-s per trial (${f1(r.usage.coreCpuSeconds)} CPU-s for ${r.ran} trials), peak RSS ${f1(rss)} MB${streams === 8 ? ` (goal ≤ ${GOALS.coreRssMB} MB with eight streams: ${mark(rss <= GOALS.coreRssMB)})` : ''}`);
  }
  console.log('  (d) launches ÷ distinct server configurations (a relaunch: the same configuration launched again), with the reason the journal gives for each relaunch:');
  for (const r of runs) {
    const l = r.launches;
    if (r.usage.stopped) {
      console.log(`    ${r.name.padEnd(17)} the grid alone (stopped at its decision): ${l.launches} ÷ ${l.configs} = ${f2(l.launches / l.configs)}`);
      continue;
    }
    console.log(`    ${r.name.padEnd(17)} the whole study, generalisation pass included: ${l.launches} ÷ ${l.configs} = ${f2(l.launches / l.configs)}`);
    for (const relaunch of l.relaunches) console.log(`      relaunch of ${relaunch.label} for ${relaunch.trials.join(', ')}: ${relaunch.words}`);
  }
  const importDir = join(work, 'import');
  const sources = importCorpus(root, importDir);
  const imported = await timedImport(root, importDir);
  if (imported.code !== 0) throw new Error(`servelab import exited ${imported.code}: ${imported.stderr.slice(-2000)}`);
  console.log(`  (e) servelab import of 1,000 result files (copies of ${sources.length} real captures in tests/fixtures/bench-import-corpus: vLLM issue and pull-request text blocks and a --save-result JSON):`);
  console.log(`    ${imported.records} results; the process's own CPU ${f2(imported.cpuSeconds)} s (goal ≤ ${GOALS.importSeconds} s: ${mark(imported.cpuSeconds <= GOALS.importSeconds)}), ${f2(imported.seconds)} s wall on this machine, process start included (${mark(imported.seconds <= GOALS.importSeconds)})`);
  console.log(`  load at the end: ${loadavg().map(f2).join(' ')}`);
}
