import type { ProjectFile } from '../study';
import { escapeHtml as h } from './escape';
import { buildReportModel, stageRows, type ReportInputs, type ReportModel, type StageSection } from './model';
import { versusFootnote, versusRowNotes, versusRowWorse, versusSideText, versusVerdictText } from './versus';
import { renderBarChart } from './svg-chart';
import type { ReportLang } from './text';
import {
  changeText,
  decisionText,
  factorText,
  gainText,
  metricCell,
  recommendationBasis,
  regressionCallout,
  scenarioColumns,
  scenarioValue,
  simulatedText,
  statusText,
  trialName,
  trialNotes,
  versusColumns,
  versusObjective,
  winnerText,
} from './view';

/**
 * The study report as one self-contained HTML file: inline CSS and inline SVG, no script and nothing fetched
 * (the Content-Security-Policy says so too), so it can be mailed or archived and opens the same anywhere.
 * Every string from the project goes through `h`.
 */
export function renderHtml(project: ProjectFile, lang: ReportLang = 'en', inputs: ReportInputs = {}): string {
  return htmlOf(buildReportModel(project, lang, inputs), project.study.repeats);
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
td.scenario { min-width: 12em; }
td.change, td.change .flag { white-space: normal; min-width: 14em; }
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
tr.published td { font-style: italic; background: #f6f8fa; }
.status-failed, .status-rejected { color: #c62828; font-weight: 600; }
.muted { color: #656d76; }
.chart { margin: 8px 0 16px; overflow-x: auto; }
@media print { body { max-width: none; } .chart { break-inside: avoid; } }
`;

/** The change column wraps between words, never inside an interval ("[−19,0; −14,8]"): its spaces are no-break. */
function unbrokenIntervals(text: string): string {
  return text.replace(/\[[^\]]*\]/g, (interval) => interval.replaceAll(' ', '\u00a0'));
}

function htmlOf(m: ReportModel, repeats: number): string {
  const tx = m.text;
  const body: string[] = [];
  const num = (value: number | null | undefined) => h(metricCell(tx, value));
  body.push(
    `<header><h1>${h(m.title)}</h1><p class="muted">${tx.markup('header.study', h, { name: `<strong>${h(m.studyName)}</strong>` })}${m.description ? ` — ${h(m.description)}` : ''}</p>${m.ran ? `<p class="muted">${h(m.ran)}</p>` : ''}</header>`,
  );
  if (m.simulated) {
    body.push(`<div class="callout simulated" role="note"><strong>${h(tx.t('callout.simulated'))}</strong> ${h(simulatedText(m))}</div>`);
  }
  if (m.status.text) body.push(`<div class="callout info" role="status"><strong>${h(tx.t('callout.incomplete'))}</strong> ${h(m.status.text)}</div>`);

  body.push(`<section id="recommendation"><h2>${h(tx.t('heading.recommendation'))}</h2>`);
  if (m.recommendation) {
    const r = m.recommendation;
    body.push(`<p>${h(tx.t('rec.intro', { engine: r.engineLabel, goal: m.goalPhrase, workload: m.goal.primaryWorkload }))}</p>`);
    body.push(`<pre><code>${h(r.command)}</code></pre>`);
    if (r.envNames.length > 0) {
      const secrets = new Map(r.secretEnv.map((s) => [s.name, s.ref]));
      const names = r.envNames.map((n) => (secrets.has(n) ? tx.markup('rec.envSecret', h, { name: `<code>${h(n)}</code>`, ref: `<code>${h(secrets.get(n) ?? '')}</code>` }) : `<code>${h(n)}</code>`));
      body.push(`<p>${tx.markup('rec.env', h, { names: names.join(', ') })}</p>`);
    }
    if (r.path.length > 0) body.push(`<p>${h(tx.t('rec.path', { path: r.path.join(' → ') }))}</p>`);
    for (const line of recommendationBasis(m)) body.push(`<p>${h(line)}</p>`);
  } else {
    body.push(`<p>${h(m.noRecommendation ?? tx.t('rec.none'))}</p>`);
  }
  body.push(`<p>${h(m.baselineStatement)}${m.baseline?.command ? ` ${tx.markup('baseline.command', h, { command: `<code>${h(m.baseline.command)}</code>` })}` : ''}</p></section>`);

  body.push(`<section id="scenarios"><h2>${h(tx.t('heading.scenarios'))}</h2>`);
  const callout = regressionCallout(m);
  if (callout) body.push(`<div class="callout warning" role="alert"><strong class="flag">${h(tx.t('callout.regression'))}</strong> ${h(callout)}</div>`);
  const unit = m.objective.unit;
  const th = (cells: string[]) => cells.map((c) => `<th>${h(c)}</th>`).join('');
  body.push(`<table><thead><tr>${th(scenarioColumns(m))}</tr></thead><tbody>`);
  for (const s of m.scenarios) {
    const change = s.regression ? `<span class="flag">⚠ ${h(unbrokenIntervals(changeText(s, tx)))}</span>` : h(unbrokenIntervals(changeText(s, tx)));
    const name = s.primary ? tx.markup('scenario.primary', (part) => (part ? `<span class="muted">${h(part)}</span>` : ''), { scenario: h(s.description) }) : h(s.description);
    body.push(
      `<tr${s.regression ? ' class="regression"' : ''}><td class="scenario">${name}</td>` +
        `<td class="num">${h(scenarioValue(tx, s.baseline, s.baselineNote, s.baselineStat))}</td><td class="num">${h(scenarioValue(tx, s.recommended, s.recommendedNote, s.recommendedStat))}</td>` +
        `<td class="num change">${change}</td><td class="num">${h(factorText(s, tx))}</td><td>${s.regression ? `<strong>${h(winnerText(s, tx))}</strong>` : h(winnerText(s, tx))}</td></tr>`,
    );
  }
  body.push('</tbody></table>');
  body.push(
    `<p class="muted">${h(tx.t('scenario.footnote', { direction: tx.t(`goal.direction.${m.objective.better}`, { metric: m.objective.label }), margin: tx.percent(m.goal.marginPct) }))}</p>`,
  );
  if (m.scenarios.some((s) => s.baseline !== null || s.recommended !== null)) {
    body.push(
      `<div class="chart">${renderBarChart({
        title: tx.t('chart.scenarios', { metric: m.objective.label }),
        unit,
        format: tx.number,
        noResult: tx.t('chart.noResult'),
        series: [
          { name: tx.t('chart.series.baseline'), color: '#8c959f' },
          { name: tx.t('chart.series.recommended'), color: '#0969da' },
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

  if (m.versus) body.push(versusBody(m));

  body.push(`<section id="notes"><h2>${h(tx.t('heading.notes'))}</h2><ul>${m.notes.map((n) => `<li>${h(n.text)}</li>`).join('')}</ul></section>`);

  body.push(`<section id="goal"><h2>${h(tx.t('heading.goal'))}</h2><ul>`);
  body.push(`<li>${h(tx.t('goal.objective', { objective: m.goal.objectiveText, workload: m.goal.primaryWorkload }))}</li>`);
  body.push(`<li>${m.goal.slos.length > 0 ? tx.markup('goal.slos', h, { slos: m.goal.slos.map((s) => `<code>${h(s)}</code>`).join('; ') }) : h(tx.t('goal.slosNone'))}</li>`);
  if (m.basis.text !== null) body.push(`<li>${h(m.basis.text)}</li>`);
  body.push(`<li>${h(tx.t('goal.margin', { margin: tx.percent(m.goal.marginPct) }))}</li>`);
  body.push(`<li>${h(tx.t(`goal.strategy.${m.goal.strategy}`))}</li></ul></section>`);

  const s = m.setup;
  const notRecorded = tx.t('setup.notRecorded');
  const hardware = { gpu: h(s.gpu), driver: h(s.driver ?? notRecorded), cuda: h(s.cuda ?? notRecorded), hosts: s.hosts.map(h).join(', ') };
  body.push(`<section id="setup"><h2>${h(tx.t('heading.setup'))}</h2><ul>`);
  body.push(
    `<li>${s.variants.length > 0 ? tx.markup('setup.modelVariants', h, { model: `<code>${h(s.model)}</code>`, variants: s.variants.map(h).join('; ') }) : tx.markup('setup.model', h, { model: `<code>${h(s.model)}</code>` })}</li>`,
  );
  body.push(`<li>${m.simulated ? tx.markup('setup.hardwareSimulated', h, hardware) : tx.markup('setup.hardware', h, hardware)}</li>`);
  body.push(`<li>${h(tx.t('setup.engines', { engines: s.engines.join('; ') }))}</li>`);
  body.push(`<li>${h(tx.plural('setup.client', s.repeats, { client: s.client, gpus: s.gpusPerServer }))}</li><li>${h(tx.t('setup.basis', { basis: s.basis }))}</li>`);
  body.push(`<li>${h(tx.t('setup.method', { method: s.method }))}</li></ul>`);
  if (s.benchCommand) body.push(`<p>${h(tx.t('setup.benchCommand'))}</p><pre><code>${h(s.benchCommand)}</code></pre>`);
  body.push(`<table><thead><tr>${th([tx.t('setup.col.workload'), tx.t('setup.col.description'), tx.t('setup.col.dataset'), 'SHA-256'])}</tr></thead><tbody>`);
  for (const d of s.datasets) {
    body.push(`<tr><td><code>${h(d.workloadId)}</code></td><td>${h(d.description)}</td><td>${h(d.dataset)}</td><td>${d.sha256 ? `<code>${h(d.sha256)}</code>` : h(notRecorded)}</td></tr>`);
  }
  body.push('</tbody></table></section>');

  m.stages.forEach((section, i) => {
    body.push(`<section id="stage-${h(section.id)}"><h2>${h(tx.t('heading.stage', { n: tx.integer(i + 1), label: section.label }))}</h2>`);
    if (section.engines) body.push(`<p>${h(tx.t('stage.appliesTo', { engines: section.engines.join(', ') }))}</p>`);
    body.push(stageBody(m, section, repeats, true), '</section>');
  });

  body.push(`<section id="summary"><h2>${h(tx.t('heading.summary'))}</h2><p>${h(m.baselineStatement)}</p>`);
  body.push(
    `<table><thead><tr>${th([tx.t('summary.col.option'), tx.t('summary.col.kept'), tx.t('summary.col.before', { unit }), tx.t('summary.col.after', { unit }), tx.t('summary.col.gain')])}</tr></thead><tbody>`,
  );
  for (const r of m.summary) {
    body.push(
      `<tr><td>${h(r.option)}</td><td>${h(r.kept ?? tx.t('summary.nothingKept'))}</td><td class="num">${num(r.before)}</td><td class="num">${num(r.after)}</td><td class="num">${h(gainText(r.gainPct, tx))}</td></tr>`,
    );
  }
  if (m.overall) {
    body.push(
      `<tr><td><strong>${h(tx.t('summary.overall'))}</strong></td><td></td><td class="num">${num(m.overall.baseline)}</td><td class="num">${num(m.overall.recommended)}</td><td class="num"><strong>${h(gainText(m.overall.gainPct, tx))}</strong></td></tr>`,
    );
  }
  body.push('</tbody></table>');
  body.push(`<p class="muted">${h(tx.t(`summary.footnote.${m.objective.better}`, { metric: m.objective.label }))}</p></section>`);

  body.push(`<section id="generalisation"><h2>${h(tx.t('heading.generalisation'))}</h2>`);
  body.push(m.generalisation ? stageBody(m, m.generalisation, repeats, false) : `<p>${h(tx.t('generalisation.none'))}</p>`);
  body.push('</section>');

  return `<!DOCTYPE html>
<html lang="${tx.lang}">
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
  const tx = m.text;
  const out: string[] = [];
  if (section.trials.length === 0 && section.published.length === 0) {
    out.push(`<p>${h(tx.t('stage.noTrials'))}</p>`);
  } else {
    if (chart && section.trials.length > 0) {
      out.push(
        `<div class="chart">${renderBarChart({
          title: tx.t('chart.stage', { stage: section.label, metric: m.objective.label }),
          unit: m.objective.unit,
          format: tx.number,
          noResult: tx.t('chart.noResult'),
          series: [{ name: m.objective.label, color: '#0969da' }],
          groups: section.trials.map((t) => ({
            label: trialName(t, section, repeats, tx),
            bars: [{ series: 0, value: t.objective, missing: statusText(t.status, tx), interval: t.intervals[m.objectiveColumn] ?? null, ...(t.kept ? { tone: 'kept' as const } : {}) }],
          })),
        })}</div>`,
      );
    }
    const headers = m.metricColumns.map((c) => `<th${c.key === m.objectiveColumn ? ' class="objective"' : ''}>${h(tx.t('stage.metricHeader', { metric: c.title, unit: c.unit }))}</th>`).join('');
    const gpusHeader = m.showGpus ? `<th>${h(tx.t('stage.col.gpus'))}</th>` : '';
    out.push(
      `<table><thead><tr><th>${h(tx.t('stage.col.trial'))}</th><th>${h(tx.t('stage.col.status'))}</th>${gpusHeader}${headers}<th>${h(tx.t('stage.col.notes'))}</th><th>${h(tx.t('stage.col.command'))}</th></tr></thead><tbody>`,
    );
    for (const line of stageRows(section)) {
      if (line.kind === 'published') {
        // A guide's printed numbers under the trial they stand beside, set apart and named published.
        const r = line.row;
        const cells = (m.showGpus ? '<td class="num">–</td>' : '') + m.metricColumns.map((c) => `<td class="num${c.key === m.objectiveColumn ? ' objective' : ''}">${h(metricCell(tx, r.metrics[c.key] ?? null, null))}</td>`).join('');
        const note = r.error !== null ? tx.t('published.failed', { source: r.source, error: r.error }) : tx.t('published.note', { source: r.source });
        out.push(`<tr class="published"><td>${h(tx.t('published.name', { label: r.label }))}</td><td class="status-published">${h(tx.t('published.status'))}</td>${cells}<td>${h(note)}</td><td></td></tr>`);
        continue;
      }
      const t = line.trial;
      const cls = t.kept ? 'kept' : t.status === 'failed' || t.status === 'rejected' ? t.status : '';
      const cells = (m.showGpus ? `<td class="num">${h(tx.integer(t.gpuCount))}</td>` : '') + m.metricColumns.map((c) => `<td class="num${c.key === m.objectiveColumn ? ' objective' : ''}">${h(metricCell(tx, t.metrics[c.key], t.intervals[c.key]))}</td>`).join('');
      out.push(
        `<tr${cls ? ` class="${cls}"` : ''}><td>${h(trialName(t, section, repeats, tx))}</td><td class="status-${t.status}">${h(statusText(t.status, tx))}</td>${cells}` +
          `<td>${trialNotes(t, tx, m.basis.gpuBudget).map(h).join('<br>')}</td><td><code>${h(t.command)}</code></td></tr>`,
      );
    }
    out.push('</tbody></table>');
  }
  out.push(`<p><strong>${h(tx.t('stage.decision'))}</strong> ${h(decisionText(section, tx))}</p>`);
  return out.join('\n');
}

/** A re-run against its original: what changed, what got worse, then every configuration × workload both measured. */
function versusBody(m: ReportModel): string {
  const tx = m.text;
  const v = m.versus;
  if (!v) return '';
  const out: string[] = [`<section id="versus"><h2>${h(tx.t('heading.versus'))}</h2>`];
  out.push(`<p>${h(tx.t('versus.intro', { name: `"${v.originalName}"` }))}${v.originalFinished ? ` ${h(tx.t('versus.originalFinished', { date: v.originalFinished }))}` : ''}</p>`);
  out.push(`<p>${h(tx.t('versus.changes'))}</p><ul>${v.changes.map((c) => `<li>${h(c)}</li>`).join('')}</ul>`);
  if (!v.found) {
    out.push(`<div class="callout info" role="note">${tx.markup('versus.missing', h, { name: `"${h(v.originalName)}"`, path: `<code>${h(v.originalPath)}</code>` })}</div></section>`);
    return out.join('\n');
  }
  const worse = [...v.regressions, ...v.lost];
  if (worse.length > 0) {
    out.push(
      `<div class="callout warning" role="alert"><strong class="flag">${h(tx.t('callout.regression'))}</strong> ${h(tx.plural('versus.regressions', worse.length))}<ul>${worse.map((w) => `<li>${h(w)}</li>`).join('')}</ul></div>`,
    );
  } else if (v.rows.length > 0) {
    out.push(`<p>${h(tx.t('versus.regressionsNone'))}</p>`);
  }
  if (v.rows.length === 0) {
    out.push(`<p>${h(tx.t('versus.none'))}</p>`);
  } else {
    const headers = versusColumns(m);
    out.push(`<table><thead><tr>${headers.map((c) => `<th>${h(c)}</th>`).join('')}</tr></thead><tbody>`);
    for (const r of v.rows) {
      const change = r.change ? h(tx.change(r.change)) : '–';
      out.push(
        `<tr${versusRowWorse(r) ? ' class="regression"' : ''}><td>${versusRowWorse(r) ? '<span class="flag">⚠</span> ' : ''}${h(r.configuration)}</td><td><code>${h(r.workloadId)}</code></td>` +
          `<td class="num">${h(versusSideText(r.original, tx))}</td><td class="num">${h(versusSideText(r.rerun, tx))}</td>` +
          `<td class="num">${r.regression ? `<span class="flag">${change}</span>` : change}</td><td>${r.regression ? `<strong>${h(versusVerdictText(r, tx))}</strong>` : h(versusVerdictText(r, tx))}</td>` +
          `<td>${versusRowNotes(r, tx).map(h).join('<br>')}</td></tr>`,
      );
    }
    out.push('</tbody></table>');
    out.push(`<p class="muted">${h(versusFootnote(v, versusObjective(m).label, tx))}</p>`);
  }
  for (const [title, sides] of [
    [tx.t('versus.onlyOriginal'), v.onlyOriginal],
    [tx.t('versus.onlyRerun'), v.onlyRerun],
  ] as const) {
    if (sides.length === 0) continue;
    out.push(`<p>${h(title)}</p><ul>${sides.map((s) => `<li>${h(tx.t('versus.oneSide', { configuration: s.configuration, workload: s.workloadId, outcome: s.outcome }))}</li>`).join('')}</ul>`);
  }
  out.push('</section>');
  return out.join('\n');
}

/** A scenario side's interval, for its chart's error bar. */
function intervalOf(stat: { low: number | null; high: number | null } | null): { low: number; high: number } | null {
  return stat && stat.low !== null && stat.high !== null ? { low: stat.low, high: stat.high } : null;
}
