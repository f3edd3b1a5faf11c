import { getAdapter } from '../../engines/adapters';
import type { EngineId } from '../../engines/types';
import type { Trial } from '../study';
import type { Refusal, RunFailure, ServerDeath } from '../trial-problem';
import type { NvlinkWarning } from '../layout-checks';
import { reportText, type ReportText } from './text';

/**
 * A pre-flight refusal or a run failure in the reader's language, worded from its code and facts (trial-problem.ts).
 * The English words are also what the trial stores as `rejectReason`/`error` for readers that predate the codes.
 * Text the engine, the benchmark or the flag tables wrote (`detail`, `evidence`, a knob's reason) is quoted as it is.
 */

const gigabytes = (bytes: number, tx: ReportText) => tx.t('problem.gigabytes', { value: tx.fixed(bytes / 1e9, 1) });
const distinct = (items: string[]) => [...new Set(items)];
const engineName = (r: { engine: EngineId; version: string }) => `${getAdapter(r.engine).displayName} ${r.version}`;

export function refusalWords(r: Refusal, tx: ReportText): string {
  switch (r.code) {
    case 'knobs-unsupported':
      return tx.t('refusal.knobs-unsupported', {
        engine: `${getAdapter(r.engine).displayName} ${r.version}`,
        knobs: r.knobs.map((k) => tx.t('refusal.knob', { knob: k.knob, reason: k.reason })).join('; '),
      });
    case 'extra-args-refused':
      return tx.t('refusal.extra-args-refused', { engine: `${getAdapter(r.engine).displayName} ${r.version}`, issues: r.issues.join('; ') });
    case 'tp-over-gpus':
      return tx.t('refusal.tp-over-gpus', { tp: tx.integer(r.tp), gpus: tx.integer(r.gpusPerTrial) });
    case 'host-too-small':
      return tx.t('refusal.host-too-small', { gpus: tx.integer(r.gpusPerTrial), most: tx.integer(r.most) });
    case 'over-gpu-budget':
      return tx.t('refusal.over-gpu-budget', { gpus: tx.integer(r.gpus), budget: tx.integer(r.budget) });
    case 'heads-indivisible':
      return tx.t('refusal.heads-indivisible', { engine: engineName(r), model: r.model, heads: tx.integer(r.heads), tp: tx.integer(r.tp) });
    case 'pp-over-layers':
      return tx.t('refusal.pp-over-layers', { engine: engineName(r), model: r.model, layers: tx.integer(r.layers), pp: tx.integer(r.pp) });
    case 'experts-indivisible':
      return tx.t('refusal.experts-indivisible', { engine: engineName(r), model: r.model, experts: tx.integer(r.experts), ep: tx.integer(r.ep) });
    case 'ep-indivisible':
      return tx.t('refusal.ep-indivisible', { engine: engineName(r), tp: tx.integer(r.tp), ep: tx.integer(r.ep) });
    case 'dcp-indivisible':
      return tx.t('refusal.dcp-indivisible', { engine: engineName(r), tp: tx.integer(r.tp), dcp: tx.integer(r.dcp) });
    case 'dp-attention-indivisible':
      return tx.t('refusal.dp-attention-indivisible', { engine: engineName(r), tp: tx.integer(r.tp), dp: tx.integer(r.dp) });
    case 'ep-dense-model':
      return tx.t('refusal.ep-dense-model', { engine: engineName(r), model: r.model });
    case 'fp8-block-scaling-sm':
      return tx.t('refusal.fp8-block-scaling-sm', {
        model: r.model,
        gpus: distinct(r.gpus.map((g) => tx.t('refusal.gpuSm', { name: g.name, sm: g.computeCapability }))).join(', '),
      });
    case 'weights-too-large':
      return tx.t('refusal.weights-too-large', {
        model: r.model,
        params: tx.fixed(r.params / 1e9, 1),
        precision: r.precision,
        bytes: tx.number(r.bytesPerParam),
        size: gigabytes(r.weightsPerGpu, tx),
        layout: r.layout ?? `TP${r.tp}`,
        engine: `${getAdapter(r.engine).displayName} ${r.version}`,
        gpus: distinct(r.gpus.map((g) => tx.t('refusal.gpuMemory', { name: g.name, usable: gigabytes(g.usable, tx), total: gigabytes(g.total, tx) }))).join(', '),
      });
    case 'request-too-long':
      // Token counts as the engine's --max-model-len takes them, without grouping.
      return tx.t(r.limit === 'configured' ? 'refusal.request-too-long.configured' : 'refusal.request-too-long.model', {
        workload: r.workloadId,
        longest: String(r.longest),
        maxLen: String(r.maxLen),
        model: r.model,
      });
  }
}

/** A pre-flight warning (the trial still runs) in the reader's language. */
export function nvlinkWarningWords(w: NvlinkWarning, tx: ReportText): string {
  return tx.t('warning.tp-without-nvlink', { tp: tx.integer(w.tp), hosts: w.hosts.join(', ') });
}

/** What killed a server: the log's class and the line that says so, or that the process ended. */
function deathWords(death: ServerDeath | undefined, tx: ReportText): string {
  const known = death?.class !== undefined && death.class !== 'unknown' ? death.class : undefined;
  const evidence = death?.evidence || undefined;
  if (known !== undefined && evidence !== undefined) return tx.t('failure.cause', { class: known, evidence });
  return known ?? evidence ?? tx.t('failure.processEnded');
}

export function failureWords(f: RunFailure, tx: ReportText): string {
  switch (f.code) {
    case 'launch-refused':
      return tx.t('failure.launch-refused', { detail: f.detail });
    case 'not-ready':
      return tx.t('failure.not-ready', { cause: f.detail ?? deathWords(f.death, tx) });
    case 'died-before-workload':
      return tx.t('failure.died-before-workload', { cause: deathWords(f.death, tx) });
    case 'requests-failed':
    case 'bench-failed': {
      const failure =
        f.code === 'requests-failed' ? tx.t('failure.requests-failed', { lost: tx.integer(f.lost), total: tx.integer(f.total) }) : (f.detail ?? tx.t('failure.noResult'));
      return f.death ? tx.t('failure.withDeath', { failure, cause: deathWords(f.death, tx) }) : failure;
    }
    case 'job-ended':
      return f.reason ? tx.t('failure.job-ended.reason', { jobId: f.jobId, state: f.state, reason: f.reason }) : tx.t('failure.job-ended', { jobId: f.jobId, state: f.state });
  }
}

/**
 * Why a trial has no measurement, in the reader's language: its refusal or failure worded from the facts, else the
 * stored text (an older project's English, or an error raised while measuring); null when there is nothing to say.
 */
export function trialProblemWords(t: Pick<Trial, 'refusal' | 'rejectReason' | 'failure' | 'error' | 'result'>, tx: ReportText): string | null {
  if (t.refusal) return refusalWords(t.refusal, tx);
  if (t.rejectReason !== undefined) return t.rejectReason;
  if (t.failure) return failureWords(t.failure, tx);
  return t.error ?? t.result?.error ?? null;
}

const english = reportText('en');

/** A failure as a trial stores it: the code and facts, and their English words for readers that predate them. */
export function failureRecord(failure: RunFailure): Required<Pick<Trial, 'error' | 'failure'>> {
  return { error: failureWords(failure, english), failure };
}

/** A refusal as a trial stores it: the code and facts, and their English words for readers that predate them. */
export function refusalRecord(refusal: Refusal): Required<Pick<Trial, 'rejectReason' | 'refusal'>> {
  return { rejectReason: refusalWords(refusal, english), refusal };
}
