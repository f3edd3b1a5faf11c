import type { ProjectFile } from '../study';
import { escapeHtml as h } from './escape';
import { buildReportModel, type ReportModel, type StageSection } from './model';
import { renderBarChart } from './svg-chart';
import {
  changeText,
  decisionText,
  factorText,
  gainText,
  metricCell,
  regressionCallout,
  scenarioValue,
  STATUS_TEXT,
  trialName,
  trialNotes,
  winnerText,
} from './view';

/**
 * The study report as one self-contained HTML file: inline CSS and inline SVG, no script and nothing fetched
 * (the Content-Security-Policy says so too), so it can be mailed or archived and opens the same anywhere.
 * Every string from the project goes through `h`.
 */
export function renderHtml(project: ProjectFile): string {
  return htmlOf(buildReportModel(project), project.study.repeats);
}

const CSS = `
:root { color-scheme: light; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1f2328; margin: 0 auto; max-width: 1120px; padding: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 13px; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
th.objective, td.objective { font-weight: 600; }
pre, code { font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 12px; white-space: pre-wrap; word-break: break-all; }
td code { word-break: break-all; }
.callout { border-left: 6px solid; border-radius: 4px; padding: 10px 14px; margin: 12px 0; }
.callout.warning { border-color: #c62828; background: #fdecea; }
.callout.simulated { border-color: #9a6700; background: #fff8c5; }
.callout.info { border-color: #0969da; background: #ddf4ff; }
tr.regression td { background: #fdecea; color: #8a1c1c; }
.flag { color: #c62828; font-weight: 700; white-space: nowrap; }
tr.failed td, tr.rejected td { background: #fff5f5; }
tr.kept td { background: #eef9f0; }
.status-failed, .status-rejected { color: #c62828; font-weight: 600; }
.muted { color: #656d76; }
.chart { margin: 8px 0 16px; overflow-x: auto; }
@media print { body { max-width: none; } .chart { break-inside: avoid; } }
`;

function htmlOf(m: ReportModel, repeats: number): string {
  const body: string[] = [];
  body.push(`<header><h1>${h(m.title)}</h1><p class="muted">Study: <strong>${h(m.studyName)}</strong>${m.description ? ` — ${h(m.description)}` : ''}</p></header>`);
  if (m.simulated) {
    body.push(`<div class="callout simulated" role="note"><strong>Simulated results.</strong> These numbers come from ${h(m.simulatedSource ?? 'the simulated GPU box')}: they are simulations, not measurements.</div>`);
  }
  if (m.status.text) body.push(`<div class="callout info" role="status"><strong>Incomplete study.</strong> ${h(m.status.text)}</div>`);

  body.push('<section id="recommendation"><h2>Recommendation</h2>');
  if (m.recommendation) {
    const r = m.recommendation;
    body.push(`<p>${h(r.engineLabel)}, for the ${h(m.goalPhrase)} on ${h(m.goal.primaryWorkload)}:</p>`);
    body.push(`<pre><code>${h(r.command)}</code></pre>`);
    if (r.envNames.length > 0) {
      const secrets = new Map(r.secretEnv.map((s) => [s.name, s.ref]));
      const names = r.envNames.map((n) => (secrets.has(n) ? `<code>${h(n)}</code> (from the secret <code>${h(secrets.get(n) ?? '')}</code>)` : `<code>${h(n)}</code>`));
      body.push(`<p>Environment variables the server needs (values not shown): ${names.join(', ')}.</p>`);
    }
    if (r.path.length > 0) body.push(`<p>Kept along the way: ${r.path.map(h).join(' → ')}.</p>`);
  } else {
    body.push(`<p>${h(m.noRecommendation ?? 'No recommendation.')}</p>`);
  }
  body.push(`<p>${h(m.baselineStatement)}${m.baseline?.command ? ` Baseline command: <code>${h(m.baseline.command)}</code>.` : ''}</p></section>`);

  body.push('<section id="scenarios"><h2>Before and after, per scenario</h2>');
  const callout = regressionCallout(m);
  if (callout) body.push(`<div class="callout warning" role="alert"><strong class="flag">⚠ REGRESSION.</strong> ${h(callout)}</div>`);
  const unit = m.objective.unit;
  body.push(
    `<table><thead><tr><th>Scenario</th><th>Baseline (${h(unit)})</th><th>Recommended (${h(unit)})</th><th>Change in ${h(m.objective.label)}</th><th>Speed-up</th><th>Winner</th></tr></thead><tbody>`,
  );
  for (const s of m.scenarios) {
    const change = s.regression ? `<span class="flag">⚠ ${h(changeText(s))}</span>` : h(changeText(s));
    body.push(
      `<tr${s.regression ? ' class="regression"' : ''}><td>${h(s.description)}${s.primary ? ' <span class="muted">(primary)</span>' : ''}</td>` +
        `<td class="num">${h(scenarioValue(s.baseline, s.baselineNote, s.baselineStat))}</td><td class="num">${h(scenarioValue(s.recommended, s.recommendedNote, s.recommendedStat))}</td>` +
        `<td class="num">${change}</td><td class="num">${h(factorText(s))}</td><td>${s.regression ? `<strong>${h(winnerText(s))}</strong>` : h(winnerText(s))}</td></tr>`,
    );
  }
  body.push('</tbody></table>');
  body.push(
    `<p class="muted">Speed-up is the recommended configuration's advantage in the objective's direction (${h(m.objective.better)} ${h(m.objective.label)} is better); a scenario within the study's ${h(String(m.goal.marginPct))}% margin is a tie.</p>`,
  );
  if (m.scenarios.some((s) => s.baseline !== null || s.recommended !== null)) {
    body.push(
      `<div class="chart">${renderBarChart({
        title: `Baseline vs recommended, ${m.objective.label}`,
        unit,
        series: [
          { name: 'baseline', color: '#8c959f' },
          { name: 'recommended', color: '#0969da' },
        ],
        groups: m.scenarios.map((s) => ({
          label: s.description,
          bars: [
            { series: 0, value: s.baseline, missing: s.baselineNote ?? undefined, interval: intervalOf(s.baselineStat) },
            { series: 1, value: s.recommended, missing: s.recommendedNote ?? undefined, interval: intervalOf(s.recommendedStat), ...(s.regression ? { tone: 'regression' as const } : {}) },
          ],
        })),
      })}</div>`,
    );
  }
  body.push('</section>');

  body.push(`<section id="notes"><h2>Notes and caveats</h2><ul>${m.notes.map((n) => `<li>${h(n.text)}</li>`).join('')}</ul></section>`);

  body.push('<section id="goal"><h2>Optimisation goal</h2><ul>');
  body.push(`<li>Objective: ${h(m.goal.objectiveText)}, measured on ${h(m.goal.primaryWorkload)}.</li>`);
  body.push(`<li>Service-level objectives: ${m.goal.slos.length > 0 ? m.goal.slos.map((s) => `<code>${h(s)}</code>`).join('; ') : 'none'}.</li>`);
  body.push(`<li>Margin: a candidate replaces the best so far only when it beats it by more than ${h(String(m.goal.marginPct))}%.</li>`);
  body.push(`<li>Search strategy: ${m.goal.strategy === 'greedy' ? 'stage-by-stage greedy' : 'full grid'}.</li></ul></section>`);

  const s = m.setup;
  body.push('<section id="setup"><h2>Setup</h2><ul>');
  body.push(`<li>Model: <code>${h(s.model)}</code>${s.variants.length > 0 ? `; variants: ${s.variants.map(h).join('; ')}` : ''}.</li>`);
  body.push(
    `<li>Hardware: ${h(s.gpu)}; driver ${h(s.driver ?? 'not recorded')}; CUDA ${h(s.cuda ?? 'not recorded')}; host${s.hosts.length === 1 ? '' : 's'} ${s.hosts.map(h).join(', ')}${m.simulated ? ' (simulated GPU box)' : ''}.</li>`,
  );
  body.push(`<li>Engines: ${s.engines.map(h).join('; ')}.</li>`);
  body.push(
    `<li>Benchmark client: ${h(s.client)}; each configuration measured ${s.repeats} time${s.repeats === 1 ? '' : 's'}, ${s.gpusPerTrial} GPU${s.gpusPerTrial === 1 ? '' : 's'} per server.</li>` +
      `<li>Method: ${h(s.method)}</li></ul>`,
  );
  if (s.benchCommand) body.push(`<p>Benchmark command of the primary workload:</p><pre><code>${h(s.benchCommand)}</code></pre>`);
  body.push('<table><thead><tr><th>Workload</th><th>Description</th><th>Dataset</th><th>SHA-256</th></tr></thead><tbody>');
  for (const d of s.datasets) {
    body.push(`<tr><td><code>${h(d.workloadId)}</code></td><td>${h(d.description)}</td><td>${h(d.dataset)}</td><td>${d.sha256 ? `<code>${h(d.sha256)}</code>` : 'not recorded'}</td></tr>`);
  }
  body.push('</tbody></table></section>');

  m.stages.forEach((section, i) => {
    body.push(`<section id="stage-${h(section.id)}"><h2>Stage ${i + 1}: ${h(section.label)}</h2>`);
    if (section.engines) body.push(`<p>Applies to ${section.engines.map(h).join(', ')}.</p>`);
    body.push(stageBody(m, section, repeats, true), '</section>');
  });

  body.push(`<section id="summary"><h2>Summary: option → gain</h2><p>${h(m.baselineStatement)}</p>`);
  body.push(`<table><thead><tr><th>Option</th><th>Kept</th><th>Before (${h(unit)})</th><th>After (${h(unit)})</th><th>Gain</th></tr></thead><tbody>`);
  for (const r of m.summary) {
    body.push(
      `<tr><td>${h(r.option)}</td><td>${h(r.kept ?? 'nothing kept')}</td><td class="num">${h(metricCell(r.before))}</td><td class="num">${h(metricCell(r.after))}</td><td class="num">${h(gainText(r.gainPct))}</td></tr>`,
    );
  }
  if (m.overall) {
    body.push(
      `<tr><td><strong>Overall: baseline → recommended, primary workload</strong></td><td></td><td class="num">${h(metricCell(m.overall.baseline))}</td><td class="num">${h(metricCell(m.overall.recommended))}</td><td class="num"><strong>${h(gainText(m.overall.gainPct))}</strong></td></tr>`,
    );
  }
  body.push('</tbody></table>');
  body.push(
    `<p class="muted">Gain is in the objective's direction: for ${h(m.objective.label)}, ${m.objective.better === 'higher' ? 'after ÷ before − 1' : 'before ÷ after − 1 (the speed-up)'}. "-" means the stage kept nothing.</p></section>`,
  );

  body.push('<section id="generalisation"><h2>Generalisation: baseline vs recommended</h2>');
  body.push(m.generalisation ? stageBody(m, m.generalisation, repeats, false) : '<p>The baseline and the recommendation have not been compared on the scenarios yet.</p>');
  body.push('</section>');

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(m.title)}</title>
<style>${CSS}</style>
</head>
<body>
${body.join('\n')}
</body>
</html>
`;
}

function stageBody(m: ReportModel, section: StageSection, repeats: number, chart: boolean): string {
  const out: string[] = [];
  if (section.trials.length === 0) {
    out.push('<p>No trial of this stage has been planned: it does not apply to the engine kept.</p>');
  } else {
    if (chart) {
      out.push(
        `<div class="chart">${renderBarChart({
          title: `${section.label}: ${m.objective.label} per trial`,
          unit: m.objective.unit,
          series: [{ name: m.objective.label, color: '#0969da' }],
          groups: section.trials.map((t) => ({
            label: trialName(t, section, repeats),
            bars: [{ series: 0, value: t.objective, missing: STATUS_TEXT[t.status], interval: t.intervals[m.objective.metric] ?? null, ...(t.kept ? { tone: 'kept' as const } : {}) }],
          })),
        })}</div>`,
      );
    }
    const headers = m.metricColumns.map((c) => `<th${c.key === m.objective.metric ? ' class="objective"' : ''}>${h(c.title)} (${h(c.unit)})</th>`).join('');
    out.push(`<table><thead><tr><th>Trial</th><th>Status</th>${headers}<th>Notes</th><th>Command</th></tr></thead><tbody>`);
    for (const t of section.trials) {
      const cls = t.kept ? 'kept' : t.status === 'failed' || t.status === 'rejected' ? t.status : '';
      const cells = m.metricColumns.map((c) => `<td class="num${c.key === m.objective.metric ? ' objective' : ''}">${h(metricCell(t.metrics[c.key], t.intervals[c.key]))}</td>`).join('');
      out.push(
        `<tr${cls ? ` class="${cls}"` : ''}><td>${h(trialName(t, section, repeats))}</td><td class="status-${t.status}">${h(STATUS_TEXT[t.status])}</td>${cells}` +
          `<td>${trialNotes(t).map(h).join('<br>')}</td><td><code>${h(t.command)}</code></td></tr>`,
      );
    }
    out.push('</tbody></table>');
  }
  out.push(`<p><strong>Decision:</strong> ${h(decisionText(section))}</p>`);
  return out.join('\n');
}

/** A scenario side's interval, for its chart's error bar. */
function intervalOf(stat: { low: number | null; high: number | null } | null): { low: number; high: number } | null {
  return stat && stat.low !== null && stat.high !== null ? { low: stat.low, high: stat.high } : null;
}
