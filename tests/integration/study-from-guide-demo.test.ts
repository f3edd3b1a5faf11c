// A study opened from the published latency guide (tests/fixtures/guides, verbatim) and run on the demo lab through
// the core's calls: the guide's printed numbers stand beside the measured ones, for the same candidate and workload,
// in the comparison and in the report, and are never decided on. Kept short: the engine selection and the guide's
// first tuning stage, on the primary workload only, at the demo's own time scale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import type { EventMessage } from '../../src/shared/contract';
import type { ProjectFile, StudyState } from '../../src/shared/study/study';
import { trialColumn, withPublished } from '../../src/renderer/src/features/compare/compare-model';
import { buildReportModel, stageRows } from '../../src/shared/study/report/model';
import { repoRoot } from '../helpers/repo';
import { runThroughCore, useStudyScratch } from '../helpers/study-runs';

const scratchDir = useStudyScratch('servelab-guide-demo-', '0.01');
const GUIDE = join(repoRoot, 'tests', 'fixtures', 'guides', 'qwen3-8b-h100-latency.tr.txt');

describe('a study opened from the latency guide, run on the demo lab', () => {
  let core: Core;
  const events: EventMessage[] = [];
  let path: string;
  let state: StudyState;

  beforeAll(async () => {
    core = await createCore({ dataDir: join(scratchDir.dir, 'demo-data'), userKnownHostsFiles: [], simboxBinDir: resolveSimboxBinDir() });
    core.events.subscribe((e) => events.push(e));
    path = join(scratchDir.dir, 'latency-guide.servelab');
    const opened = (await core.call('studies:fromGuide', { path, guide: GUIDE })) as { project: ProjectFile };
    // The run is kept short: the guide's own engines and first stage, the primary workload only.
    const study = { ...opened.project.study, stages: opened.project.study.stages.slice(0, 1), workloads: { ...opened.project.study.workloads, generalisation: [] } };
    await core.call('studies:save', { path, study });
    state = await runThroughCore(core, events, path);
  }, 600_000);
  afterAll(() => core?.close());

  it('runs to a recommendation decided on the measured trials alone', () => {
    expect(state.status).toBe('done');
    expect(state.decisions.map((d) => d.stageId)).toEqual(['engine', 'cuda-graph-max-batch-size']);
    // The references are still the guide's, untouched by the run.
    expect(state.references?.filter((r) => r.stageId === 'engine').map((r) => [r.candidateId, r.result?.metrics.total_token_throughput])).toEqual([
      ['vllm-0.11.0', 1020.76],
      ['sglang-0.5.3.post3', 1079.74],
      ['trtllm-1.2.0rc1', 1001.25],
    ]);
    expect(state.trials.every((t) => !t.id.startsWith('published-'))).toBe(true);
  });

  it('puts each engine’s published numbers beside its measured ones in the comparison', () => {
    const engineTrials = state.trials.filter((t) => t.stageId === 'engine' && t.status === 'done' && t.repeat === 1);
    expect(engineTrials.map((t) => t.candidateId)).toEqual(['vllm-0.11.0', 'sglang-0.5.3.post3', 'trtllm-1.2.0rc1']);
    const columns = withPublished(engineTrials.map((t) => trialColumn(t, state.trials)), engineTrials, state.references);
    expect(columns.map((c) => (c.published ? `published:${c.published.line}` : c.id))).toEqual([
      engineTrials[0]!.id,
      'published:114',
      engineTrials[1]!.id,
      'published:169',
      engineTrials[2]!.id,
      'published:224',
    ]);
    // The guide's vLLM block (line 114) and the measured vLLM trial, side by side: printed and measured numbers.
    expect(columns[1]?.metrics).toMatchObject({ total_token_throughput: 1020.76, mean_ttft_ms: 64, mean_tpot_ms: 7.38 });
    expect(columns[0]?.metrics.total_token_throughput).toEqual(expect.any(Number));
    expect(columns[0]?.published).toBeUndefined();
  });

  it('shows the published value beside the measured one in the report, labelled with the guide and line', async () => {
    const project = (await core.call('studies:open', { path })) as ProjectFile;
    const engine = buildReportModel(project).stages.find((s) => s.id === 'engine')!;
    const lines = stageRows(engine);
    // Each engine's published row comes right after a measured trial of the same engine on the same workload.
    const besides = lines.flatMap((line, i) => (line.kind === 'published' ? [[line.row.source, lines[i - 1]]] : []));
    expect(besides.map(([source, before]) => [source, before && typeof before !== 'string' && before.kind === 'trial' ? before.trial.candidateId : null])).toEqual([
      ['qwen3-8b-h100-latency.tr.txt:114', 'vllm-0.11.0'],
      ['qwen3-8b-h100-latency.tr.txt:169', 'sglang-0.5.3.post3'],
      ['qwen3-8b-h100-latency.tr.txt:224', 'trtllm-1.2.0rc1'],
    ]);
    expect(engine.published[0]?.metrics.total_token_throughput).toBe(1020.76);
    const md = ((await core.call('studies:report', { path, format: 'md' })) as { text: string }).text;
    expect(md).toContain('qwen3-8b-h100-latency.tr.txt:114');
    // The guide's vLLM block beside the measured vLLM trial: its printed total throughput, 1020.76 tok/s.
    expect(md).toMatch(/\*Published: vLLM 0\.11\.0\* \| \*published\* \|[^\n]*\*1,?021\*[^\n]*qwen3-8b-h100-latency\.tr\.txt:114/);
  });
});
