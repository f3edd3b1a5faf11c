import { getAdapter } from '../../engines/adapters';
import type { EngineId } from '../../engines/types';
import type { ServerConfig } from '../../engines/server-config';
import { credentialWordIndexes, redactCredentialText, REDACTED } from '../../engines/credentials';
import { homeRelativeBoxPaths } from '../../box-paths';
import { arrivalOf, gapCv, type Arrival } from '../../bench/arrival';
import type { Workload } from '../../bench/workload';
import { demoLabBoxOf } from '../../model/host';
import { metricOf, metricSpec } from '../../results/metrics';
import { warmupRequests } from '../../bench/warmup';
import { INTERVAL_LEVEL } from '../noise';
import { objectiveStat, scenarioComparison, type MetricStat, type ScenarioComparison } from '../run-stats';
import { trialGpuCount, type ObjectiveBasis, type ProjectFile, type StageDecision, type Trial, type TrialStatus, type Slo } from '../study';
import { trialMetric, trialMetricInterval, trialObjective, trialObjectiveInterval, trialReplicas, type StudyObjective } from '../objective';
import { REFERENCE_CANDIDATE_ID } from '../study-loop';
import { reportText, type ReportLang, type ReportText } from './text';
import { decisionWords, verdictWords } from './decision-words';
import { versusSection, type VersusSection } from './versus';
import { trialProblemWords } from './problem-words';
import { publishedSourceText } from '../guide/published';
import { localizedStudyText, type LocalizedStudyText } from '../study-text';
import { basisWords, gpuSizes, localObjective, localUnit, trialRoles, withReplicas } from './basis-words';

/**
 * The study report as data: every number, label and verdict the Markdown, HTML and CSV renderers show, computed once
 * so the three formats cannot disagree. Strings here are raw (unescaped); each renderer escapes for its own format.
 * Words and numbers are in the model's language (`text`: the catalogue of `messages/` and the locale's formats);
 * what the user wrote (labels, descriptions), model and engine names, commands and engine errors are kept as they are.
 */

/** The study's objective on its basis, its name and unit in the report's language. */
export type Objective = StudyObjective;

export interface MetricColumn {
  key: string;
  title: string;
  unit: string;
}

export interface TrialRow {
  id: string;
  stageId: string;
  candidateId: string;
  label: string;
  engine: EngineId;
  engineLabel: string;
  version: string;
  mode: 'env' | 'docker';
  model: string;
  status: TrialStatus;
  /** The launch command, env values replaced by their names. */
  command: string;
  /** The benchmark client's command as it ran, env values replaced by their names. */
  benchCommand: string | null;
  workloadId: string;
  repeat: number;
  hostId: string | null;
  gpus: string[];
  startedAt: string | null;
  finishedAt: string | null;
  /** Values of `metricColumns`, by key; null when not measured. */
  metrics: Record<string, number | null>;
  /** The run's own interval of each of `metricColumns` (from its requests), by key; null when it has none. */
  intervals: Record<string, { low: number; high: number } | null>;
  /** Measured runs of this trial's configuration on its workload, in the whole study. */
  runs: number;
  /** GPUs its server holds. */
  gpuCount: number;
  /** Its whole replicas on the goal's GPU budget (0: it does not fit); null when the goal has no budget. */
  replicas: number | null;
  /** "warm-up: 16 requests, 4.2 s" (or its error) when the trial's server was warmed up before it. */
  warmup: string | null;
  /** The objective on the study's basis (per GPU, or times its replicas on the budget). */
  objective: number | null;
  /** The objective's change against the baseline configuration on the same workload, in percent of the baseline. */
  vsBaselinePct: number | null;
  /** Why it did not run (rejected) or what went wrong (failed), env values replaced by their names. */
  problem: string | null;
  sloViolations: string[];
  /** Environment variable names of the server (values are never shown: they may be credentials). */
  envNames: string[];
  speculative: boolean;
  simulated: boolean;
  /** The stage kept this candidate. */
  kept: boolean;
}

/** A guide's published result in a stage: its printed numbers, beside the trial of the same candidate and workload. */
export interface PublishedRow {
  id: string;
  /** The trial it stands beside (the first of its candidate on its workload), or null when the study has none. */
  besideTrialId: string | null;
  label: string;
  /** Where it was printed: "guide.tr.txt:114". */
  source: string;
  workloadId: string | null;
  /** Values of `metricColumns` as printed, by key; null when the guide does not print one. */
  metrics: Record<string, number | null>;
  /** The guide's printed launch error, for a launch it shows failing. */
  error: string | null;
}

/** A stage's trials, each followed by the published results beside it; published results beside no trial come last. */
export function stageRows(section: StageSection): ({ kind: 'trial'; trial: TrialRow } | { kind: 'published'; row: PublishedRow })[] {
  const out: ({ kind: 'trial'; trial: TrialRow } | { kind: 'published'; row: PublishedRow })[] = [];
  for (const trial of section.trials) {
    out.push({ kind: 'trial', trial });
    for (const row of section.published) if (row.besideTrialId === trial.id) out.push({ kind: 'published', row });
  }
  for (const row of section.published) if (row.besideTrialId === null) out.push({ kind: 'published', row });
  return out;
}

export interface StageSection {
  id: string;
  label: string;
  /** Engines whose flags the stage's candidates use, when it is limited to some. */
  engines: string[] | null;
  trials: TrialRow[];
  /** The guide's published results placed on this stage (never measured here; no decision reads them). */
  published: PublishedRow[];
  /** More than one workload among the trials: the renderers then show each trial's workload. */
  severalWorkloads: boolean;
  decision: {
    winner: string | null;
    winnerLabel: string | null;
    /** The reason stored in the project (English, written when the stage was decided). */
    reason: string;
    /** The decision in the report's language, worded from the facts stored with it (or the stored reason, said so). */
    words: string;
    before: number | null;
    after: number | null;
    gainPct: number | null;
    /** The verdict in words with the change's interval: "−21.2% [−23.0, −19.5], kept". */
    verdict: string | null;
  } | null;
}

export type SimulatedSource = { kind: 'demo' } | { kind: 'hosts'; hosts: string[] };

export type ScenarioWinner = 'recommended' | 'baseline' | 'tie';

export interface ScenarioRow {
  workloadId: string;
  description: string;
  primary: boolean;
  baseline: number | null;
  recommended: number | null;
  /** Why a side has no number: "failed: …", "not measured". */
  baselineNote: string | null;
  recommendedNote: string | null;
  /** Relative change of the objective metric itself (negative: the number went down). */
  changePct: number | null;
  /** Improvement in the objective's direction (throughput ratio − 1, or latency speed-up − 1), in percent. */
  gainPct: number | null;
  /** recommended/baseline for throughput, baseline/recommended for latency: "2.7x" faster. */
  factor: number | null;
  winner: ScenarioWinner | null;
  /** Each side's objective with its interval and run count. */
  baselineStat: MetricStat | null;
  recommendedStat: MetricStat | null;
  /** The recommendation against the baseline with its interval, read against the margin. */
  comparison: ScenarioComparison | null;
  regression: boolean;
  /** "REGRESSION −13.8% total token throughput" for a regression, else null. */
  flag: string | null;
}

export interface SummaryRow {
  stageId: string;
  option: string;
  kept: string | null;
  before: number | null;
  after: number | null;
  gainPct: number | null;
}

export interface ReportNote {
  kind: 'simulated' | 'strategy' | 'quantization' | 'speculative' | 'failures' | 'slo' | 'status' | 'published';
  text: string;
}

export interface ReportModel {
  /** The report's language: its messages and number formats. */
  text: ReportText;
  title: string;
  /** When the study ran, in the report's language; null before it started. */
  ran: string | null;
  studyName: string;
  description: string | null;
  model: string;
  gpu: string;
  goalPhrase: string;
  objective: Objective;
  /** The key of `metricColumns` that holds the objective: a catalogue key, or `objective` for the total on a GPU budget. */
  objectiveColumn: string;
  /**
   * What the objective is compared on, said in words where it matters: per GPU, on a GPU budget, or per server when
   * the configurations hold different GPU counts (null: per server, every configuration the same size).
   */
  basis: { kind: ObjectiveBasis; gpuBudget: number | null; text: string | null };
  /** The stage tables show each trial's GPUs (sizes differ, or the basis is not one server). */
  showGpus: boolean;
  simulated: boolean;
  /** Where the simulated numbers come from: the demo lab, or the hosts named (null when none is simulated). */
  simulatedSource: SimulatedSource | null;
  status: {
    study: ProjectFile['state']['status'];
    complete: boolean;
    /** One sentence on where the study stands when it is not finished, or why it stopped. */
    text: string | null;
    counts: Record<TrialStatus, number>;
    total: number;
  };
  recommendation: {
    engineLabel: string;
    command: string;
    envNames: string[];
    secretEnv: { name: string; ref: string }[];
    /** Candidate labels kept, stage by stage. */
    path: string[];
    /** On a GPU budget: "2 × this server on 8 GPUs". */
    replicas: string | null;
    /** Compared per server against a baseline of another size: both per GPU, said beside. */
    perGpu: string | null;
  } | null;
  /** Why there is no recommendation (running, failed…), when there is none. */
  noRecommendation: string | null;
  baseline: { label: string; command: string | null } | null;
  baselineStatement: string;
  scenarios: ScenarioRow[];
  regressions: ScenarioRow[];
  /** Every trial, in the project's order. */
  trials: TrialRow[];
  stages: StageSection[];
  generalisation: StageSection | null;
  summary: SummaryRow[];
  overall: ScenarioRow | null;
  goal: {
    objectiveText: string;
    slos: string[];
    marginPct: number;
    primaryWorkload: string;
    strategy: 'greedy' | 'grid';
  };
  setup: {
    model: string;
    variants: string[];
    gpu: string;
    driver: string | null;
    cuda: string | null;
    hosts: string[];
    engines: string[];
    client: string;
    benchCommand: string | null;
    datasets: { workloadId: string; description: string; dataset: string; sha256: string | null }[];
    repeats: number;
    /** The GPUs its servers hold, smallest first ("2, 4 and 8"). */
    gpusPerServer: string;
    /** The basis in words (`basis.text`, or "per server"). */
    basis: string;
    /** How each number was measured and decided: warm-ups, repeats, the interval level. */
    method: string;
  };
  notes: ReportNote[];
  metricColumns: MetricColumn[];
  /** A re-run's comparison with the study it repeats (`study.rerunOf`); null for a study that is not a re-run. */
  versus: VersusSection | null;
}

/** What a report needs besides the project, read by the caller (the report itself reads no file). */
export interface ReportInputs {
  /** For a re-run: the original project its `rerunOf` names, or null when it could not be read. */
  original?: ProjectFile | null;
}

/** The metrics the report's tables show (their words are the catalogue's `metric.*`; units the metric catalogue's). */
type ColumnKey =
  | 'mean_latency_s'
  | 'total_token_throughput'
  | 'output_throughput'
  | 'mean_ttft_ms'
  | 'p99_ttft_ms'
  | 'mean_tpot_ms'
  | 'total_token_throughput_per_gpu'
  | 'output_throughput_per_gpu';

/** The column of the total on a GPU budget: no catalogue metric, the objective itself. */
const ON_BUDGET = 'objective';

export function engineLabel(engine: EngineId): string {
  return getAdapter(engine).displayName;
}

/** The goal in a phrase for the title and the recommendation: "highest total token throughput per GPU". */
function goalPhraseOf(objective: Objective, tx: ReportText): string {
  if (objective.metric === 'mean_latency_s') return tx.t('goal.latency');
  if (objective.basis === 'per-gpu') return tx.t('goal.throughput.per-gpu');
  if (objective.basis === 'gpu-budget') return tx.t('goal.throughput.gpu-budget', { budget: tx.integer(objective.gpuBudget ?? 0) });
  return tx.t('goal.throughput');
}

export function buildReportModel(project: ProjectFile, lang: ReportLang = 'en', inputs: ReportInputs = {}): ReportModel {
  const { study, state } = project;
  const tx = reportText(lang);
  const own = localizedStudyText(study, lang);
  const objective = localObjective(study.goal, tx);
  const redact = envRedactor(project);
  // The GPUs each configuration holds: where they differ, or the basis is not one server, per-GPU numbers stand beside the raw ones.
  const sizes = gpuSizes(project);
  const showGpus = sizes.length > 1 || objective.basis !== 'server';
  const objectiveColumn = objective.catalogueKey ?? ON_BUDGET;
  const shownKeys: ColumnKey[] = ['mean_ttft_ms', 'p99_ttft_ms', 'mean_tpot_ms', 'output_throughput', ...(showGpus ? (['output_throughput_per_gpu'] as const) : []), 'total_token_throughput', ...(showGpus ? (['total_token_throughput_per_gpu'] as const) : [])];
  const metricColumns: MetricColumn[] = [
    ...(objectiveColumn === ON_BUDGET ? [{ key: ON_BUDGET, title: tx.t('column.onBudget', { budget: tx.integer(objective.gpuBudget ?? 0) }), unit: objective.unit }] : []),
    ...[objectiveColumn, ...shownKeys.filter((k) => k !== objectiveColumn)]
      .filter((key): key is ColumnKey => key !== ON_BUDGET)
      .map((key) => ({ key, title: tx.t(`metric.${key}`), unit: localUnit(metricSpec(key).unit, tx) })),
  ];

  const { baselineKey, isBaseline, isRecommended } = trialRoles(project);
  const rec = state.recommendation;

  const objectiveValue = (t: Trial): number | null => (t.status === 'done' ? trialObjective(study, t) : null);
  const doneValues = (trials: Trial[]) => trials.map(objectiveValue).filter((v): v is number => v !== null);
  const baselineByWorkload = new Map<string, number | null>();
  const baselineOn = (workloadId: string): number | null => {
    if (!baselineByWorkload.has(workloadId)) baselineByWorkload.set(workloadId, mean(doneValues(state.trials.filter((t) => t.workloadId === workloadId && isBaseline(t)))));
    return baselineByWorkload.get(workloadId) ?? null;
  };

  const decisions = new Map(state.decisions.map((d) => [d.stageId, d]));
  // Measured runs per configuration and workload, counted once for every row.
  const runCounts = new Map<string, number>();
  const runKey = (t: Trial) => `${t.serverKey}\n${t.workloadId}`;
  for (const t of state.trials) if (t.status === 'done' && t.result !== undefined) runCounts.set(runKey(t), (runCounts.get(runKey(t)) ?? 0) + 1);
  const toRow = (t: Trial): TrialRow => {
    const value = objectiveValue(t);
    const base = baselineOn(t.workloadId);
    const metrics: Record<string, number | null> = {};
    const intervals: Record<string, { low: number; high: number } | null> = {};
    for (const c of metricColumns) {
      const onBudget = c.key === ON_BUDGET;
      metrics[c.key] = t.status !== 'done' ? null : onBudget ? value : trialMetric(study, t, c.key);
      intervals[c.key] = t.status !== 'done' ? null : onBudget ? trialObjectiveInterval(study, t) : trialMetricInterval(study, t, c.key);
    }
    const problem = trialProblemWords(t, tx);
    return {
      id: t.id,
      stageId: t.stageId,
      candidateId: t.candidateId,
      label: trialLabel(t, tx, own),
      engine: t.engine,
      engineLabel: engineLabel(t.engine),
      version: t.version,
      mode: t.mode,
      model: t.config.model,
      status: t.status,
      command: redact(t.command),
      benchCommand: t.result?.command !== undefined ? redact(t.result.command) : null,
      workloadId: t.workloadId,
      repeat: t.repeat,
      hostId: t.hostId ?? null,
      gpus: t.gpus ?? [],
      startedAt: t.startedAt ?? null,
      finishedAt: t.finishedAt ?? null,
      metrics,
      intervals,
      runs: runCounts.get(runKey(t)) ?? 0,
      gpuCount: trialGpuCount(study, t),
      replicas: trialReplicas(study, t),
      warmup: t.warmup
        ? t.warmup.error !== undefined
          ? tx.t('trial.warmupFailed', { error: redact(t.warmup.error) })
          : t.warmup.seconds !== undefined
            ? tx.t('trial.warmupSeconds', { n: tx.integer(t.warmup.requests), seconds: tx.fixed(t.warmup.seconds, 1) })
            : tx.t('trial.warmup', { n: tx.integer(t.warmup.requests) })
        : null,
      objective: value,
      vsBaselinePct: value !== null && base !== null && base !== 0 ? ((value - base) / base) * 100 : null,
      problem: problem !== null ? redact(problem) : null,
      sloViolations: t.status === 'done' ? sloViolations(t, study.goal.slos, tx) : [],
      envNames: Object.keys(t.config.env).sort(),
      speculative: t.config.speculative !== undefined,
      simulated: t.result?.result.provenance?.simulated === true,
      kept: decisions.get(t.stageId)?.winner === t.candidateId,
    };
  };

  // Stages in study order; a stage id the definition no longer has still shows, after the known ones.
  const stageOrder = ['engine', ...study.stages.map((s) => s.id)];
  for (const t of state.trials) if (t.stageId !== 'generalisation' && !stageOrder.includes(t.stageId)) stageOrder.push(t.stageId);
  const rows = state.trials.map(toRow);
  const section = (id: string): StageSection => {
    const def = study.stages.find((s) => s.id === id);
    const trials = rows.filter((t) => t.stageId === id);
    const decision = decisions.get(id);
    const published = (state.references ?? [])
      .filter((r) => r.stageId === id)
      .map((r): PublishedRow => {
        const beside = trials.find((t) => t.candidateId === r.candidateId && t.workloadId === r.workloadId);
        const held = r.result ? { result: r.result } : null;
        return {
          id: r.id,
          besideTrialId: beside?.id ?? null,
          label: r.label,
          source: publishedSourceText(r),
          workloadId: r.workloadId ?? null,
          // A guide's printed block does not say how many GPUs its server held: no per-GPU number, nothing on the budget.
          metrics: Object.fromEntries(metricColumns.map((c) => [c.key, held && c.key !== ON_BUDGET ? metricOf(held, c.key) : null])),
          error: r.error ?? null,
        };
      });
    return {
      published,
      id,
      label: stageLabel(own, id, tx),
      engines: def?.engines ? def.engines.map(engineLabel) : null,
      trials,
      severalWorkloads: new Set(trials.map((t) => t.workloadId)).size > 1,
      decision: decision ? sectionDecision(decision, trials) : null,
    };
  };
  function sectionDecision(decision: StageDecision, trials: TrialRow[]): NonNullable<StageSection['decision']> {
    const said = decisionIn(decision, trials, { tx, objective, redact, own });
    return { winner: decision.winner, reason: redact(decision.reason), before: decision.before, after: decision.after, ...said };
  }
  const stages = stageOrder.map(section);
  const generalisationTrials = state.trials.filter((t) => t.stageId === 'generalisation');
  const generalisation = generalisationTrials.length > 0 ? section('generalisation') : null;

  // Scenarios: every generalisation workload in the study's order, the primary one first unless it is among them.
  const primaryId = study.workloads.primary.id;
  const workloads: Workload[] = study.workloads.generalisation.some((w) => w.id === primaryId)
    ? study.workloads.generalisation
    : [study.workloads.primary, ...study.workloads.generalisation];
  const margin = study.goal.marginPct;
  const scenarios = workloads.map((w): ScenarioRow => {
    const onWorkload = state.trials.filter((t) => t.workloadId === w.id);
    const baseTrials = onWorkload.filter(isBaseline);
    const recTrials = onWorkload.filter(isRecommended);
    const baseline = mean(doneValues(baseTrials));
    const recommended = mean(doneValues(recTrials));
    const gain = gainPct(baseline, recommended, objective.better);
    const changePct = baseline !== null && recommended !== null && baseline !== 0 ? ((recommended - baseline) / baseline) * 100 : null;
    const baseKey = baseTrials.find((t) => t.status === 'done')?.serverKey;
    const recKey = recTrials.find((t) => t.status === 'done')?.serverKey;
    // Both sides' runs on this workload, wherever they ran (the primary workload's include the stages' repeats).
    const comparison = baseKey !== undefined && recKey !== undefined && baseKey !== recKey ? scenarioComparison(study, state.trials, w.id, baseKey, recKey) : null;
    const winner: ScenarioWinner | null = comparison
      ? comparison.verdict === 'better'
        ? 'recommended'
        : comparison.verdict === 'worse'
          ? 'baseline'
          : 'tie'
      : gain === null
        ? null
        : gain > margin
          ? 'recommended'
          : gain < -margin
            ? 'baseline'
            : 'tie';
    const regression = winner === 'baseline';
    const flag = regression
      ? tx.t('scenario.flag.regression', { change: comparison ? tx.change(comparison.change) : tx.pct(changePct ?? 0), metric: objective.label })
      : comparison?.verdict === 'possibly-worse'
        ? tx.t('scenario.flag.possiblyWorse', { change: tx.change(comparison.change), metric: objective.label })
        : null;
    return {
      workloadId: w.id,
      description: own.workload(w.id) ?? describeWorkload(w, tx),
      primary: w.id === primaryId,
      baseline,
      recommended,
      baselineNote: baseline === null ? missingNote(baseTrials, redact, tx) : null,
      recommendedNote:
        recommended === null
          ? rec === undefined && recTrials.length === 0
            ? tx.t(state.status === 'draft' || state.status === 'running' ? 'scenario.noRecommendationYet' : 'scenario.noRecommendation')
            : missingNote(recTrials, redact, tx)
          : null,
      changePct,
      gainPct: gain,
      factor: gain !== null ? 1 + gain / 100 : null,
      winner,
      baselineStat: baseKey !== undefined ? objectiveStat(study, state.trials, baseKey, w.id) : null,
      recommendedStat: recKey !== undefined ? objectiveStat(study, state.trials, recKey, w.id) : null,
      comparison,
      regression,
      flag: changePct !== null ? flag : null,
    };
  });

  const summary: SummaryRow[] = stages
    .filter((s) => s.decision !== null || s.trials.length > 0)
    .map((s) => ({
      stageId: s.id,
      option: s.label,
      kept: s.decision?.winnerLabel ?? null,
      before: s.decision?.before ?? null,
      after: s.decision?.after ?? null,
      gainPct: s.decision?.gainPct ?? null,
    }));

  // Provenance: what the measured trials say about the hardware and the client.
  const provenances = state.trials.map((t) => t.result?.result.provenance).filter((p) => p !== undefined);
  const simulated = provenances.some((p) => p.simulated === true);
  const simulatedSource = simulatedSourceOf(state.trials, tx);
  const gpu = gpuOf(project, tx);
  const clientProv = provenances.find((p) => p.client?.name !== undefined || p.client?.version !== undefined)?.client;
  const client = clientProv
    ? [clientProv.name ?? 'vllm bench serve', clientProv.version].filter(Boolean).join(' ')
    : `vllm bench serve ${study.clientVersion}`;
  const primaryBench = state.trials.find((t) => t.workloadId === study.workloads.primary.id && t.result?.command !== undefined)?.result?.command;

  const datasets = workloads.map((w) => {
    const prov = state.trials.find((t) => t.workloadId === w.id && t.result?.result.provenance?.dataset)?.result?.result.provenance?.dataset;
    const dataset =
      (prov?.path !== undefined ? homeRelativeBoxPaths(prov.path) : undefined) ??
      prov?.name ??
      (w.dataset.kind === 'random'
        ? tx.t('setup.randomSeed', { seed: w.seed !== undefined ? String(w.seed) : tx.t('setup.seedNotSet') })
        : w.dataset.kind === 'sharegpt'
          ? (w.dataset.path ?? tx.t('setup.sharegptCache'))
          : w.dataset.path);
    return { workloadId: w.id, description: own.workload(w.id) ?? describeWorkload(w, tx), dataset, sha256: prov?.sha256 ?? null };
  });

  const engines = study.engines.map((e) => {
    const reported = [
      ...new Set(
        provenances.filter((p) => p.engine === e.engine && p.engineVersion !== undefined && p.engineVersion !== e.version).map((p) => p.engineVersion as string),
      ),
    ];
    const name = `${engineLabel(e.engine)} ${e.version}`;
    const withMode = e.mode === 'docker' ? tx.t('setup.engineDocker', { engine: name }) : name;
    return reported.length > 0 ? tx.t('setup.engineReported', { engine: withMode, versions: reported.join(', ') }) : withMode;
  });

  const counts = Object.fromEntries(['planned', 'rejected', 'running', 'done', 'failed', 'cancelled'].map((s) => [s, 0])) as Record<TrialStatus, number>;
  for (const t of state.trials) counts[t.status]++;
  const complete = state.status === 'done';
  const finished = counts.done + counts.failed + counts.rejected + counts.cancelled;
  const statusText = complete
    ? null
    : state.status === 'draft'
      ? tx.t('status.draft')
      : state.status === 'running'
        ? tx.t('status.running', { finished: tx.integer(finished), total: tx.integer(state.trials.length) })
        : state.message
          ? tx.t('status.stoppedWhy', { status: tx.t(`studyStatus.${state.status}`), message: redact(state.message) })
          : tx.t('status.stopped', { status: tx.t(`studyStatus.${state.status}`) });

  const baselineTrial = state.trials.find((t) => baselineKey !== undefined && t.serverKey === baselineKey) ?? generalisationTrials.find((t) => t.candidateId === 'baseline');
  const baselineChoice = baselineTrial ? study.engines.find((e) => e.engine === baselineTrial.engine && e.version === baselineTrial.version) : undefined;
  const baselineEngine = baselineTrial ? `${engineLabel(baselineTrial.engine)} ${baselineTrial.version}` : '';
  const baseline = baselineTrial
    ? {
        label: baselineChoice && Object.keys(baselineChoice.config).length > 0 ? tx.t('baseline.labelBase', { engine: baselineEngine }) : tx.t('baseline.label', { engine: baselineEngine }),
        command: redact(baselineTrial.command),
      }
    : null;
  const baselineStatement = baseline ? tx.t('baseline.statement', { baseline: baseline.label }) : tx.t('baseline.statementNone');

  const said = basisWords(project, tx, objective);
  const recommendation = rec
    ? {
        engineLabel: rec.mode === 'docker' ? tx.t('rec.docker', { engine: `${engineLabel(rec.engine)} ${rec.version}` }) : `${engineLabel(rec.engine)} ${rec.version}`,
        command: redact(rec.command),
        envNames: Object.keys(rec.config.env).sort(),
        secretEnv: Object.entries(rec.config.env)
          .filter((entry): entry is [string, { secretRef: string }] => typeof entry[1] !== 'string')
          .map(([name, value]) => ({ name, ref: value.secretRef })),
        path: keptCandidateLabels(project, own),
        replicas: said.replicas,
        perGpu: said.perGpu,
      }
    : null;
  const noRecommendation = rec
    ? null
    : state.status === 'done'
      ? state.message
        ? tx.t('rec.noneDoneWhy', { message: redact(state.message) })
        : tx.t('rec.noneDone')
      : state.status === 'draft'
        ? tx.t('rec.noneDraft')
        : state.status === 'running'
          ? tx.t('rec.noneRunning')
          : tx.t('rec.noneStopped', { status: tx.t(`studyStatus.${state.status}`) });

  const notes = buildNotes(project, { simulatedSource, counts, tx });
  const model = study.model.id;
  const goalPhrase = goalPhraseOf(objective, tx);
  const basis = { kind: objective.basis, gpuBudget: objective.gpuBudget, text: said.basis };
  const ran = state.startedAt
    ? state.finishedAt && complete
      ? tx.t('header.ran', { start: tx.date(state.startedAt), end: tx.date(state.finishedAt) })
      : tx.t('header.started', { start: tx.date(state.startedAt) })
    : null;
  return {
    text: tx,
    title: tx.t('title', { model, gpu, goal: goalPhrase }),
    ran,
    studyName: own.name,
    description: own.description ?? null,
    model,
    gpu,
    goalPhrase,
    objective,
    objectiveColumn,
    basis,
    showGpus,
    simulated,
    simulatedSource,
    status: { study: state.status, complete, text: statusText, counts, total: state.trials.length },
    recommendation,
    noRecommendation,
    baseline,
    baselineStatement,
    scenarios,
    regressions: scenarios.filter((s) => s.regression),
    trials: rows,
    stages,
    generalisation,
    summary,
    overall: scenarios.find((sc) => sc.primary && sc.gainPct !== null) ?? null,
    goal: {
      objectiveText: tx.t(`goal.objective.${objective.better}`, { metric: objective.label, unit: objective.unit }),
      slos: study.goal.slos.map((slo) => describeSlo(slo, tx)),
      marginPct: margin,
      primaryWorkload: own.workload(study.workloads.primary.id) ?? describeWorkload(study.workloads.primary, tx),
      strategy: study.strategy,
    },
    setup: {
      model,
      variants: study.model.variants.map((v) => `${own.variant(v.id) ?? v.id}: ${v.model}${v.precision ? ` (${v.precision})` : ''}`),
      gpu,
      driver: mostCommon(provenances.map((p) => p.gpu?.driver)) ?? null,
      cuda: mostCommon(provenances.map((p) => p.gpu?.cuda)) ?? null,
      hosts: study.hosts.map((h) => (h.gpus ? tx.t('setup.hostGpus', { host: h.hostId, gpus: h.gpus.join(', ') }) : h.hostId)),
      engines,
      client,
      benchCommand: primaryBench !== undefined ? redact(primaryBench) : null,
      datasets,
      repeats: study.repeats,
      gpusPerServer: tx.list((sizes.length > 0 ? sizes : [study.gpusPerTrial]).map((n) => tx.integer(n))),
      basis: basis.text ?? tx.t('goal.basis.server'),
      method: methodOf(study, tx),
    },
    notes,
    metricColumns,
    versus: versusSection(project, inputs.original ?? null, {
      tx,
      objectiveMetric: objective.catalogueKey ?? objective.metric,
      stageLabel: (id) => stageLabel(own, id, tx),
      trialLabel: (row) => trialLabel(row, tx, own),
      engineLabel,
      gpuOf: (of) => gpuOf(of, tx),
    }),
  };
}

/** The GPUs the study ran on: the model its measured runs recorded most, else what the definition says. */
function gpuOf(project: ProjectFile, tx: ReportText): string {
  const { study, state } = project;
  const provenances = state.trials.map((t) => t.result?.result.provenance).filter((p) => p !== undefined);
  const gpuModel = mostCommon(provenances.map((p) => (p.gpu?.model ? `${p.gpu.count ?? 1}× ${p.gpu.model}` : undefined)));
  return (
    gpuModel ??
    (study.demoLab ? tx.t('setup.simulatedGpu', { gpu: `${study.demoLab.count}× ${study.demoLab.gpu.toUpperCase()}` }) : tx.t('setup.gpusOf', { hosts: study.hosts.map((h) => h.hostId).join(', ') }))
  );
}

/** A stage's name in the report's language: the planner's own stages by the catalogue, the user's by their label. */
function stageLabel(own: LocalizedStudyText, id: string, tx: ReportText): string {
  if (id === 'engine') return tx.t('stage.engine');
  if (id === 'generalisation') return tx.t('stage.generalisation');
  if (id === 'grid') return tx.t('stage.grid');
  return own.stage(id) ?? id;
}

/** The measurement and decision method in one paragraph, for the setup section. */
function methodOf(study: ProjectFile['study'], tx: ReportText): string {
  return tx.t('method', {
    warmup: tx.integer(warmupRequests(study.workloads.primary)),
    level: tx.percent(Math.round(INTERVAL_LEVEL * 100)),
    margin: tx.percent(study.goal.marginPct),
    budget: tx.integer(Math.max(study.goal.repeatBudget, study.repeats)),
  });
}

/**
 * The box the simulated numbers come from: the demo lab, or the hosts (by the label they had when measured) whose
 * box said it is the simulated one, as a test box reached over SSH does.
 */
function simulatedSourceOf(trials: readonly Trial[], tx: ReportText): SimulatedSource | null {
  const simulated = trials.filter((t) => t.result?.result.provenance?.simulated === true);
  if (simulated.length === 0) return null;
  const onDemoLab = (t: Trial) => t.hostId !== undefined && demoLabBoxOf(t.hostId) !== null;
  if (simulated.every(onDemoLab)) return { kind: 'demo' };
  const hosts = [...new Set(simulated.map((t) => (onDemoLab(t) ? tx.t('demoLab') : (t.result?.result.provenance?.host ?? t.hostId ?? tx.t('unknownHost')))))];
  return { kind: 'hosts', hosts };
}

function buildNotes(project: ProjectFile, facts: { simulatedSource: SimulatedSource | null; counts: Record<TrialStatus, number>; tx: ReportText }): ReportNote[] {
  const { study, state } = project;
  const { tx } = facts;
  const notes: ReportNote[] = [];
  const references = state.references ?? [];
  if (references.length > 0) {
    const first = references[0]!.source;
    notes.push({ kind: 'published', text: tx.t('note.published', { count: tx.integer(references.length), title: state.guide?.title ?? first.title, file: state.guide?.file ?? first.file }) });
  }
  if (facts.simulatedSource) {
    notes.push({
      kind: 'simulated',
      text: facts.simulatedSource.kind === 'demo' ? tx.t('note.simulatedDemo') : tx.t('note.simulatedHosts', { hosts: facts.simulatedSource.hosts.join(', ') }),
    });
  }
  notes.push({ kind: 'strategy', text: study.strategy === 'greedy' ? tx.t('note.greedy') : tx.t('note.grid') });
  const quantized = state.trials.some((t) => t.config.quantization !== undefined || t.config.model !== study.model.id) || study.model.variants.length > 0;
  if (quantized) {
    notes.push({ kind: 'quantization', text: tx.t('note.quantization') });
  }
  if (state.trials.some((t) => t.config.speculative !== undefined)) {
    notes.push({ kind: 'speculative', text: tx.t('note.speculative') });
  }
  const unsuccessful = facts.counts.failed + facts.counts.rejected;
  if (unsuccessful > 0) {
    notes.push({ kind: 'failures', text: tx.t('note.failures', { failed: tx.integer(facts.counts.failed), rejected: tx.integer(facts.counts.rejected) }) });
  }
  if (study.goal.slos.length > 0) {
    notes.push({ kind: 'slo', text: tx.t('note.slo', { slos: study.goal.slos.map((slo) => describeSlo(slo, tx)).join('; ') }) });
  }
  return notes;
}

function sloViolations(t: Trial, slos: Slo[], tx: ReportText): string[] {
  const out: string[] = [];
  for (const slo of slos) {
    const value = metricOf(t, slo.metric);
    if (value === null) continue;
    if ((slo.max !== undefined && value > slo.max) || (slo.min !== undefined && value < slo.min)) {
      out.push(tx.t('trial.sloMiss', { slo: describeSlo(slo, tx), value: tx.number(value) }));
    }
  }
  return out;
}

/** "p99_ttft_ms ≤ 500": the metric's key (as the project file and the CSV name it) and the bound. */
export function describeSlo(slo: Slo, tx: ReportText = reportText()): string {
  const bound = (value: number) => (Number.isInteger(value) ? tx.integer(value) : tx.number(value));
  return [slo.min !== undefined ? `${slo.metric} ≥ ${bound(slo.min)}` : null, slo.max !== undefined ? `${slo.metric} ≤ ${bound(slo.max)}` : null]
    .filter(Boolean)
    .join(tx.t('slo.and'));
}

/** A workload without a label of its own, in the report's language: "ShareGPT, 100 prompts, concurrency 4". */
export function describeWorkload(w: Workload, tx: ReportText): string {
  const data =
    w.dataset.kind === 'sharegpt'
      ? tx.t('workload.sharegpt')
      : w.dataset.kind === 'random'
        ? tx.t('workload.random', { input: tx.integer(w.dataset.inputLen), output: tx.integer(w.dataset.outputLen) })
        : tx.t('workload.custom', { path: w.dataset.path });
  const load = w.maxConcurrency !== undefined ? tx.t('workload.concurrency', { n: tx.integer(w.maxConcurrency) }) : tx.t('workload.unbounded');
  const prompts = tx.integer(w.numPrompts);
  const arrival = describeArrivalIn(arrivalOf(w), tx);
  return arrival === null ? tx.t('workload.describe', { data, prompts, load }) : tx.t('workload.describeArrival', { data, prompts, load, arrival });
}

/** How the client spaced the requests, in the report's language; null when it sent them all at once. */
function describeArrivalIn(a: Arrival, tx: ReportText): string | null {
  const num = (value: number) => (Number.isInteger(value) ? tx.integer(value) : tx.number(value));
  switch (a.kind) {
    case 'burst':
      return null;
    case 'poisson':
      return tx.t('arrival.poisson', { rate: num(a.rate) });
    case 'gamma':
      return tx.t('arrival.gamma', { rate: num(a.rate), burstiness: num(a.burstiness), cv: tx.fixed(gapCv(a.burstiness), 2) });
    case 'constant':
      return tx.t('arrival.constant', { rate: num(a.rate) });
    case 'ramp': {
      const ramp = { strategy: tx.t(`arrival.strategy.${a.strategy}`), start: tx.integer(a.startRps), end: tx.integer(a.endRps) };
      if (a.burstiness === undefined) return tx.t('arrival.ramp', ramp);
      return a.burstiness === 'inf' ? tx.t('arrival.rampConstant', ramp) : tx.t('arrival.rampBurstiness', { ...ramp, burstiness: num(a.burstiness) });
    }
  }
}

/**
 * The planner names the trials it adds by their role, in English: "Best so far: …" for the incumbent re-run in a
 * later stage, "Baseline: …" and "Recommended: …" in the generalisation pass. The report words the role itself.
 */
const ROLE_LABELS = [
  { candidateId: REFERENCE_CANDIDATE_ID, prefix: 'Best so far: ', key: 'trial.role.reference' },
  { candidateId: 'baseline', prefix: 'Baseline: ', key: 'trial.role.baseline', stageId: 'generalisation' },
  { candidateId: 'recommended', prefix: 'Recommended: ', key: 'trial.role.recommended', stageId: 'generalisation' },
] as const;

interface DecisionSpeech {
  tx: ReportText;
  objective: Objective;
  redact: (text: string) => string;
  own: LocalizedStudyText;
}

/**
 * A decision in words: its own (from its facts), the kept candidate's label and gain, and the verdict's. On a GPU
 * budget a candidate is named with its replicas ("2 × FP8 TP4"), as it was compared.
 */
function decisionIn(stored: StageDecision, trials: readonly { candidateId: string; label: string; replicas: number | null }[], { tx, objective, redact, own }: DecisionSpeech) {
  // Unmeasured candidates are stored by their written label; the trials' labels come here already in the language.
  const decision = stored.unmeasured ? { ...stored, unmeasured: stored.unmeasured.map((u) => ({ ...u, label: own.composite(u.label, stored.stageId) })) } : stored;
  const labelOf = (candidateId: string) => trials.find((t) => t.candidateId === candidateId)?.label ?? candidateId;
  const named = (candidateId: string) => withReplicas(labelOf(candidateId), trials.find((t) => t.candidateId === candidateId)?.replicas ?? null, tx);
  const winnerLabel = decision.winner !== null ? labelOf(decision.winner) : null;
  const gain = decision.winner !== null ? gainPct(decision.before, decision.after, objective.better) : null;
  return {
    winnerLabel: decision.winner !== null ? named(decision.winner) : null,
    gainPct: gain,
    words: decisionWords(decision, { tx, objective, winnerLabel, gainPct: gain, labelOf, named, redact }),
    verdict: verdictWords(decision, tx),
  };
}

/**
 * A stage's decision in a language, as the report words it: for the app, which shows decisions in its own language
 * (the recommendation card, the run monitor) rather than the English reason the project stores.
 */
export function stageDecisionText(project: ProjectFile, decision: StageDecision, lang: ReportLang): { words: string; verdict: string | null } {
  const tx = reportText(lang);
  const own = localizedStudyText(project.study, lang);
  const trials = project.state.trials
    .filter((t) => t.stageId === decision.stageId)
    .map((t) => ({ candidateId: t.candidateId, label: trialLabel(t, tx, own), replicas: trialReplicas(project.study, t) }));
  const { words, verdict } = decisionIn(decision, trials, { tx, objective: localObjective(project.study.goal, tx), redact: envRedactor(project), own });
  return { words, verdict };
}

/**
 * The candidates the recommendation kept, stage by stage, in the study's own words (its labels, translated by `own`):
 * the engine as "SGLang 0.5.3.post3", then each stage's kept candidate as the study labels it. An id the study no
 * longer names stays as it is.
 */
export function keptCandidateLabels(project: ProjectFile, own: LocalizedStudyText): string[] {
  const { study, state } = project;
  return (state.recommendation?.path ?? []).map((id, i) => {
    // The stage that kept this candidate names it best; any trial of it will do otherwise.
    const stageId = state.decisions.find((d) => d.winner === id)?.stageId ?? study.stages.find((s) => s.candidates.some((c) => c.id === id))?.id;
    const trials = state.trials.filter((t) => t.stageId !== 'generalisation' && t.candidateId === id);
    const trial = trials.find((t) => t.stageId === stageId) ?? trials[0];
    if (trial) return own.composite(trial.label, trial.stageId);
    // A grid's trials are of whole combinations: the stage's definition names the candidate.
    const written = stageId === undefined ? undefined : own.candidate(stageId, id);
    if (written !== undefined) return written;
    // The engine comes first: `<engine>-<version>`, with `-docker` when the same version also runs as an environment.
    const engine = i === 0 ? study.engines.find((e) => id === `${e.engine}-${e.version}` || id === `${e.engine}-${e.version}-docker`) : undefined;
    return engine ? `${engineLabel(engine.engine)} ${engine.version}` : id;
  });
}

/** Names trials as the report does, in `lang`: the study's translations of its labels, and the planner's roles worded. */
export function trialLabeller(project: ProjectFile, lang: ReportLang): (t: Pick<Trial, 'stageId' | 'candidateId' | 'label'>) => string {
  const tx = reportText(lang);
  const own = localizedStudyText(project.study, lang);
  return (t) => trialLabel(t, tx, own);
}

function trialLabel(t: Pick<Trial, 'stageId' | 'candidateId' | 'label'>, tx: ReportText, own: LocalizedStudyText): string {
  const role = ROLE_LABELS.find((r) => r.candidateId === t.candidateId && (!('stageId' in r) || r.stageId === t.stageId));
  if (!role) return own.composite(t.label, t.stageId);
  return tx.t(role.key, { label: own.composite(t.label.startsWith(role.prefix) ? t.label.slice(role.prefix.length) : t.label) });
}

function missingNote(trials: Trial[], redact: (s: string) => string, tx: ReportText): string {
  const failed = trials.find((t) => t.status === 'failed' || t.status === 'rejected');
  if (failed) {
    const detail = redact(trialProblemWords(failed, tx) ?? tx.t('scenario.noDetail'));
    return failed.status === 'failed' ? tx.t('scenario.failed', { detail }) : tx.t('scenario.rejected', { detail });
  }
  if (trials.some((t) => t.status === 'planned' || t.status === 'running')) return tx.t('scenario.notMeasuredYet');
  return tx.t('scenario.notMeasured');
}

/** Improvement in the objective's direction, in percent: 2054 vs 1731 tok/s → +18.7; 1.68 s → 1.61 s → +4.3 (speed-up). */
export function gainPct(before: number | null, after: number | null, better: 'lower' | 'higher'): number | null {
  if (before === null || after === null || before <= 0 || after <= 0) return null;
  return (better === 'higher' ? after / before - 1 : before / after - 1) * 100;
}

function mean(values: number[]): number | null {
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

function mostCommon(values: (string | undefined)[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | undefined;
  for (const [v, n] of counts) if (best === undefined || n > (counts.get(best) ?? 0)) best = v;
  return best;
}

/**
 * Environment values may be credentials, so the report shows names only. Commands can carry a value as a
 * `NAME=value` assignment (or `-e NAME=value`); it becomes `NAME=$NAME`. A long value found anywhere else in a
 * printed string becomes `$NAME` too; short ones ("1", "0") are left elsewhere since they are not secrets and
 * replacing them would break commands. Credentials in extra args (the value after `--hf-token`, `--api-key`, a
 * token-shaped word), which a project written before they were refused can hold, become `<redacted>` wherever found.
 * Paths into the box's `~/.servelab` are written from `~` (box-paths.ts), whatever the home of the box that ran it.
 */
export function envRedactor(project: ProjectFile): (text: string) => string {
  const envOnly = envValueRedactor(project);
  const configs: Partial<Pick<ServerConfig, 'extraArgs'>>[] = [
    ...project.study.engines.map((e) => e.config),
    ...project.study.stages.flatMap((s) => s.candidates.map((c) => c.config)),
    ...project.state.trials.map((t) => t.config),
    ...(project.state.recommendation ? [project.state.recommendation.config] : []),
  ];
  const secrets = new Set<string>();
  for (const config of configs) {
    const args = config?.extraArgs ?? [];
    for (const i of credentialWordIndexes(args)) {
      const word = args[i] as string;
      const value = word.startsWith('-') && word.includes('=') ? word.slice(word.indexOf('=') + 1) : word;
      if (value.length >= 4) secrets.add(value);
    }
  }
  const values = [...secrets].sort((a, b) => b.length - a.length);
  // Box text names box paths from the box's home (~/.servelab/…), as the reader will type them on their own box.
  return (text) => {
    let out = envOnly(text);
    for (const value of values) out = out.split(value).join(REDACTED);
    return homeRelativeBoxPaths(redactCredentialText(out));
  };
}

function envValueRedactor(project: ProjectFile): (text: string) => string {
  const configs: Partial<Pick<ServerConfig, 'env'>>[] = [
    ...project.study.engines.map((e) => e.config),
    ...project.study.stages.flatMap((s) => s.candidates.map((c) => c.config)),
    ...project.state.trials.map((t) => t.config),
    ...(project.state.recommendation ? [project.state.recommendation.config] : []),
  ];
  const pairs = new Map<string, string>();
  for (const config of configs) {
    for (const [name, value] of Object.entries(config.env ?? {})) if (typeof value === 'string' && value !== '') pairs.set(`${name}\0${value}`, name);
  }
  const entries = [...pairs.entries()].map(([key, name]) => ({ name, value: key.slice(name.length + 1) })).sort((a, b) => b.value.length - a.value.length);
  if (entries.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const { name, value } of entries) {
      for (const quoted of [`'${value}'`, `"${value}"`, value]) out = out.split(`${name}=${quoted}`).join(`${name}=$${name}`);
      if (value.length >= 6) out = out.split(value).join(`$${name}`);
    }
    return out;
  };
}
