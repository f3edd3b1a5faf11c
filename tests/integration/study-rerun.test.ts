// "Re-run with…" on a whole study in virtual time: the latency example run once at its pinned engine versions and
// again, from rerunDefinition, at newer ones on the same simulated box (tests/helpers/virtual-study.ts); the two
// compared trial by trial with the decision rule's statistics (src/shared/study/study-diff.ts).
import { describe, expect, it } from 'vitest';
import { gridCombinations } from '../../src/shared/study/planner';
import { rerunDefinition } from '../../src/shared/study/rerun';
import { compareStudies, type StudyDiff } from '../../src/shared/study/study-diff';
import type { ProjectFile } from '../../src/shared/study/study';
import { gainOf } from '../../src/shared/study/verdict';
import { EXAMPLES, exampleStudy } from '../helpers/study-runs';
import { virtualProject } from '../helpers/virtual-study';

const ORIGINAL_PATH = '/projects/latency.servelab';
const example = { study: exampleStudy(EXAMPLES.latency) };
const ran = (study: ProjectFile['study'], seed: number) => virtualProject(study, { seed });

/** Every configuration × workload a study measured or tried, in the re-run's words for the rerun side. */
function keysOf(file: ProjectFile): Set<string> {
  return new Set(file.state.trials.map((t) => `${t.stageId}/${t.candidateId}/${t.workloadId}`));
}

function expectOnlyWhollyWorseFlagged(diff: StudyDiff): void {
  for (const row of diff.rows) {
    for (const m of row.metrics) {
      const gain = gainOf(m.change, m.better);
      const flagged = diff.regressions.some((r) => r.key === row.key && r.kind === 'worse' && r.metric === m.metric);
      expect(m.verdict === 'worse', `${row.key} ${m.metric} ${JSON.stringify(gain)}`).toBe(gain.high < -diff.marginPct);
      // Only the same settings at both versions say anything of the versions.
      expect(flagged).toBe(m.verdict === 'worse' && row.sameConfig);
    }
  }
}

describe('re-running the latency example at newer engine versions', () => {
  const original = ran(example.study, 1);
  const { definition, lost } = rerunDefinition({ path: ORIGINAL_PATH, file: original }, { engineVersions: { vllm: '0.12.0', sglang: '0.5.5.post1' } });
  const rerun = ran(definition, 2);
  const diff = compareStudies(original, rerun);

  it('keeps the stages, candidates and workloads, moves the versions and points back at the original', () => {
    expect(original.state.status).toBe('done');
    expect(rerun.state.status).toBe('done');
    expect(definition.stages).toEqual(example.study.stages);
    expect(definition.workloads).toEqual(example.study.workloads);
    expect(definition.engines.map((e) => `${e.engine} ${e.version}`)).toEqual(['vllm 0.12.0', 'sglang 0.5.5.post1', 'trtllm 1.2.0rc1']);
    expect(definition.rerunOf).toEqual({
      path: ORIGINAL_PATH,
      name: example.study.name,
      engines: example.study.engines.map((e) => ({ engine: e.engine, version: e.version, mode: e.mode })),
      hostIds: ['demo-lab'],
      finishedAt: original.state.finishedAt,
    });
    expect(lost).toEqual([]);
  });

  it('has a row for every configuration × workload both studies tried, and lists the rest on their side', () => {
    const engineIds = new Map([
      ['vllm-0.11.0', 'vllm-0.12.0'],
      ['sglang-0.5.3.post3', 'sglang-0.5.5.post1'],
    ]);
    const inRerunWords = (k: string) => k.replace(/^engine\/([^/]+)/, (_m, id: string) => `engine/${engineIds.get(id) ?? id}`);
    const before = new Set([...keysOf(original)].map(inRerunWords));
    const after = keysOf(rerun);
    const both = [...after].filter((k) => before.has(k));
    expect(diff.rows.map((r) => r.key).sort()).toEqual(both.sort());
    expect(diff.onlyRerun.map((s) => s.key).sort()).toEqual([...after].filter((k) => !before.has(k)).sort());
    // Listed in the original's own ids.
    expect(diff.onlyOriginal.map((s) => s.key).sort()).toEqual([...keysOf(original)].filter((k) => !after.has(inRerunWords(k))).sort());
    expect(diff.onlyOriginal.length).toBeGreaterThan(0);
    // The engine stage and the generalisation pass are in both whatever the stages decided.
    expect(diff.rows.filter((r) => r.stageId === 'engine')).toHaveLength(3);
    expect(diff.rows.filter((r) => r.stageId === 'generalisation').length).toBeGreaterThanOrEqual(8);
    for (const row of diff.rows) {
      if (row.original.outcome === 'measured' && row.rerun.outcome === 'measured') expect(row.metrics.map((m) => m.metric)).toContain('mean_latency_s');
      else expect(row.metrics).toEqual([]);
    }
  });

  it('flags as regressions exactly the changes whose interval is wholly worse than the margin', () => {
    expectOnlyWhollyWorseFlagged(diff);
  });

  it('flags nothing when the new versions are as fast: the difference is run-to-run noise, which the interval covers', () => {
    // The simulated box has no version effect: its noise-free model measures the same numbers at both versions.
    const exact = compareStudies(virtualProject(example.study, { noise: false }), virtualProject(definition, { noise: false }));
    expect(exact.rows.length).toBeGreaterThan(10);
    for (const row of exact.rows) for (const m of row.metrics) expect(m.change.pct, `${row.key} ${m.metric}`).toBeCloseTo(0, 9);
    // So every flag on the seeded noisy runs would be false. None is expected: a false one needs the whole 95% interval
    // beyond the 3% margin, i.e. a difference past 3% plus the interval's half-width (about 1.4% with many repeats, 2.5%
    // on the 0.64% prior alone), five or more standard deviations of a one-run difference at the box's 0.3–0.6%
    // run-to-run CV (resources/simbox/lib/noise.mjs); for the noisier TTFT the pooled spread widens the interval with
    // it, and the t interval alone leaves at most 2.5% to one side before the margin is added.
    const compared = diff.rows.flatMap((r) => r.metrics);
    expect(compared.length).toBeGreaterThan(60);
    expect(diff.regressions).toEqual([]);
  });

  it('finds a real slowdown: the same study re-run on a slower GPU', () => {
    // Marked edge case: "another box" in virtual time is the demo lab's GPU model, which the helper reads from the study.
    const slower = { ...definition, demoLab: { gpu: 'a100' as const, count: 1 } };
    const onA100 = compareStudies(original, ran(slower, 3));
    expectOnlyWhollyWorseFlagged(onA100);
    const engineRows = onA100.rows.filter((r) => r.stageId === 'engine' && r.metrics.length > 0);
    expect(engineRows.length).toBeGreaterThan(0);
    for (const row of engineRows) expect(onA100.regressions.map((r) => `${r.key} ${r.kind === 'worse' ? r.metric : r.outcome}`)).toContain(`${row.key} mean_latency_s`);
  });
});

describe('re-running a grid study', () => {
  // The latency example cut to vLLM and the stages vLLM takes part in, searched as a grid: every combination's id starts with the
  // engine's id, version included.
  const grid = { ...example.study, translations: undefined, name: 'Grid', strategy: 'grid' as const, engines: example.study.engines.slice(0, 1), stages: example.study.stages.filter((s) => s.id === 'quantization' || s.id === 'cuda-graph') };
  const original = ran(grid, 5);
  const rerunStudy = rerunDefinition({ path: ORIGINAL_PATH, file: original }, { engineVersions: { vllm: '0.12.0' } }).definition;
  const rerun = ran(rerunStudy, 6);
  const diff = compareStudies(original, rerun);

  it('matches every combination across the version change', () => {
    const combos = [...keysOf(rerun)].filter((k) => k.startsWith('grid/'));
    expect(combos).toHaveLength(gridCombinations(rerunStudy).length);
    expect(combos.length).toBeGreaterThan(1);
    expect(combos.every((k) => k.startsWith('grid/vllm-0.12.0'))).toBe(true);
    expect(diff.rows.map((r) => r.key)).toEqual(expect.arrayContaining(combos));
    expect(diff.onlyOriginal.filter((s) => s.key.startsWith('grid/'))).toEqual([]);
    expect(diff.onlyRerun).toEqual([]);
    expectOnlyWhollyWorseFlagged(diff);
  });
});
