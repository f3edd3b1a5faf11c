import type { ReferenceTrial, Trial } from '../study';

/**
 * Which published results stand beside which of the study's own: the same stage, candidate and workload (the guide
 * reader places each result block there). Comparisons and reports show them side by side; nothing decides on them.
 */
export function publishedFor(trial: Pick<Trial, 'stageId' | 'candidateId' | 'workloadId'>, references: readonly ReferenceTrial[] | undefined): ReferenceTrial[] {
  return (references ?? []).filter((r) => r.stageId === trial.stageId && r.candidateId === trial.candidateId && r.workloadId === trial.workloadId);
}

/** The references no trial of the study stands beside (a stage the study did not reach, a block with no stage). */
export function unplacedReferences(trials: readonly Pick<Trial, 'stageId' | 'candidateId' | 'workloadId'>[], references: readonly ReferenceTrial[] | undefined): ReferenceTrial[] {
  const placed = new Set(trials.map((t) => `${t.stageId}\n${t.candidateId}\n${t.workloadId}`));
  return (references ?? []).filter((r) => !placed.has(`${r.stageId}\n${r.candidateId}\n${r.workloadId}`));
}

/** Where a published number comes from, as every view prints it: `guide.txt:114`. */
export function publishedSourceText(reference: Pick<ReferenceTrial, 'source'>): string {
  return `${reference.source.file}:${reference.source.line}`;
}
