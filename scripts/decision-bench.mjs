// The decision-accuracy bench (issue #16): seeded virtual runs of the example studies on the simulated box's model
// (tests/helpers/virtual-study.ts), for today's rule (one run per configuration, point change against the margin)
// and the interval rule, against the truth of the noise-free model. Prints; never asserts.
//
// The TypeScript is bundled once into a temporary module with rolldown (vite's bundler, already in node_modules), as
// node has no TypeScript loader here.
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const GOAL = { rightPct: 95, gpuRatio: 1.6 };
const EXAMPLES = ['qwen3-8b-latency-h100', 'qwen3-32b-throughput-a100'];
const RULES = ['single-run', 'interval'];
// Seeds of the stress case (tests/helpers/decision-bench.ts): its own N, so the whole part stays within a few minutes.
const STRESS_RUNS = 100;

/**
 * Bundles tests/helpers/decision-bench.ts into `work` and imports it. The simulated box's modules stay outside the
 * bundle, imported from where they are: they find their data files next to themselves.
 */
async function loadBench(root, work) {
  const { build } = await import('rolldown');
  const out = join(work, 'decision-bench.mjs');
  const simbox = join(root, 'resources', 'simbox', 'lib');
  await build({
    input: join(root, 'tests', 'helpers', 'decision-bench.ts'),
    platform: 'node',
    logLevel: 'silent',
    makeAbsoluteExternalsRelative: false,
    external: (id, importer) => (importer ? resolve(dirname(importer), id) : id).startsWith(simbox),
    // Written relative to tests/helpers/, the only importer of the box's modules.
    output: { file: out, format: 'esm', paths: (id) => (id.startsWith('.') ? pathToFileURL(resolve(join(root, 'tests', 'helpers'), id)).href : id) },
  });
  return import(pathToFileURL(out).href);
}

const pct = (x) => `${(100 * x).toFixed(0)}%`;

export async function runDecisionBench(root, work, runs = 40, stressRuns = STRESS_RUNS) {
  console.log(`Decision accuracy: seeded virtual runs (N per study) of each study under each rule, up to the recommendation, against the noise-free model`);
  console.log(`  goal: ≥ ${GOAL.rightPct}% right at ≤ ${GOAL.gpuRatio}× the GPU time of today's rule ("right": the true best or within the study's margin of it)`);
  const bench = await loadBench(root, work);
  const studies = EXAMPLES.map((name) => ({ name, runs, study: bench.studyOfProject(JSON.parse(readFileSync(join(root, 'examples', `${name}.servelab`), 'utf8'))) }));
  // The bench's own stress case (not a reference study): small true gaps under vLLM's run-to-run noise at c=2.
  studies.push({ name: 'stress: qwen3-8b vllm c=2 (bench only)', runs: stressRuns, study: bench.studyOfProject(bench.STRESS_STUDY_JSON) });
  for (const { name, runs: n, study } of studies) {
    const started = Date.now();
    const r = bench.decisionAccuracy(study, { runs: n, rules: RULES });
    const byRule = Object.fromEntries(r.rules.map((x) => [x.rule, x]));
    console.log(`  ${name} (N ${n}; margin ${r.marginPct}%; noise-free best: ${r.truth.command})`);
    for (const x of r.rules) {
      const ratio = x.meanGpuSeconds / byRule['single-run'].meanGpuSeconds;
      console.log(`    ${x.rule.padEnd(10)} right ${String(x.right).padStart(3)}/${x.runs} (${pct(x.right / x.runs).padStart(4)}), same as noise-free ${String(x.same).padStart(3)}/${x.runs}, GPU time ${(x.meanGpuSeconds / 60).toFixed(1).padStart(6)} min per study (${ratio.toFixed(2)}×)`);
      for (const w of x.wrong.slice(0, 5)) console.log(`      wrong: ${w}`);
      if (x.wrong.length > 5) console.log(`      … and ${x.wrong.length - 5} more`);
    }
    const interval = byRule.interval;
    const meets = (100 * interval.right) / interval.runs >= GOAL.rightPct && interval.meanGpuSeconds <= GOAL.gpuRatio * byRule['single-run'].meanGpuSeconds;
    console.log(`    interval rule ${meets ? 'meets' : 'misses'} the goal (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
}
