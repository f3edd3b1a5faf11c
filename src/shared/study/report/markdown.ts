import type { ProjectFile } from '../study';
import { buildReportModel, stageRows, type ReportInputs, type ReportModel, type StageSection } from './model';
import { versusFootnote, versusRowNotes, versusRowWorse, versusSideText, versusVerdictText } from './versus';
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

/** The study report as Markdown (GitHub-flavoured tables), in the shape of the reference tuning guides. */
export function renderMarkdown(project: ProjectFile, lang: ReportLang = 'en', inputs: ReportInputs = {}): string {
  return markdownOf(buildReportModel(project, lang, inputs), project.study.repeats);
}

function markdownOf(m: ReportModel, repeats: number): string {
  const tx = m.text;
  const out: string[] = [];
  const p = (...lines: string[]) => out.push(...lines, '');
  // Numbers and their intervals hold only digits, signs and brackets: no escaping needed, and none shown.
  const num = (value: number | null | undefined) => metricCell(tx, value);

  p(`# ${text(m.title)}`);
  p(`${tx.markup('header.study', text, { name: `**${text(m.studyName)}**` })}${m.description ? ` — ${text(m.description)}` : ''}`);
  if (m.ran) p(text(m.ran));
  if (m.simulated) p(`> **${text(tx.t('callout.simulated'))}** ${text(simulatedText(m))}`);
  if (m.status.text) p(`> **${text(m.status.complete ? tx.t('callout.note') : tx.t('callout.incomplete'))}** ${text(m.status.text)}`);

  p(`## ${text(tx.t('heading.recommendation'))}`);
  if (m.recommendation) {
    const r = m.recommendation;
    p(text(tx.t('rec.intro', { engine: r.engineLabel, goal: m.goalPhrase, workload: m.goal.primaryWorkload })));
    p(codeBlock(r.command, 'sh'));
    if (r.envNames.length > 0) {
      const secrets = new Map(r.secretEnv.map((s) => [s.name, s.ref]));
      const names = r.envNames.map((n) => (secrets.has(n) ? tx.markup('rec.envSecret', text, { name: code(n), ref: code(secrets.get(n) ?? '') }) : code(n)));
      p(tx.markup('rec.env', text, { names: names.join(', ') }));
    }
    if (r.path.length > 0) p(text(tx.t('rec.path', { path: r.path.join(' → ') })));
    for (const line of recommendationBasis(m)) p(text(line));
  } else {
    p(text(m.noRecommendation ?? tx.t('rec.none')));
  }
  p(text(m.baselineStatement) + (m.baseline?.command ? ` ${tx.markup('baseline.command', text, { command: code(m.baseline.command) })}` : ''));

  p(`## ${text(tx.t('heading.scenarios'))}`);
  const callout = regressionCallout(m);
  if (callout) p(`> **${text(tx.t('callout.regression'))}** ${text(callout)}`);
  const unit = m.objective.unit;
  p(
    table(
      scenarioColumns(m).map(text),
      m.scenarios.map((s) => {
        const name = text(s.primary ? tx.t('scenario.primary', { scenario: s.description }) : s.description);
        return [
          s.regression ? `**⚠ ${name}**` : name,
          text(scenarioValue(tx, s.baseline, s.baselineNote, s.baselineStat)),
          text(scenarioValue(tx, s.recommended, s.recommendedNote, s.recommendedStat)),
          s.regression ? `**${text(changeText(s, tx))}**` : text(changeText(s, tx)),
          text(factorText(s, tx)),
          s.regression ? `**${text(winnerText(s, tx))}**` : text(winnerText(s, tx)),
        ];
      }),
    ),
  );
  p(text(tx.t('scenario.footnote', { direction: tx.t(`goal.direction.${m.objective.better}`, { metric: m.objective.label }), margin: tx.percent(m.goal.marginPct) })));

  if (m.versus) versusBody(p, m);

  p(`## ${text(tx.t('heading.notes'))}`);
  p(m.notes.map((n) => `- ${text(n.text)}`).join('\n'));

  p(`## ${text(tx.t('heading.goal'))}`);
  p(
    [
      `- ${text(tx.t('goal.objective', { objective: m.goal.objectiveText, workload: m.goal.primaryWorkload }))}`,
      `- ${m.goal.slos.length > 0 ? tx.markup('goal.slos', text, { slos: m.goal.slos.map((slo) => code(slo)).join('; ') }) : text(tx.t('goal.slosNone'))}`,
      ...(m.basis.text !== null ? [`- ${text(m.basis.text)}`] : []),
      `- ${text(tx.t('goal.margin', { margin: tx.percent(m.goal.marginPct) }))}`,
      `- ${text(tx.t(`goal.strategy.${m.goal.strategy}`))}`,
    ].join('\n'),
  );

  p(`## ${text(tx.t('heading.setup'))}`);
  const s = m.setup;
  const notRecorded = tx.t('setup.notRecorded');
  const hardware = { gpu: text(s.gpu), driver: text(s.driver ?? notRecorded), cuda: text(s.cuda ?? notRecorded), hosts: s.hosts.map(text).join(', ') };
  p(
    [
      `- ${s.variants.length > 0 ? tx.markup('setup.modelVariants', text, { model: code(s.model), variants: s.variants.map(text).join('; ') }) : tx.markup('setup.model', text, { model: code(s.model) })}`,
      `- ${m.simulated ? tx.markup('setup.hardwareSimulated', text, hardware) : tx.markup('setup.hardware', text, hardware)}`,
      `- ${text(tx.t('setup.engines', { engines: s.engines.join('; ') }))}`,
      `- ${text(tx.plural('setup.client', s.repeats, { client: s.client, gpus: s.gpusPerServer }))}`,
      `- ${text(tx.t('setup.basis', { basis: s.basis }))}`,
      `- ${text(tx.t('setup.method', { method: s.method }))}`,
    ].join('\n'),
  );
  if (s.benchCommand) p(text(tx.t('setup.benchCommand')), '', codeBlock(s.benchCommand, 'sh'));
  p(
    table(
      [tx.t('setup.col.workload'), tx.t('setup.col.description'), tx.t('setup.col.dataset'), 'SHA-256'].map(text),
      s.datasets.map((d) => [code(d.workloadId, true), text(d.description), code(d.dataset, true), d.sha256 ? code(d.sha256, true) : text(notRecorded)]),
    ),
  );

  m.stages.forEach((section, i) => {
    p(`## ${text(tx.t('heading.stage', { n: tx.integer(i + 1), label: section.label }))}`);
    if (section.engines) p(text(tx.t('stage.appliesTo', { engines: section.engines.join(', ') })));
    stageBody(p, m, section, repeats);
  });

  p(`## ${text(tx.t('heading.summary'))}`);
  p(text(m.baselineStatement));
  const rows = m.summary.map((r) => [text(r.option), text(r.kept ?? tx.t('summary.nothingKept')), num(r.before), num(r.after), text(gainText(r.gainPct, tx))]);
  if (m.overall) rows.push([`**${text(tx.t('summary.overall'))}**`, '', num(m.overall.baseline), num(m.overall.recommended), `**${text(gainText(m.overall.gainPct, tx))}**`]);
  p(table([tx.t('summary.col.option'), tx.t('summary.col.kept'), tx.t('summary.col.before', { unit }), tx.t('summary.col.after', { unit }), tx.t('summary.col.gain')].map(text), rows));
  p(text(tx.t(`summary.footnote.${m.objective.better}`, { metric: m.objective.label })));

  p(`## ${text(tx.t('heading.generalisation'))}`);
  if (m.generalisation) stageBody(p, m, m.generalisation, repeats);
  else p(text(tx.t('generalisation.none')));

  return `${out.join('\n').trimEnd()}\n`;
}

function stageBody(p: (...lines: string[]) => void, m: ReportModel, section: StageSection, repeats: number): void {
  const tx = m.text;
  if (section.trials.length === 0 && section.published.length === 0) {
    p(text(tx.t('stage.noTrials')));
  } else {
    const metricHeader = (c: ReportModel['metricColumns'][number]) => text(tx.t('stage.metricHeader', { metric: c.title, unit: c.unit }));
    p(
      table(
        [
          text(tx.t('stage.col.trial')),
          text(tx.t('stage.col.status')),
          ...(m.showGpus ? [text(tx.t('stage.col.gpus'))] : []),
          ...m.metricColumns.map((c) => (c.key === m.objectiveColumn ? `**${metricHeader(c)}**` : metricHeader(c))),
          text(tx.t('stage.col.notes')),
        ],
        stageRows(section).map((line) => {
          if (line.kind === 'published') {
            // A guide's printed numbers, in italics and named published, under the trial they stand beside.
            const r = line.row;
            return [
              `*${text(tx.t('published.name', { label: r.label }))}*`,
              `*${text(tx.t('published.status'))}*`,
              ...(m.showGpus ? ['–'] : []),
              ...m.metricColumns.map((c) => (r.metrics[c.key] === null || r.metrics[c.key] === undefined ? metricCell(tx, null, null) : `*${metricCell(tx, r.metrics[c.key] ?? null, null)}*`)),
              text(r.error !== null ? tx.t('published.failed', { source: r.source, error: r.error }) : tx.t('published.note', { source: r.source })),
            ];
          }
          const t = line.trial;
          return [
            text(trialName(t, section, repeats, tx)),
            t.status === 'failed' || t.status === 'rejected' ? `**${text(statusText(t.status, tx))}**` : text(statusText(t.status, tx)),
            ...(m.showGpus ? [tx.integer(t.gpuCount)] : []),
            ...m.metricColumns.map((c) => metricCell(tx, t.metrics[c.key], t.intervals[c.key])),
            trialNotes(t, tx, m.basis.gpuBudget).map(text).join('; '),
          ];
        }),
      ),
    );
    const commands = new Map<string, string>();
    for (const t of section.trials) if (!commands.has(t.label)) commands.set(t.label, t.command);
    p(text(tx.t('stage.commands')), '', [...commands].map(([label, command]) => `- ${text(label)}: ${code(command)}`).join('\n'));
  }
  p(`${text(tx.t('stage.decision'))} ${text(decisionText(section, tx))}`);
}

/** A re-run against its original: what changed, what got worse, then every configuration × workload both measured. */
function versusBody(p: (...lines: string[]) => void, m: ReportModel): void {
  const tx = m.text;
  const v = m.versus;
  if (!v) return;
  p(`## ${text(tx.t('heading.versus'))}`);
  p([text(tx.t('versus.intro', { name: `"${v.originalName}"` })), v.originalFinished ? text(tx.t('versus.originalFinished', { date: v.originalFinished })) : ''].filter(Boolean).join(' '));
  p(text(tx.t('versus.changes')), '', v.changes.map((c) => `- ${text(c)}`).join('\n'));
  if (!v.found) {
    p(`> **${text(tx.t('callout.note'))}** ${tx.markup('versus.missing', text, { name: `"${text(v.originalName)}"`, path: code(v.originalPath) })}`);
    return;
  }
  const worse = [...v.regressions, ...v.lost];
  if (worse.length > 0) {
    p(`> **${text(tx.t('callout.regression'))}** ${text(tx.plural('versus.regressions', worse.length))}`, ...worse.map((w) => `> - ${text(w)}`));
  } else if (v.rows.length > 0) {
    p(text(tx.t('versus.regressionsNone')));
  }
  if (v.rows.length === 0) {
    p(text(tx.t('versus.none')));
  } else {
    p(
      table(
        versusColumns(m).map(text),
        v.rows.map((r) => {
          const marked = (cell: string) => (r.regression ? `**${cell}**` : cell);
          return [
            versusRowWorse(r) ? `**⚠ ${text(r.configuration)}**` : text(r.configuration),
            code(r.workloadId, true),
            text(versusSideText(r.original, tx)),
            text(versusSideText(r.rerun, tx)),
            marked(r.change ? text(tx.change(r.change)) : '–'),
            marked(text(versusVerdictText(r, tx))),
            versusRowNotes(r, tx).map(text).join('; '),
          ];
        }),
      ),
    );
    p(text(versusFootnote(v, versusObjective(m).label, tx)));
  }
  for (const [title, sides] of [
    [tx.t('versus.onlyOriginal'), v.onlyOriginal],
    [tx.t('versus.onlyRerun'), v.onlyRerun],
  ] as const) {
    if (sides.length === 0) continue;
    p(text(title), '', sides.map((s) => `- ${text(tx.t('versus.oneSide', { configuration: s.configuration, workload: s.workloadId, outcome: s.outcome }))}`).join('\n'));
  }
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
