import { memo, useCallback, useEffect, useMemo, useRef, useState, type JSX } from 'react';
import { flushSync } from 'react-dom';
import { classifyLog } from '../../../../shared/engines/classify-log';
import { getAdapter } from '../../../../shared/engines';
import { metricOf } from '../../../../shared/results/metrics';
import { configWorkloadKey, metricStat, runsOf, trialsByConfig, type MetricStat } from '../../../../shared/study/run-stats';
import { TRIAL_STATUSES, type ProjectFile, type ReferenceTrial, type Trial, type TrialStatus } from '../../../../shared/study/study';
import { studyObjective, withGpuCounts } from '../../../../shared/study/objective';
import { publishedFor, unplacedReferences } from '../../../../shared/study/guide/published';
import { Badge, type BadgeTone } from '../../components/Badge';
import { TextField } from '../../components/Field';
import { foldForSearch } from '../../components/search-text';
import { SortableHeader } from '../../components/SortableHeader';
import { sortRows, type SortDirection } from '../../components/sort-rows';
import { t, type MessageKey, type PlainMessageKey } from '../../i18n';
import { SelectField } from '../../components/SelectField';
import { formatMetric } from '../../components/metric-text';
import { curveOption, paretoOption } from '../compare/charts';
import { concurrencyCurves, configPoints, ENGINE_STAGE, groupTrialsByStage, paretoFront, trialColumn, withPublished, type ConcurrencyCurve, type ConfigPoint } from '../compare/compare-model';
import { CompareView } from '../compare/CompareView';
import { baselineServerKeyOf, presetComparison, type PresetComparison, type RankedConfig } from '../../../../shared/study/rank';
import { EChart, type ChartTheme } from '../../components/EChart';
import { useNearWindow } from '../../components/near-window';
import '../compare/compare.css';
import './studies.css';
import { intervalText, statTitle, warmupNote } from '../../components/stat-text';
import { studyTextOf, trialLabelsOf, trialProblemText } from './study-words';
import type { LocalizedStudyText } from '../../../../shared/study/study-text';

/** Every row is this tall, so the visible slice of 10,000 trials is arithmetic, not measurement. */
export const ROW_HEIGHT = 36;
/**
 * Rows drawn beyond each edge of the scroll box: enough that Tab reaches the next row's checkbox (the browser then
 * scrolls it in, and the rows follow), few enough that a fast scroll redraws little.
 */
const OVERSCAN = 3;
/** What is drawn before the scroll box has a size (first paint, tests). */
const FALLBACK_VIEWPORT = 560;

type SortKey =
  | 'label'
  | 'engine'
  | 'workloadId'
  | 'repeat'
  | 'status'
  | 'gpuCount'
  | 'mean_ttft_ms'
  | 'mean_tpot_ms'
  | 'total_token_throughput'
  | 'total_token_throughput_per_gpu'
  | 'mean_latency_s';

interface TrialColumnDef {
  key: SortKey;
  label: PlainMessageKey;
  metric?: boolean;
}

const COLUMNS: readonly TrialColumnDef[] = [
  { key: 'label', label: 'compare.study.col.label' },
  { key: 'engine', label: 'compare.study.col.engine' },
  { key: 'workloadId', label: 'compare.study.col.workload' },
  { key: 'repeat', label: 'compare.study.col.repeat', metric: true },
  { key: 'status', label: 'compare.study.col.status' },
  { key: 'gpuCount', label: 'compare.study.col.gpus', metric: true },
  { key: 'mean_ttft_ms', label: 'compare.study.col.meanTtft', metric: true },
  { key: 'mean_tpot_ms', label: 'compare.study.col.meanTpot', metric: true },
  { key: 'total_token_throughput', label: 'compare.study.col.throughput', metric: true },
  // Configurations of different parallel sizes compare fairly per GPU (the trial's GPUs, from its layout).
  { key: 'total_token_throughput_per_gpu', label: 'compare.study.col.throughputPerGpu', metric: true },
  { key: 'mean_latency_s', label: 'compare.study.col.latency', metric: true },
];

const STATUS_TONES: Record<TrialStatus, BadgeTone> = { planned: 'neutral', rejected: 'warning', running: 'info', done: 'success', failed: 'danger', cancelled: 'neutral' };

function sortValue(trial: Trial, key: SortKey): string | number | null {
  switch (key) {
    case 'label':
    case 'engine':
    case 'workloadId':
    case 'status':
      return trial[key];
    case 'repeat':
      return trial.repeat;
    case 'gpuCount':
      return trial.gpuCount ?? null;
    default:
      return metricOf(trial, key);
  }
}

interface SortOrder {
  key: SortKey | null;
  direction: SortDirection;
}

/** Missing numbers go last either way; unsorted, the trials keep the project's order. */
function sortTrials(trials: readonly Trial[], order: SortOrder): Trial[] {
  const key = order.key;
  return key === null ? [...trials] : sortRows(trials, (trial) => sortValue(trial, key), order.direction);
}

interface TrialFilter {
  text: string;
  status: 'all' | TrialStatus;
  engine: string;
  workload: string;
}

/**
 * The failure's class (out of memory, unknown flag, …) from the engine's own words in the error, and the error in the
 * app's language; a refusal's reason.
 */
function trialNote(trial: Trial): string | null {
  if (trial.status === 'rejected') return trialProblemText(trial);
  if (!trial.error) return null;
  const words = trialProblemText(trial) ?? trial.error;
  const verdict = classifyLog(trial.error, { engine: trial.engine });
  const known = verdict.class !== 'unknown' && verdict.class !== 'ready' && verdict.class !== 'starting';
  return known ? `${t(`compare.study.errorClass.${verdict.class}`)}: ${words}` : words;
}

/** A stage group's name in the app's language: the planner's own stages worded, the study's by its translations. */
function stageLabel(stageId: string, label: string, own: LocalizedStudyText): string {
  if (stageId === ENGINE_STAGE) return t('compare.study.stage.engine');
  if (stageId === 'generalisation') return t('compare.study.stage.generalisation');
  if (stageId === 'grid' && label === stageId) return t('compare.study.stage.grid');
  return own.stage(stageId) ?? label;
}

/** How the table names trials and workloads: the study's labels in the app's language, as the plan and run monitor do. */
interface TrialWords {
  label: (trial: Trial) => string;
  workload: (workloadId: string) => string;
}

type Line =
  | { kind: 'group'; stageId: string; label: string; trials: Trial[] }
  | { kind: 'trial'; trial: Trial }
  /** A guide's published result, right under the trial of the same candidate and workload (or in a group of its own). */
  | { kind: 'published'; reference: ReferenceTrial };

// The engine column fits the longest "TensorRT-LLM 1.2.0rc1"; a workload's label is cut short, whole in its title.
const GRID_TEMPLATE = '36px minmax(220px, 2.2fr) 168px minmax(150px, 1.2fr) 64px 100px 56px 130px 130px 130px 130px 130px 56px minmax(200px, 2fr)';

const ROW_METRICS = ['mean_ttft_ms', 'mean_tpot_ms', 'total_token_throughput', 'total_token_throughput_per_gpu', 'mean_latency_s'] as const;

/**
 * A configuration's statistics on its workload, worked out once per group of trials (`trialsByConfig`'s arrays, kept
 * as long as the project is): every row of the configuration shows them, and a scroll draws its rows again.
 */
const groupStats = new WeakMap<readonly Trial[], Map<string, MetricStat | null>>();

function groupStat(trials: readonly Trial[], trial: Trial, metric: string): MetricStat | null {
  let stats = groupStats.get(trials);
  if (!stats) groupStats.set(trials, (stats = new Map()));
  if (!stats.has(metric)) stats.set(metric, metricStat(trials, trial.serverKey, trial.workloadId, metric));
  return stats.get(metric) ?? null;
}

/** A trial's own number, and under it the interval of its configuration's numbers on that workload. */
function MetricCell({ trial, trials, metric }: { trial: Trial; trials: readonly Trial[]; metric: string }) {
  const stat = trial.status === 'done' ? groupStat(trials, trial, metric) : null;
  const interval = intervalText(metric, stat);
  return (
    <div role="cell" className="num trials-metric" title={stat ? statTitle(metric, stat) : undefined}>
      <span>{formatMetric(metric, metricOf(trial, metric))}</span>
      {interval && <span className="trials-interval muted">{interval}</span>}
    </div>
  );
}

/** Memoized: while the table scrolls, rows that stay in view are not drawn again. */
const TrialRow = memo(function TrialRow({
  trial,
  label,
  workload,
  trials,
  rowIndex,
  top,
  checked,
  onToggle,
  baseline,
  recommended,
}: {
  trial: Trial;
  /** The trial's name and its workload's, in the app's language. */
  label: string;
  workload: string;
  /** The study's trials of this trial's configuration on its workload: its repeats give the interval and run count. */
  trials: readonly Trial[];
  rowIndex: number;
  top: number;
  checked: boolean;
  onToggle: (id: string, on: boolean) => void;
  baseline: boolean;
  recommended: boolean;
}) {
  const note = trialNote(trial);
  const warmup = warmupNote(trial);
  const runs = trial.status === 'done' ? runsOf(trials, trial.serverKey, trial.workloadId).length : null;
  const title = [note, warmup].filter((s): s is string => s !== null).join('\n');
  return (
    <div role="row" aria-rowindex={rowIndex} className={`trials-row${checked ? ' is-checked' : ''}`} style={{ top, height: ROW_HEIGHT, gridTemplateColumns: GRID_TEMPLATE }} data-trial-id={trial.id}>
      <div role="cell" className="trials-check">
        <input type="checkbox" aria-label={t('compare.study.select', { label: `${label} · ${workload} · ${trial.repeat}` })} checked={checked} onChange={(event) => onToggle(trial.id, event.target.checked)} />
      </div>
      <div role="cell" className="trials-label" title={label}>
        <span className="trials-ellipsis">{label}</span>
        {baseline && <Badge tone="info">{t('compare.study.baselineBadge')}</Badge>}
        {recommended && <Badge tone="accent">{t('compare.study.recommendedBadge')}</Badge>}
      </div>
      <div role="cell" className="trials-ellipsis" title={`${getAdapter(trial.engine).displayName} ${trial.version}`}>
        {getAdapter(trial.engine).displayName} {trial.version}
      </div>
      <div role="cell" className={`trials-ellipsis${workload === trial.workloadId ? ' mono' : ''}`} title={workload}>
        {workload}
      </div>
      <div role="cell" className="num">
        {trial.repeat}
      </div>
      <div role="cell">
        <Badge tone={STATUS_TONES[trial.status]} dot>
          {t(`compare.study.status.${trial.status}`)}
        </Badge>
      </div>
      <div role="cell" className="num">
        {trial.gpuCount ?? ''}
      </div>
      {ROW_METRICS.map((key) => (
        <MetricCell key={key} trial={trial} trials={trials} metric={key} />
      ))}
      <div role="cell" className="num">
        {runs ?? ''}
      </div>
      <div role="cell" className={`trials-ellipsis trials-note${trial.status === 'failed' ? ' is-error' : ''}`} title={title || undefined}>
        {note ?? ''}
        {warmup && <span className={`trials-warmup muted${trial.warmup?.error ? ' is-error' : ''}`}>{note ? ` · ${warmup}` : warmup}</span>}
      </div>
    </div>
  );
});

/** A published result as a row: the guide's printed numbers, labelled published with their source, never selectable. */
function PublishedRow({ reference, rowIndex, top }: { reference: ReferenceTrial; rowIndex: number; top: number }) {
  const source = t('compare.published.source', { file: reference.source.file, line: reference.source.line });
  const note = reference.status === 'failed' ? t('compare.study.published.failed', { error: reference.error ?? '' }) : source;
  const held = reference.result ? { result: reference.result } : null;
  return (
    <div
      role="row"
      aria-rowindex={rowIndex}
      className="trials-row trials-published"
      style={{ top, height: ROW_HEIGHT, gridTemplateColumns: GRID_TEMPLATE }}
      data-reference-id={reference.id}
      title={t('compare.study.published.rowTitle', { file: reference.source.file, line: reference.source.line })}
    >
      <div role="cell" className="trials-check" />
      <div role="cell" className="trials-label">
        <Badge tone="info">{t('compare.published.badge')}</Badge>
        <span className="trials-ellipsis">{reference.label}</span>
      </div>
      <div role="cell" className="trials-ellipsis">
        {reference.engine ? `${getAdapter(reference.engine).displayName} ${reference.version ?? ''}` : ''}
      </div>
      <div role="cell" className="trials-ellipsis mono">
        {reference.workloadId ?? ''}
      </div>
      <div role="cell" className="num" />
      <div role="cell">
        <Badge tone={reference.status === 'failed' ? 'danger' : 'neutral'}>{t('compare.study.published.status')}</Badge>
      </div>
      {/* A guide's printed block does not say how many GPUs its server held: no count, no per-GPU number. */}
      <div role="cell" className="num" />
      {ROW_METRICS.map((key) => (
        <div key={key} role="cell" className="num trials-metric">
          <span>{formatMetric(key, held ? metricOf(held, key) : null)}</span>
        </div>
      ))}
      <div role="cell" className="num" />
      <div role="cell" className={`trials-ellipsis trials-note${reference.status === 'failed' ? ' is-error' : ''}`} title={note}>
        {note}
      </div>
    </div>
  );
}

function GroupRow({ line, rowIndex, top, checked, onToggleGroup }: { line: Extract<Line, { kind: 'group' }>; rowIndex: number; top: number; checked: ReadonlySet<string>; onToggleGroup: (trials: Trial[], on: boolean) => void }) {
  const all = line.trials.length > 0 && line.trials.every((trial) => checked.has(trial.id));
  return (
    <div role="row" aria-rowindex={rowIndex} className="trials-row trials-group" style={{ top, height: ROW_HEIGHT }}>
      <div role="cell" className="trials-check">
        {line.trials.length > 0 && <input type="checkbox" aria-label={t('compare.study.selectGroup', { stage: line.label })} checked={all} onChange={(event) => onToggleGroup(line.trials, event.target.checked)} />}
      </div>
      <div role="cell" className="trials-group-label">
        <span>{line.label}</span>
        {line.trials.length > 0 && <span className="muted">{t('compare.study.groupCount', { count: line.trials.length })}</span>}
      </div>
    </div>
  );
}

/** The visible slice of a long list: which lines to draw for a scroll position. */
export function visibleRange(scrollTop: number, viewport: number, count: number): { first: number; last: number } {
  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + OVERSCAN);
  return { first, last };
}

/**
 * The table's rows: only the visible slice of the lines (fixed row height), drawn again as the box scrolls. Its own
 * component, so a scroll redraws the rows and nothing else of the tab.
 */
const TrialLines = memo(function TrialLines({
  lines,
  byConfig,
  checked,
  onToggle,
  onToggleGroup,
  baselineKey,
  isRecommended,
  words,
  noMatch,
}: {
  lines: readonly Line[];
  words: TrialWords;
  /** The study's trials by configuration and workload (`trialsByConfig`). */
  byConfig: ReadonlyMap<string, Trial[]>;
  checked: ReadonlySet<string>;
  onToggle: (id: string, on: boolean) => void;
  onToggleGroup: (trials: Trial[], on: boolean) => void;
  baselineKey: string | undefined;
  isRecommended: (trial: Trial) => boolean;
  noMatch: boolean;
}) {
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(FALLBACK_VIEWPORT);
  const scrollRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const box = scrollRef.current;
    if (!box) return;
    const measure = () => setViewport(box.clientHeight || FALLBACK_VIEWPORT);
    measure();
    // jsdom has no ResizeObserver; the first measurement then stands.
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    return () => observer.disconnect();
  }, []);

  function onScroll() {
    // The browser sends one scroll event a frame, before it paints: drawing the rows now, not in a later task, puts
    // them on screen in the same frame as the scroll. Only a move to another row draws again.
    const top = Math.floor((scrollRef.current?.scrollTop ?? 0) / ROW_HEIGHT) * ROW_HEIGHT;
    if (top !== scrollTop) flushSync(() => setScrollTop(top));
  }

  const { first, last } = visibleRange(scrollTop, viewport, lines.length);
  return (
    <div role="rowgroup" ref={scrollRef} className="trials-scroll" onScroll={onScroll}>
      <div className="trials-spacer" style={{ height: lines.length * ROW_HEIGHT }}>
        {lines.slice(first, last).map((line, i) => {
          const index = first + i;
          if (line.kind === 'published') return <PublishedRow key={`p:${line.reference.id}`} reference={line.reference} rowIndex={index + 2} top={index * ROW_HEIGHT} />;
          return line.kind === 'group' ? (
            <GroupRow key={`g:${line.stageId}`} line={line} rowIndex={index + 2} top={index * ROW_HEIGHT} checked={checked} onToggleGroup={onToggleGroup} />
          ) : (
            <TrialRow
              key={line.trial.id}
              trial={line.trial}
              label={words.label(line.trial)}
              workload={words.workload(line.trial.workloadId)}
              trials={byConfig.get(configWorkloadKey(line.trial.serverKey, line.trial.workloadId)) ?? NO_TRIALS}
              rowIndex={index + 2}
              top={index * ROW_HEIGHT}
              checked={checked.has(line.trial.id)}
              onToggle={onToggle}
              baseline={baselineKey !== undefined && line.trial.serverKey === baselineKey && line.trial.stageId !== 'generalisation'}
              recommended={isRecommended(line.trial)}
            />
          );
        })}
      </div>
      {noMatch && <p className="muted results-no-match">{t('compare.study.noMatch')}</p>}
    </div>
  );
});

const NO_TRIALS: Trial[] = [];

type ThroughputKey = 'total_token_throughput' | 'total_token_throughput_per_gpu';

function throughputLine(key: ThroughputKey, value: number): string {
  return key === 'total_token_throughput'
    ? t('compare.chart.throughputLine', { value: formatMetric(key, value) })
    : t('compare.chart.throughputLinePerGpu', { value: formatMetric(key, value) });
}

function latencyLine(latencyName: string, latencyKey: string, value: number): string {
  return t('compare.chart.latencyLine', { latency: latencyName, value: formatMetric(latencyKey, value) });
}

/** What a point's error bar stands for, and how many runs are behind it: "[77.03, 86.97] · runs: 3". */
function spreadLine(latencyKey: string, p: { latencyLow?: number; latencyHigh?: number; runs?: number }): string[] {
  if (p.runs === undefined) return [];
  const interval = p.latencyLow === undefined || p.latencyHigh === undefined ? null : intervalText(latencyKey, { low: p.latencyLow, high: p.latencyHigh });
  return [[interval, t('compare.runCount', { count: p.runs })].filter(Boolean).join(' · ')];
}

/**
 * The study's charts under the table. Their data (a pass over every trial) is worked out only when the section comes
 * near the window: a study of thousands of trials shows its table without waiting for charts below it.
 */
function StudyCharts({ project, trials }: { project: ProjectFile; /** The study's trials, each with its GPU count. */ trials: readonly Trial[] }) {
  const sectionRef = useRef<HTMLElement>(null);
  const near = useNearWindow(sectionRef);
  return (
    <section ref={sectionRef} className="compare-section" aria-label={t('compare.study.charts')}>
      <h3 className="compare-section-title">{t('compare.study.charts')}</h3>
      {near ? <StudyChartsBody project={project} trials={trials} /> : <div className="study-charts-placeholder" />}
    </section>
  );
}

function StudyChartsBody({ project, trials }: { project: ProjectFile; trials: readonly Trial[] }) {
  const { study, state } = project;
  const [latencyKey, setLatencyKey] = useState<'mean_ttft_ms' | 'mean_tpot_ms'>('mean_ttft_ms');
  // A study compared per GPU or on a GPU budget opens its charts per GPU: the axis the decisions read.
  const [throughputKey, setThroughputKey] = useState<ThroughputKey>(() => (studyObjective(study.goal).basis === 'server' ? 'total_token_throughput' : 'total_token_throughput_per_gpu'));
  const latencyName = t('metric.mean', { latency: latencyKey === 'mean_ttft_ms' ? 'TTFT' : 'TPOT' });
  const workloads = useMemo(() => [study.workloads.primary, ...study.workloads.generalisation], [study.workloads]);
  const curves = useMemo(() => concurrencyCurves(trials, workloads, latencyKey, throughputKey), [trials, workloads, latencyKey, throughputKey]);
  const points = useMemo(() => configPoints(trials, study.workloads.primary.id, latencyKey, throughputKey), [trials, study.workloads.primary.id, latencyKey, throughputKey]);
  const front = useMemo(() => paretoFront(points), [points]);
  const rec = state.recommendation;
  const recommendedKey = rec?.serverKey ?? trials.find((tr) => rec && tr.stageId !== 'generalisation' && tr.engine === rec.engine && tr.command === rec.command)?.serverKey;

  const xName = throughputKey === 'total_token_throughput' ? t('compare.chart.throughputAxis') : t('compare.chart.throughputAxisPerGpu');
  const yName = `${latencyName} (ms)`;
  const curveTitle = t('compare.chart.curve', { latency: latencyName });
  const paretoTitle = t('compare.chart.pareto', { latency: latencyName });

  const curve = useCallback(
    (theme: ChartTheme) =>
      curveOption(
        theme,
        { title: curveTitle, xName, yName },
        curves,
        (count) => t('compare.chart.concurrency', { count }),
        (c: ConcurrencyCurve, i: number) => {
          const p = c.points[i]!;
          return [c.label, t('compare.chart.concurrencyLine', { count: p.concurrency }), throughputLine(throughputKey, p.throughput), latencyLine(latencyName, latencyKey, p.latency), ...spreadLine(latencyKey, p)];
        },
      ),
    [curves, curveTitle, xName, yName, latencyKey, latencyName, throughputKey],
  );
  const pareto = useCallback(
    (theme: ChartTheme) =>
      paretoOption(
        theme,
        { title: paretoTitle, xName, yName, configs: t('compare.chart.configs'), front: t('compare.chart.front'), recommended: t('compare.chart.recommended') },
        points,
        front,
        recommendedKey,
        (p: ConfigPoint) => [p.label, ...(p.id === recommendedKey ? [t('compare.chart.recommended')] : []), throughputLine(throughputKey, p.x), latencyLine(latencyName, latencyKey, p.y), ...spreadLine(latencyKey, p)],
      ),
    [points, front, recommendedKey, paretoTitle, xName, yName, latencyKey, latencyName, throughputKey],
  );

  return (
    <>
      <SelectField
        label={t('compare.chart.latencySelect')}
        value={latencyKey}
        options={[
          { value: 'mean_ttft_ms', label: t('metric.mean', { latency: 'TTFT' }) },
          { value: 'mean_tpot_ms', label: t('metric.mean', { latency: 'TPOT' }) },
        ]}
        onValueChange={(v) => setLatencyKey(v as 'mean_ttft_ms' | 'mean_tpot_ms')}
      />
      <SelectField
        label={t('compare.chart.throughputSelect')}
        value={throughputKey}
        options={[
          { value: 'total_token_throughput', label: t('compare.chart.perServer') },
          { value: 'total_token_throughput_per_gpu', label: t('compare.chart.perGpu') },
        ]}
        onValueChange={(v) => setThroughputKey(v as ThroughputKey)}
      />
      <div className="compare-charts">
        {curves.length > 0 ? <EChart title={curveTitle} option={curve} /> : <p className="muted">{t('compare.chart.noCurve')}</p>}
        {points.length > 0 ? <EChart title={paretoTitle} option={pareto} /> : <p className="muted">{t('compare.chart.noPareto')}</p>}
      </div>
    </>
  );
}

/** The comparisons a reader makes first, one button each. */
const PRESETS = [
  { kind: 'topTwo', label: 'compare.study.topTwo', hint: 'compare.study.topTwoHint', unavailable: 'compare.study.topTwoUnavailable' },
  { kind: 'baseline', label: 'compare.study.withBaseline', hint: 'compare.study.withBaselineHint', unavailable: 'compare.study.withBaselineUnavailable' },
] as const satisfies readonly { kind: PresetComparison; label: PlainMessageKey; hint: MessageKey; unavailable: PlainMessageKey }[];

/** Every trial of a study grouped by stage, filterable and sortable; selected trials open side by side in a comparison. */
export function ResultsTab(props: { project: ProjectFile; /** Opens with this preset comparison shown. */ initialComparison?: PresetComparison }): JSX.Element {
  const { study, state } = props.project;
  // Each trial with its GPU count (a project stored before trials had their own: the study's), for the per-GPU numbers.
  const allTrials = useMemo(() => withGpuCounts(study, state.trials), [study, state.trials]);
  const topTwo = useMemo(() => presetComparison('topTwo', study, state), [study, state]);
  const withBaseline = useMemo(() => presetComparison('baseline', study, state), [study, state]);
  const initial = props.initialComparison === 'topTwo' ? topTwo : props.initialComparison === 'baseline' ? withBaseline : [];
  const initialIds = initial.length === 2 ? initial.map((r) => r.trialId) : null;
  const [filter, setFilter] = useState<TrialFilter>({ text: '', status: 'all', engine: 'all', workload: 'all' });
  const [order, setOrder] = useState<SortOrder>({ key: null, direction: 'ascending' });
  const [checked, setChecked] = useState<ReadonlySet<string>>(() => new Set(initialIds ?? []));
  const [comparing, setComparing] = useState<string[] | null>(initialIds);
  // A preset comparison measures its first column against its last (the runner-up, or the study's baseline);
  // otherwise the study's baseline is the default.
  const [comparingBaseline, setComparingBaseline] = useState<string | undefined>(() => initialIds?.[1]);
  const compareRef = useRef<HTMLDivElement>(null);

  const baselineKey = baselineServerKeyOf(study, state);
  const rec = state.recommendation;
  const isRecommended = useCallback((tr: Trial) => (rec?.serverKey !== undefined ? tr.serverKey === rec.serverKey : rec !== undefined && tr.engine === rec.engine && tr.command === rec.command), [rec]);

  // Worked out once per project, not per row: the study's translations and the planner's role names.
  const own = useMemo(() => studyTextOf(props.project), [props.project]);
  const words = useMemo<TrialWords>(() => {
    const label = trialLabelsOf(props.project);
    return { label, workload: (id) => own.workload(id) ?? id };
  }, [props.project, own]);

  const engines = useMemo(() => [...new Set(allTrials.map((tr) => tr.engine))], [allTrials]);
  const workloads = useMemo(() => [...new Set(allTrials.map((tr) => tr.workloadId))], [allTrials]);
  // Each configuration's trials on each workload, grouped once: rows read their repeats from here, not from a scan
  // of every trial per cell.
  const byConfig = useMemo(() => trialsByConfig(allTrials), [allTrials]);

  const lines = useMemo<Line[]>(() => {
    const needle = foldForSearch(filter.text.trim());
    const shown = allTrials.filter((tr) => {
      if (filter.status !== 'all' && tr.status !== filter.status) return false;
      if (filter.engine !== 'all' && tr.engine !== filter.engine) return false;
      if (filter.workload !== 'all' && tr.workloadId !== filter.workload) return false;
      if (!needle) return true;
      return [tr.label, words.label(tr), tr.candidateId, tr.workloadId, words.workload(tr.workloadId), tr.stageId, tr.engine, tr.error, tr.rejectReason, trialProblemText(tr)].some((s) => !!s && foldForSearch(s).includes(needle));
    });
    // Each published result once, under the first trial of its candidate and workload.
    const placed = new Set<string>();
    const beside = (trial: Trial): Line[] =>
      publishedFor(trial, state.references)
        .filter((r) => !placed.has(r.id))
        .map((reference): Line => {
          placed.add(reference.id);
          return { kind: 'published', reference };
        });
    const staged = groupTrialsByStage(shown, study.stages).flatMap((group): Line[] => {
      const trials = sortTrials(group.trials, order);
      return [{ kind: 'group', stageId: group.stageId, label: stageLabel(group.stageId, group.label, own), trials }, ...trials.flatMap((trial): Line[] => [{ kind: 'trial', trial }, ...beside(trial)])];
    });
    const rest = unplacedReferences(allTrials, state.references).filter((r) => !needle || [r.label, r.stageId, r.candidateId, r.workloadId].some((x) => !!x && foldForSearch(x).includes(needle)));
    if (rest.length === 0 || filter.status !== 'all') return staged;
    return [...staged, { kind: 'group', stageId: 'published', label: t('compare.study.published.group'), trials: [] }, ...rest.map((reference): Line => ({ kind: 'published', reference }))];
  }, [allTrials, state.references, study.stages, filter, order, words, own]);
  const shownCount = useMemo(() => lines.filter((l) => l.kind === 'trial').length, [lines]);

  const toggle = useCallback((id: string, on: boolean) => {
    setChecked((s) => {
      const next = new Set(s);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);
  const toggleGroup = useCallback((trials: Trial[], on: boolean) => {
    setChecked((s) => {
      const next = new Set(s);
      for (const tr of trials) {
        if (on) next.add(tr.id);
        else next.delete(tr.id);
      }
      return next;
    });
  }, []);

  function sortBy(key: SortKey) {
    setOrder((o) => (o.key === key ? { key, direction: o.direction === 'ascending' ? 'descending' : 'ascending' } : { key, direction: 'ascending' }));
  }

  // Checks of trials a re-plan removed no longer count; the comparison keeps the study's order.
  const selected = useMemo(() => allTrials.filter((tr) => checked.has(tr.id)), [allTrials, checked]);
  // In the order they were chosen (the top two: best first), so the columns read left to right.
  const compared = useMemo(() => (comparing ? comparing.map((id) => allTrials.find((tr) => tr.id === id)).filter((tr): tr is Trial => tr !== undefined) : []), [comparing, allTrials]);
  // Compared columns name their trials as the rows do.
  const columns = useMemo(() => withPublished(compared.map((tr) => trialColumn(tr, allTrials, words)), compared, state.references), [compared, allTrials, state.references, words]);
  const defaultBaseline = comparingBaseline ?? compared.find((tr) => tr.serverKey === baselineKey)?.id ?? compared[0]?.id;

  function comparePreset(configs: readonly RankedConfig[]) {
    const ids = configs.map((r) => r.trialId);
    setChecked(new Set(ids));
    setComparingBaseline(ids[1]);
    setComparing(ids);
  }

  useEffect(() => {
    if (comparing) compareRef.current?.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
  }, [comparing]);

  const filterOptions = (values: string[], label: (v: string) => string) => [{ value: 'all', label: t('compare.study.filter.all') }, ...values.map((v) => ({ value: v, label: label(v) }))];
  const objective = studyObjective(study.goal);

  return (
    <div className="study-results" data-objective={objective.catalogueKey ?? objective.metric} data-basis={objective.basis}>
      <div className="results-filters">
        <TextField className="grow" label={t('compare.study.filter.text')} value={filter.text} placeholder={t('compare.study.filter.textPlaceholder')} onValueChange={(text) => setFilter((f) => ({ ...f, text }))} type="search" />
        <SelectField
          label={t('compare.study.filter.status')}
          value={filter.status}
          options={filterOptions([...TRIAL_STATUSES], (s) => t(`compare.study.status.${s as TrialStatus}`))}
          onValueChange={(status) => setFilter((f) => ({ ...f, status: status as TrialFilter['status'] }))}
        />
        <SelectField label={t('compare.study.filter.engine')} value={filter.engine} options={filterOptions(engines, (e) => getAdapter(e as Trial['engine']).displayName)} onValueChange={(engine) => setFilter((f) => ({ ...f, engine }))} />
        <SelectField label={t('compare.study.filter.workload')} value={filter.workload} options={filterOptions(workloads, words.workload)} onValueChange={(workload) => setFilter((f) => ({ ...f, workload }))} />
        <p className="results-shown muted" aria-live="polite">
          {t('compare.study.shown', { shown: shownCount, total: allTrials.length })}
        </p>
        <div className="study-results-actions">
          <button type="button" className="btn btn-ghost btn-small" disabled={selected.length === 0} onClick={() => setChecked(new Set())}>
            {t('compare.study.clear')}
          </button>
          {PRESETS.map(({ kind, label, hint, unavailable }) => {
            const configs = kind === 'topTwo' ? topTwo : withBaseline;
            return (
              <button
                key={kind}
                type="button"
                className="btn btn-secondary"
                disabled={configs.length < 2}
                title={configs.length < 2 ? t(unavailable) : t(hint, { first: configs[0]!.label, second: configs[1]!.label })}
                onClick={() => comparePreset(configs)}
              >
                {t(label)}
              </button>
            );
          })}
          <button
            type="button"
            className="btn btn-primary"
            disabled={selected.length < 2}
            onClick={() => {
              setComparingBaseline(undefined);
              setComparing(selected.map((tr) => tr.id));
            }}
          >
            {t('compare.study.compare', { count: selected.length })}
          </button>
        </div>
      </div>

      {allTrials.length === 0 && (state.references ?? []).length === 0 ? (
        <p className="muted">{t('compare.study.empty')}</p>
      ) : (
        <div role="table" className="trials-table" aria-label={t('compare.study.tableLabel')} aria-rowcount={lines.length + 1}>
          <div role="rowgroup" className="trials-head">
            <div role="row" aria-rowindex={1} className="trials-row trials-head-row" style={{ gridTemplateColumns: GRID_TEMPLATE }}>
              <div role="columnheader" className="trials-check" />
              {COLUMNS.map((column) => (
                <SortableHeader
                  key={column.key}
                  as="div"
                  label={t(column.label)}
                  sorted={order.key === column.key ? order.direction : null}
                  numeric={column.metric === true}
                  onSort={() => sortBy(column.key)}
                />
              ))}
              <div role="columnheader" className="num">
                {t('compare.study.col.runs')}
              </div>
              <div role="columnheader">{t('compare.study.col.note')}</div>
            </div>
          </div>
          <TrialLines lines={lines} byConfig={byConfig} checked={checked} onToggle={toggle} onToggleGroup={toggleGroup} baselineKey={baselineKey} isRecommended={isRecommended} words={words} noMatch={shownCount === 0} />
        </div>
      )}

      {comparing && columns.length > 0 && (
        <div ref={compareRef}>
          <CompareView key={comparing.join('\n')} columns={columns} defaultBaselineId={defaultBaseline} onClose={() => setComparing(null)} />
        </div>
      )}

      <StudyCharts project={props.project} trials={allTrials} />
    </div>
  );
}
