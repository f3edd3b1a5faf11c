import { describe, it, expect } from 'vitest';
import { buildReportModel, renderCsv, renderHtml, renderMarkdown } from '.';
import type { ProjectFile } from '../study';
import { PLAIN_ENV_VALUE, STUDY_A_RECOMMENDED, STUDY_B_RECOMMENDED, studyAProject, studyBProject } from '../../../../tests/helpers/study-projects';

/** RFC 4180: records end in CRLF, quoted fields may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else {
      if (c === '\n' || c === '\r' || c === '"') throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
      field += c;
      i++;
    }
  }
  if (quoted || field !== '' || row.length > 0) throw new Error('the last record does not end in CRLF');
  return rows;
}

const trialOf = (project: ProjectFile, id: string) => {
  const trial = project.state.trials.find((t) => t.id === id);
  if (!trial) throw new Error(`no trial ${id}`);
  return trial;
};

describe('study report model', () => {
  it("computes Study B's scenarios: the winner of each and the −13.8% regression on 32K input", () => {
    const model = buildReportModel(studyBProject());
    const byId = Object.fromEntries(model.scenarios.map((s) => [s.workloadId, s]));
    expect(model.scenarios.map((s) => s.workloadId)).toEqual(['sharegpt-1000-unbounded', 'random-32000-100', 'random-4000-200', 'random-2000-100', 'random-128-4']);
    expect(byId['sharegpt-1000-unbounded']).toMatchObject({ primary: true, baseline: 1731, recommended: 2054, winner: 'recommended', regression: false });
    expect(byId['random-32000-100']?.changePct).toBeCloseTo(-13.8, 1);
    expect(byId['random-32000-100']).toMatchObject({ winner: 'baseline', regression: true, comparison: { verdict: 'worse' } });
    expect(byId['random-32000-100']?.flag).toMatch(/^REGRESSION −13\.8% \[−1\d\.\d, −1\d\.\d\] total token throughput$/);
    expect(model.regressions.map((r) => r.workloadId)).toEqual(['random-32000-100']);
    expect([byId['random-128-4'], byId['random-2000-100'], byId['random-4000-200']].map((s) => Math.round((s?.gainPct ?? 0) * 10) / 10)).toEqual([33.1, 7.7, 10.9]);
  });

  it("states Study A's gains against the best before each stage, as the guide's summary does", () => {
    const model = buildReportModel(studyAProject());
    expect(model.summary.map((r) => [r.stageId, r.gainPct === null ? null : Math.round(r.gainPct * 10) / 10])).toEqual([
      ['engine', 4.3],
      ['cuda-graph', null],
      ['quantization', 25.8],
      ['attention', null],
      ['speculative', 66.2],
      ['torch-compile', null],
    ]);
    // The baseline comes from the first engine at its defaults when the state does not name it.
    expect(model.baseline).toEqual({ label: 'vLLM 0.11.0 at its defaults', command: 'vllm serve Qwen/Qwen3-8B' });
    expect(model.scenarios.find((s) => s.workloadId === 'sharegpt-c1')?.factor).toBeCloseTo(1.66 / 0.62, 5);
    const flashinfer = model.trials.find((t) => t.candidateId === 'flashinfer');
    expect(flashinfer?.sloViolations).toEqual(['misses SLO p99_ttft_ms ≤ 500 (measured 5700)']);
  });
});

describe('Markdown report', () => {
  it('gives the recommendation command, flags the regression above the scenario table and states the baseline', () => {
    const md = renderMarkdown(studyBProject());
    expect(md.startsWith('# Qwen/Qwen3-32B on 1× NVIDIA A100-SXM4-80GB: highest total token throughput\n')).toBe(true);
    expect(md).toContain(STUDY_B_RECOMMENDED);
    const callout = md.indexOf('> **⚠ REGRESSION.**');
    const table = md.indexOf('| Scenario |');
    expect(callout).toBeGreaterThan(0);
    expect(callout).toBeLessThan(table);
    expect(md).toMatch(/\| \*\*⚠ Random 32000 in \/ 100 out[^|]*\*\* \|[^\n]*\*\*REGRESSION −13\.8% \\\[[^\]]*\] total token throughput\*\* \|[^\n]*\*\*baseline\*\* \|/);
    expect(md).toContain('Gains are relative to the best configuration before each stage; the baseline is vLLM 0.11.0 at its defaults');
    expect(md).toContain('| Engine selection | TensorRT-LLM 1.2.0rc1 defaults | 1731 | 2054 | +18.7% |');
    // Failed configurations are results: the refusal and the error are in the quantization stage.
    const quantization = md.slice(md.indexOf('## Stage 2: Quantization'), md.indexOf('## Stage 3'));
    expect(quantization).toContain('refused: TensorRT-LLM runs block-scaled FP8 GEMMs only on compute capability 8.9 or newer; this GPU is sm 8.0');
    expect(quantization).toContain("error: KeyError: 'weight'");
    expect(md).toContain('stage-by-stage greedy');
    expect(md).toContain('local optimum');
    expect(md).toContain('measured speed only');
    expect(md).not.toContain('Speculative decoding:');
    expect(md).not.toContain('simulated');
    expect(md).toContain('570.172.08');
    expect(md).toContain('35f0e213ce091ed9b9af2a1f0f2a8ebc1b5e9d1b5e3f6f2c5a1c0c94c7e8d1b2');
    expect(md).toContain('vllm bench serve --model Qwen/Qwen3-32B --backend openai-chat');
  });

  it('explains speculative decoding and marks simulated numbers when the study has them (Study A)', () => {
    const md = renderMarkdown(studyAProject());
    expect(md).toContain(STUDY_A_RECOMMENDED);
    expect(md).toContain('Peak output token throughput can therefore read below the mean output throughput, and mean ITL above mean TPOT');
    expect(md).toContain('> **Simulated results.** These numbers come from the simulated GPU box of the demo lab: they are simulations, not measurements.');
    expect(md).not.toContain('REGRESSION');
    expect(md).toContain('| Speculative decoding (EAGLE3) | EAGLE3 Tengyunw/qwen3_8b_eagle3, steps 4, top-k 4, draft tokens 16 | 1.28 | 0.77 | +66.2% |');
    expect(md).toContain('| ShareGPT, 100 prompts, concurrency 1 | 1.66, 1 run | 0.62, 1 run | better: −62.7% \\[−63.6, −61.7\\] | 2.68x | recommended |');
    expect(md).toMatch(/- Method: Each server is warmed up .* up to 4 runs per configuration .* Intervals are 95%/);
  });

  it('names the host of a simulated box reached over SSH instead of the demo lab', () => {
    const project = studyAProject();
    const { demoLab: _demo, ...study } = project.study;
    const onSsh: ProjectFile = {
      ...project,
      study: { ...study, hosts: [{ hostId: 'host-1' }] },
      state: {
        ...project.state,
        trials: project.state.trials.map((t) =>
          t.result ? { ...t, hostId: 'host-1', result: { ...t.result, result: { ...t.result.result, provenance: { ...t.result.result.provenance, host: 'sim <h100>' } } } } : t,
        ),
      },
    };
    const md = renderMarkdown(onSsh);
    expect(md).toContain('> **Simulated results.** These numbers come from the simulated GPU box on sim \\<h100\\>: they are simulations, not measurements.');
    expect(md).toContain('These results come from the simulated GPU box on sim \\<h100\\>.');
    expect(md).not.toContain('demo lab');
    const html = renderHtml(onSsh);
    expect(html).toContain('These numbers come from the simulated GPU box on sim &lt;h100&gt;: they are simulations');
    expect(html).not.toContain('demo lab');
    // Turkish names the hosts without a suffix on their names, which could not agree with every name.
    expect(renderMarkdown({ ...onSsh, state: { status: 'draft', trials: [], decisions: [] } }, 'tr')).toContain('- Donanım: host-1 üzerindeki GPU’lar;');
  });

  it("names the box's paths from ~ where the run recorded the box's absolute home (a real SSH host)", () => {
    const project = studyAProject();
    const home = '/home/ubuntu';
    const absolute = (text: string) => text.replaceAll('~/.servelab/', `${home}/.servelab/`);
    project.state.trials = project.state.trials.map((t) => {
      if (!t.result) return t;
      const dataset = t.result.result.provenance?.dataset;
      return {
        ...t,
        result: {
          ...t.result,
          command: `${home}/.servelab/engines/vllm-0.11.0/bin/${absolute(t.result.command ?? '')} --result-dir ${home}/.servelab/bench/${t.id.replaceAll('/', '-')}`,
          result: { ...t.result.result, provenance: { ...t.result.result.provenance, ...(dataset ? { dataset: { ...dataset, path: absolute(dataset.path ?? '') } } : {}) } },
        },
      };
    });
    expect(JSON.stringify(project.state)).toContain(`${home}/.servelab/datasets/`);
    const md = renderMarkdown(project);
    expect(md).toContain('~/.servelab/engines/vllm-0.11.0/bin/vllm bench serve --model Qwen/Qwen3-8B');
    expect(md).toContain('--dataset-path ~/.servelab/datasets/ShareGPT_V3_unfiltered_cleaned_split.json');
    expect(md).toContain('| `sharegpt-c4` | ShareGPT, 100 prompts, concurrency 4 | `~/.servelab/datasets/ShareGPT_V3_unfiltered_cleaned_split.json` |');
    for (const text of [md, renderHtml(project), renderCsv(project)]) expect(text).not.toContain(home);
  });

  it('says which search was used for a grid study', () => {
    const project = studyAProject();
    project.study.strategy = 'grid';
    expect(renderMarkdown(project)).toContain('Search strategy: full grid.');
  });

  it('renders a study still running, without a recommendation, and says so', () => {
    const project = studyBProject();
    project.state.status = 'running';
    delete project.state.recommendation;
    project.state.decisions = project.state.decisions.slice(0, 1);
    project.state.trials = project.state.trials
      .filter((t) => t.stageId !== 'generalisation')
      .map((t) => (t.stageId === 'max-num-tokens' ? { ...t, status: 'planned' as const, result: undefined, finishedAt: undefined } : t));
    const md = renderMarkdown(project);
    expect(md).toContain('This study is still running: 5 of 7 trials finished.');
    expect(md).toContain('No recommendation yet: the study is still running.');
    expect(md).toContain('Not decided yet: trials are still to run.');
    expect(md).toContain('The baseline and the recommendation have not been compared on the scenarios yet.');
    expect(md).toContain('| Random 32000 in / 100 out, 100 prompts, seed 42 | not measured | no recommendation yet | – | – | – |');
    expect(renderHtml(project)).toContain('No recommendation yet: the study is still running.');
    expect(parseCsv(renderCsv(project))).toHaveLength(project.state.trials.length + 1);
    // Stopped, it will not have one later: the scenarios say "no recommendation", not "yet".
    project.state.status = 'cancelled';
    expect(renderMarkdown(project)).toContain('| Random 32000 in / 100 out, 100 prompts, seed 42 | not measured | no recommendation | – | – | – |');
    expect(renderMarkdown(project, 'tr')).toContain('| Random 32000 in / 100 out, 100 prompts, seed 42 | ölçülmedi | öneri yok | – | – | – |');
  });

  it("names a cluster trial's Slurm job and node in the CSV", () => {
    const project = studyBProject();
    const trial = project.state.trials.find((t) => t.status === 'done') as (typeof project.state.trials)[number];
    trial.slurmJob = { jobId: '42', state: 'RUNNING', node: 'gpu2' };
    const rows = parseCsv(renderCsv(project));
    const header = rows[0] as string[];
    const row = rows.find((r) => r[0] === trial.id) as string[];
    expect([row[header.indexOf('slurm job')], row[header.indexOf('node')]]).toEqual(['42', 'gpu2']);
  });

  it('renders a draft with no trial at all', () => {
    const project = studyAProject();
    project.state = { status: 'draft', trials: [], decisions: [] };
    const md = renderMarkdown(project);
    expect(md).toContain('This study has not run yet');
    expect(md).toContain('No recommendation yet: the study has not run.');
    expect(renderHtml(project)).toContain('<h2>Recommendation</h2>');
    expect(parseCsv(renderCsv(project))).toHaveLength(1);
  });

  it('escapes Markdown and HTML in labels', () => {
    const project = studyBProject();
    trialOf(project, 'max-num-tokens/mnt-16384/sharegpt-1000-unbounded/r1').label = '<script>alert(1)</script> | *x*';
    const md = renderMarkdown(project);
    expect(md).not.toContain('<script>');
    expect(md).toContain('\\<script\\>alert(1)\\</script\\> \\| \\*x\\*');
  });
});

describe('HTML report', () => {
  it('is one self-contained file with inline SVG charts and nothing to fetch', () => {
    const html = renderHtml(studyBProject());
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(?:src|href)\s*=/i);
    expect(html).not.toMatch(/url\(|@import|https?:/i);
    expect(html).toContain("content=\"default-src 'none'; style-src 'unsafe-inline'\"");
    // A chart per stage that ran and one for the scenarios.
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect(html).toContain(STUDY_B_RECOMMENDED);
  });

  it('flags the regression with a callout above the table and a warning row', () => {
    const html = renderHtml(studyBProject());
    const callout = html.indexOf('<div class="callout warning" role="alert">');
    expect(callout).toBeGreaterThan(0);
    expect(callout).toBeLessThan(html.indexOf('<th>Scenario</th>'));
    expect(html).toMatch(/<tr class="regression"><td class="scenario">Random 32000 in \/ 100 out[^<]*<\/td>.*⚠ REGRESSION −13\.8% \[[^\]]*\] total token throughput/);
    // An interval in the change column does not wrap: its spaces are no-break.
    expect(html).toMatch(/<td class="num change"><span class="flag">⚠ REGRESSION −13\.8% \[[−+]?\d+\.\d,\u00a0[−+]?\d+\.\d\]/);
    expect(html.match(/<tr class="regression">/g)).toHaveLength(1);
    expect(html).toContain('the baseline is vLLM 0.11.0 at its defaults');
  });

  it('escapes every user string, in tables and charts', () => {
    const project = studyBProject();
    trialOf(project, 'max-num-tokens/mnt-16384/sharegpt-1000-unbounded/r1').label = '<script>alert("x")</script>';
    project.study.name = 'A & B <img onerror=1>';
    const html = renderHtml(project);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('A &amp; B &lt;img onerror=1&gt;');
  });
});

describe('CSV of trials', () => {
  it('has one RFC 4180 row per trial, a header with units, CRLF ends and no BOM', () => {
    const project = studyBProject();
    const csv = renderCsv(project);
    expect(csv.charCodeAt(0)).not.toBe(0xfeff);
    expect(csv.endsWith('\r\n')).toBe(true);
    const rows = parseCsv(csv);
    expect(rows).toHaveLength(project.state.trials.length + 1);
    const header = rows[0] as string[];
    expect(header.slice(0, 18)).toEqual([
      'trial id', 'stage', 'candidate', 'label', 'engine', 'version', 'mode', 'model', 'status', 'reject reason / error', 'command', 'env names',
      'workload', 'repeat', 'runs of this configuration', 'warm-up requests', 'host', 'gpus',
    ]);
    expect(header.slice(18, 20)).toEqual(['slurm job', 'node']);
    expect(header).toEqual(expect.arrayContaining(['mean_latency_s low (s)', 'mean_latency_s high (s)', 'total_token_throughput low (tok/s)']));
    expect(header).not.toContain('duration low (s)');
    expect(header).toEqual(expect.arrayContaining(['mean_latency_s (s)', 'total_token_throughput (tok/s)', 'mean_ttft_ms (ms)', 'p99_ttft_ms (ms)', 'mean_tpot_ms (ms)']));
    expect(rows.every((r) => r.length === header.length)).toBe(true);
    const col = (name: string) => header.indexOf(name);
    const row = (id: string) => rows.find((r) => r[0] === id) as string[];
    expect(row('quantization/fp8/sharegpt-1000-unbounded/r1')[col('status')]).toBe('rejected');
    expect(row('quantization/fp8/sharegpt-1000-unbounded/r1')[col('reject reason / error')]).toContain('sm 8.0');
    expect(row('quantization/awq/sharegpt-1000-unbounded/r1')[col('reject reason / error')]).toBe("KeyError: 'weight' (while loading the checkpoint)");
    expect(row('engine/trtllm-1.2.0rc1/sharegpt-1000-unbounded/r1')[col('total_token_throughput (tok/s)')]).toBe('2054');
    // Plain numbers stay numbers, negative ones too.
    expect(row('generalisation/recommended/random-32000-100/r1')[col('objective vs baseline (%)')]).toBe('-13.8');
  });

  it('neutralises text a spreadsheet would run as a formula, and quotes what needs it', () => {
    const project = studyBProject();
    trialOf(project, 'max-num-tokens/mnt-16384/sharegpt-1000-unbounded/r1').label = "=cmd|' /C calc'!A0";
    trialOf(project, 'max-num-tokens/mnt-32768/sharegpt-1000-unbounded/r1').label = '@SUM(1,2)';
    trialOf(project, 'quantization/awq/sharegpt-1000-unbounded/r1').error = '-oops "quoted"\nsecond line';
    trialOf(project, 'engine/sglang-0.5.5.post1/sharegpt-1000-unbounded/r1').label = '+1 -2';
    trialOf(project, 'engine/vllm-0.11.0/sharegpt-1000-unbounded/r1').label = '-13.8';
    const csv = renderCsv(project);
    const rows = parseCsv(csv);
    const header = rows[0] as string[];
    const cell = (id: string, column: string) => (rows.find((r) => r[0] === id) as string[])[header.indexOf(column)];
    expect(cell('max-num-tokens/mnt-16384/sharegpt-1000-unbounded/r1', 'label')).toBe("'=cmd|' /C calc'!A0");
    expect(cell('max-num-tokens/mnt-32768/sharegpt-1000-unbounded/r1', 'label')).toBe("'@SUM(1,2)");
    expect(cell('engine/sglang-0.5.5.post1/sharegpt-1000-unbounded/r1', 'label')).toBe("'+1 -2");
    expect(cell('engine/vllm-0.11.0/sharegpt-1000-unbounded/r1', 'label')).toBe('-13.8');
    expect(cell('quantization/awq/sharegpt-1000-unbounded/r1', 'reject reason / error')).toBe('\'-oops "quoted"\nsecond line');
    expect(csv).toContain('"\'-oops ""quoted""\nsecond line"');
  });
});

describe('intervals, repeats and verdicts', () => {
  // Edge case written by hand: one engine trial carries a run's interval, a warm-up, a repeat and a stage verdict
  // (its configuration also ran as the baseline of the generalisation pass: three runs in all).
  function withMeasurementDetail(): ProjectFile {
    const project = studyAProject();
    const first = project.state.trials.find((t) => t.stageId === 'engine' && t.status === 'done');
    if (!first?.result) throw new Error('no measured engine trial');
    const value = first.result.result.metrics.mean_ttft_ms as number;
    first.result.result.intervals = { level: 0.95, requests: 100, resamples: 1000, values: { mean_ttft_ms: { low: value * 0.97, high: value * 1.04 } } };
    first.warmup = { requests: 16, seconds: 4.2 };
    const again = structuredClone(first);
    again.id = first.id.replace(/r1$/, 'r2');
    again.repeat = 2;
    delete again.warmup;
    project.state.trials.splice(project.state.trials.indexOf(first) + 1, 0, again);
    const decision = project.state.decisions.find((d) => d.stageId === 'engine');
    if (!decision) throw new Error('no engine decision');
    Object.assign(decision, { verdict: 'kept', compared: decision.winner, change: { pct: -4.2, low: -6.5, high: -1.7, level: 0.95 }, runs: { candidate: 2, reference: 1 } });
    return project;
  }

  it('puts the run interval, the warm-up, the run count and the verdict in the report and the CSV', () => {
    const project = withMeasurementDetail();
    const m = buildReportModel(project);
    const row = m.trials.find((t) => t.warmup !== null);
    expect(row).toMatchObject({ runs: 3, warmup: 'warm-up: 16 requests, 4.2\u00a0s' });
    expect(row?.intervals.mean_ttft_ms).not.toBeNull();
    expect(m.stages.find((s) => s.id === 'engine')?.decision?.verdict).toBe('−4.2% [−6.5, −1.7], kept');
    const md = renderMarkdown(project);
    expect(md).toMatch(/\| \d+(?:\.\d+)? \[\d+(?:\.\d+)?, \d+(?:\.\d+)?\] \|/);
    expect(md).toContain('warm-up: 16 requests, 4.2\u00a0s; 3 runs of this configuration');
    const rows = parseCsv(renderCsv(project));
    const header = rows[0] as string[];
    const csvRow = rows.find((r) => r[0] === row?.id) as string[];
    expect(Number(csvRow[header.indexOf('mean_ttft_ms low (ms)')])).toBeCloseTo(row?.intervals.mean_ttft_ms?.low ?? NaN, 6);
    expect(csvRow[header.indexOf('runs of this configuration')]).toBe('3');
    expect(csvRow[header.indexOf('warm-up requests')]).toBe('16');
    // The scenario chart draws the primary workload's baseline (two runs) with an error bar.
    expect(renderHtml(project)).toMatch(/<path class="error-bar" d="M[\d.]+ [\d.]+H[\d.]+/);
    expect(renderHtml(studyAProject())).toContain('class="error-bar"');
    // A trial without per-request samples leaves its interval cells empty.
    const other = rows.find((r) => r[0]?.startsWith('generalisation/') && r[header.indexOf('status')] === 'done') as string[];
    expect(other[header.indexOf('mean_ttft_ms low (ms)')]).toBe('');
  });
});

describe('secrets', () => {
  it('shows environment variable names only, never a value, in every format', () => {
    const project = studyBProject();
    // A value may also leak through an error message or a stop message.
    trialOf(project, 'quantization/awq/sharegpt-1000-unbounded/r1').error = `KeyError: 'weight' with TLLM_LOG_LEVEL=${PLAIN_ENV_VALUE}`;
    project.state.message = `stopped while ${PLAIN_ENV_VALUE} was set`;
    expect(JSON.stringify(project)).toContain(PLAIN_ENV_VALUE);
    const outputs = { md: renderMarkdown(project), html: renderHtml(project), csv: renderCsv(project) };
    for (const [format, text] of Object.entries(outputs)) {
      expect(text, format).not.toContain(PLAIN_ENV_VALUE);
      expect(text, format).toContain('TLLM_LOG_LEVEL');
    }
    expect(outputs.md).toContain('`HF_TOKEN` (from the secret `hf-token`), `TLLM_LOG_LEVEL`');
    expect(outputs.md).toContain('TLLM_LOG_LEVEL=$TLLM_LOG_LEVEL trtllm-serve Qwen/Qwen3-32B');
  });
});
