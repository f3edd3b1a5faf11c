import type { ProjectFile } from '../study';
import { buildReportModel, type ReportModel, type StageSection } from './model';
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

/** The study report as Markdown (GitHub-flavoured tables), in the shape of the reference tuning guides. */
export function renderMarkdown(project: ProjectFile): string {
  return markdownOf(buildReportModel(project), project.study.repeats);
}

function markdownOf(m: ReportModel, repeats: number): string {
  const out: string[] = [];
  const p = (...lines: string[]) => out.push(...lines, '');

  p(`# ${text(m.title)}`);
  p(`Study: **${text(m.studyName)}**${m.description ? ` — ${text(m.description)}` : ''}`);
  if (m.simulated) p(`> **Simulated results.** These numbers come from ${text(m.simulatedSource ?? 'the simulated GPU box')}: they are simulations, not measurements.`);
  if (m.status.text) p(`> **${m.status.complete ? 'Note' : 'Incomplete study.'}** ${text(m.status.text)}`);

  p('## Recommendation');
  if (m.recommendation) {
    const r = m.recommendation;
    p(`${text(r.engineLabel)}, for the ${text(m.goalPhrase)} on ${text(m.goal.primaryWorkload)}:`);
    p(codeBlock(r.command, 'sh'));
    if (r.envNames.length > 0) {
      const secrets = new Map(r.secretEnv.map((s) => [s.name, s.ref]));
      const names = r.envNames.map((n) => (secrets.has(n) ? `${code(n)} (from the secret ${code(secrets.get(n) ?? '')})` : code(n)));
      p(`Environment variables the server needs (values not shown): ${names.join(', ')}.`);
    }
    if (r.path.length > 0) p(`Kept along the way: ${r.path.map(text).join(' → ')}.`);
  } else {
    p(text(m.noRecommendation ?? 'No recommendation.'));
  }
  p(text(m.baselineStatement) + (m.baseline?.command ? ` Baseline command: ${code(m.baseline.command)}.` : ''));

  p('## Before and after, per scenario');
  const callout = regressionCallout(m);
  if (callout) p(`> **⚠ REGRESSION.** ${text(callout)}`);
  const unit = m.objective.unit;
  p(
    table(
      ['Scenario', `Baseline (${unit})`, `Recommended (${unit})`, `Change in ${m.objective.label}`, 'Speed-up', 'Winner'],
      m.scenarios.map((s) => {
        const name = `${text(s.description)}${s.primary ? ' (primary)' : ''}`;
        return [
          s.regression ? `**⚠ ${name}**` : name,
          text(scenarioValue(s.baseline, s.baselineNote, s.baselineStat)),
          text(scenarioValue(s.recommended, s.recommendedNote, s.recommendedStat)),
          s.regression ? `**${text(changeText(s))}**` : text(changeText(s)),
          factorText(s),
          s.regression ? `**${winnerText(s)}**` : winnerText(s),
        ];
      }),
    ),
  );
  p(`Values are means over each side's runs with their 95% interval. Speed-up is the recommended configuration's advantage in the objective's direction (${m.objective.better} ${m.objective.label} is better); a scenario whose interval does not lie wholly beyond the study's ${m.goal.marginPct}% margin is a tie.`);

  p('## Notes and caveats');
  p(m.notes.map((n) => `- ${text(n.text)}`).join('\n'));

  p('## Optimisation goal');
  p(
    [
      `- Objective: ${text(m.goal.objectiveText)}, measured on ${text(m.goal.primaryWorkload)}.`,
      `- Service-level objectives: ${m.goal.slos.length > 0 ? m.goal.slos.map((slo) => code(slo)).join('; ') : 'none'}.`,
      `- Margin: a candidate replaces the best so far only when the interval of its gain lies beyond ${m.goal.marginPct}%.`,
      `- Search strategy: ${m.goal.strategy === 'greedy' ? 'stage-by-stage greedy' : 'full grid'}.`,
    ].join('\n'),
  );

  p('## Setup');
  const s = m.setup;
  p(
    [
      `- Model: ${code(s.model)}${s.variants.length > 0 ? `; variants: ${s.variants.map(text).join('; ')}` : ''}.`,
      `- Hardware: ${text(s.gpu)}; driver ${text(s.driver ?? 'not recorded')}; CUDA ${text(s.cuda ?? 'not recorded')}; host${s.hosts.length === 1 ? '' : 's'} ${s.hosts.map(text).join(', ')}${m.simulated ? ' (simulated GPU box)' : ''}.`,
      `- Engines: ${s.engines.map(text).join('; ')}.`,
      `- Benchmark client: ${text(s.client)}; each configuration measured ${s.repeats} time${s.repeats === 1 ? '' : 's'}, ${s.gpusPerTrial} GPU${s.gpusPerTrial === 1 ? '' : 's'} per server.`,
      `- Method: ${text(s.method)}`,
    ].join('\n'),
  );
  if (s.benchCommand) p('Benchmark command of the primary workload:', '', codeBlock(s.benchCommand, 'sh'));
  p(table(['Workload', 'Description', 'Dataset', 'SHA-256'], s.datasets.map((d) => [code(d.workloadId, true), text(d.description), code(d.dataset, true), d.sha256 ? code(d.sha256, true) : 'not recorded'])));

  m.stages.forEach((section, i) => {
    p(`## Stage ${i + 1}: ${text(section.label)}`);
    if (section.engines) p(`Applies to ${section.engines.map(text).join(', ')}.`);
    stageBody(p, m, section, repeats);
  });

  p('## Summary: option → gain');
  p(text(m.baselineStatement));
  const rows = m.summary.map((r) => [text(r.option), text(r.kept ?? 'nothing kept'), metricCell(r.before), metricCell(r.after), gainText(r.gainPct)]);
  if (m.overall) rows.push(['**Overall: baseline → recommended, primary workload**', '', metricCell(m.overall.baseline), metricCell(m.overall.recommended), `**${gainText(m.overall.gainPct)}**`]);
  p(table(['Option', 'Kept', `Before (${unit})`, `After (${unit})`, 'Gain'], rows));
  p(`Gain is in the objective's direction: for ${m.objective.label}, ${m.objective.better === 'higher' ? 'after ÷ before − 1' : 'before ÷ after − 1 (the speed-up)'}. "-" means the stage kept nothing.`);

  p('## Generalisation: baseline vs recommended');
  if (m.generalisation) stageBody(p, m, m.generalisation, repeats);
  else p('The baseline and the recommendation have not been compared on the scenarios yet.');

  return `${out.join('\n').trimEnd()}\n`;
}

function stageBody(p: (...lines: string[]) => void, m: ReportModel, section: StageSection, repeats: number): void {
  if (section.trials.length === 0) {
    p('No trial of this stage has been planned: it does not apply to the engine kept.');
  } else {
    p(
      table(
        ['Trial', 'Status', ...m.metricColumns.map((c) => (c.key === m.objective.metric ? `**${c.title} (${c.unit})**` : `${c.title} (${c.unit})`)), 'Notes'],
        section.trials.map((t) => [
          text(trialName(t, section, repeats)),
          t.status === 'failed' || t.status === 'rejected' ? `**${STATUS_TEXT[t.status]}**` : STATUS_TEXT[t.status],
          ...m.metricColumns.map((c) => metricCell(t.metrics[c.key], t.intervals[c.key])),
          trialNotes(t).map(text).join('; '),
        ]),
      ),
    );
    const commands = new Map<string, string>();
    for (const t of section.trials) if (!commands.has(t.label)) commands.set(t.label, t.command);
    p('Commands:', '', [...commands].map(([label, command]) => `- ${text(label)}: ${code(command)}`).join('\n'));
  }
  p(`Decision: ${text(decisionText(section))}`);
}

/** Free text: characters Markdown would read as markup are escaped, line breaks become spaces. */
export function text(value: string): string {
  // An underscore inside a word (max_num_tokens) is never emphasis, so it is left readable.
  return value
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*[\]<>|~&]/g, (c) => `\\${c}`)
    .replace(/(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\_');
}

/** An inline code span that holds any text, usable in a table cell too. */
function code(value: string, inTable = false): string {
  // GFM reads a pipe as a cell border even inside a code span; outside tables the backslash would show.
  const oneLine = value.replace(/[\r\n]+/g, ' ');
  const flat = inTable ? oneLine.replace(/\|/g, '\\|') : oneLine;
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

function codeBlock(value: string, lang: string): string {
  const longest = Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${value}\n${fence}`;
}

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
