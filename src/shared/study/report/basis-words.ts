import { metricSpec } from '../../results/metrics';
import { studyObjective, trialMetric, trialReplicas, type StudyObjective } from '../objective';
import { trialGpuCount, type ProjectFile, type Trial } from '../study';
import { reportText, type ReportLang, type ReportText } from './text';

/**
 * What a study's objective is compared on, in words: per GPU, on a GPU budget with the recommendation's replicas, or
 * per server — said only where configurations of different sizes make it matter, with the recommendation's and the
 * baseline's numbers per GPU beside. The report and the app's recommendation card say it with the same words.
 */

/** The objective on the study's basis, its name and unit in the report's language. */
export function localObjective(goal: ProjectFile['study']['goal'], tx: ReportText): StudyObjective {
  const objective = studyObjective(goal);
  const budget = tx.integer(objective.gpuBudget ?? 0);
  const label =
    objective.metric === 'mean_latency_s' || objective.basis === 'server'
      ? tx.t(`objective.${objective.metric}`)
      : objective.basis === 'per-gpu'
        ? tx.t('objective.total_token_throughput.per-gpu')
        : tx.t('objective.total_token_throughput.gpu-budget', { budget });
  return { ...objective, label, unit: localUnit(objective.unit, tx) };
}

/** Units are symbols in every language but the seconds ("sn" in Turkish, as in the app and the warm-up notes). */
export function localUnit(unit: string, tx: ReportText): string {
  return unit === 's/request' ? tx.t('unit.secondsPerRequest') : unit === 's' ? tx.t('unit.seconds') : unit;
}

/** A label with its replicas on the GPU budget ("2 × FP8 TP4"); as it is without a budget. */
export function withReplicas(label: string, replicas: number | null, tx: ReportText): string {
  return replicas !== null && replicas > 0 ? tx.t('decision.replicas', { n: tx.integer(replicas), label }) : label;
}

/** The GPU counts the study's servers hold, smallest first. */
export function gpuSizes(project: ProjectFile): number[] {
  return [...new Set(project.state.trials.map((t) => trialGpuCount(project.study, t)))].sort((a, b) => a - b);
}

/** Which trials measure the baseline and the recommendation (the generalisation pass names them by role). */
export function trialRoles(project: ProjectFile): { baselineKey: string | undefined; isBaseline: (t: Trial) => boolean; isRecommended: (t: Trial) => boolean } {
  const { state } = project;
  const baselineKey = state.baselineTrialServerKey ?? defaultBaselineKey(project);
  const rec = state.recommendation;
  return {
    baselineKey,
    isBaseline: (t) => (t.stageId === 'generalisation' ? t.candidateId === 'baseline' : baselineKey !== undefined && t.serverKey === baselineKey),
    isRecommended: (t) =>
      t.stageId === 'generalisation'
        ? t.candidateId === 'recommended'
        : rec !== undefined &&
          (rec.serverKey !== undefined ? t.serverKey === rec.serverKey : t.engine === rec.engine && t.version === rec.version && t.mode === rec.mode && t.command === rec.command),
  };
}

function defaultBaselineKey(project: ProjectFile): string | undefined {
  const first = project.study.engines[0];
  if (!first) return undefined;
  return project.state.trials.find((t) => t.stageId === 'engine' && t.engine === first.engine && t.version === first.version && t.mode === first.mode)?.serverKey;
}

export interface BasisWords {
  /** The basis in a sentence; null when it goes without saying (per server, every configuration the same size). */
  basis: string | null;
  /** On a GPU budget: "On the budget of 8 GPUs: 2 × this server, 4 GPUs each." */
  replicas: string | null;
  /** Per server, the recommendation and a baseline of another size: both per GPU. */
  perGpu: string | null;
}

export function basisWords(project: ProjectFile, tx: ReportText, objective: StudyObjective = localObjective(project.study.goal, tx)): BasisWords {
  const { study, state } = project;
  const sizes = gpuSizes(project);
  const shownSizes = tx.plural('basis.sizes', sizes.length === 1 ? (sizes[0] ?? 0) : 2, { list: tx.list(sizes.map((n) => tx.integer(n))) });
  const basis =
    objective.basis === 'per-gpu'
      ? tx.t('basis.perGpu', { sizes: shownSizes })
      : objective.basis === 'gpu-budget'
        ? tx.t('basis.gpuBudget', { budget: tx.integer(objective.gpuBudget ?? 0) })
        : sizes.length > 1
          ? tx.t('basis.serverSizes', { sizes: shownSizes })
          : null;

  const { isBaseline, isRecommended } = trialRoles(project);
  const primary = study.workloads.primary.id;
  const recTrial = state.recommendation ? (state.trials.find((t) => t.stageId !== 'generalisation' && isRecommended(t)) ?? state.trials.find(isRecommended)) : undefined;
  const replicasOfRec = recTrial ? trialReplicas(study, recTrial) : null;
  const replicas =
    recTrial && replicasOfRec !== null && replicasOfRec > 0
      ? tx.t('rec.replicas', { n: tx.integer(replicasOfRec), budget: tx.integer(objective.gpuBudget ?? 0), gpus: tx.integer(trialGpuCount(study, recTrial)) })
      : null;

  let perGpu: string | null = null;
  const baseTrial = state.trials.find((t) => t.workloadId === primary && t.status === 'done' && isBaseline(t));
  if (objective.basis === 'server' && objective.metric === 'total_token_throughput' && recTrial && baseTrial) {
    const recGpus = trialGpuCount(study, recTrial);
    const baseGpus = trialGpuCount(study, baseTrial);
    const perGpuOf = (trials: Trial[]) => {
      const values = trials.filter((t) => t.workloadId === primary && t.status === 'done').map((t) => trialMetric(study, t, 'total_token_throughput_per_gpu')).filter((v): v is number => v !== null);
      return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
    };
    const recValue = perGpuOf(state.trials.filter(isRecommended));
    const baseValue = perGpuOf(state.trials.filter(isBaseline));
    if (recGpus !== baseGpus && recValue !== null && baseValue !== null && baseValue > 0) {
      perGpu = tx.t('rec.perGpu', {
        recGpus: tx.integer(recGpus),
        baseGpus: tx.integer(baseGpus),
        rec: tx.number(recValue),
        base: tx.number(baseValue),
        unit: metricSpec('total_token_throughput_per_gpu').unit,
        change: tx.pct((recValue / baseValue - 1) * 100),
      });
    }
  }
  return { basis, replicas, perGpu };
}

/** The recommendation's basis as the app shows it on its card: its replicas, the basis and per-GPU numbers, each a sentence. */
export function recommendationBasisText(project: ProjectFile, lang: ReportLang): string[] {
  const said = basisWords(project, reportText(lang));
  return [said.replicas, said.basis, said.perGpu].filter((line): line is string => line !== null);
}
