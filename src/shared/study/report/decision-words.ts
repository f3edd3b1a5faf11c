import { getAdapter } from '../../engines/adapters';
import type { DecisionBasis, StageDecision, UnmeasuredCandidate } from '../study';
import { failureWords, refusalWords } from './problem-words';
import type { ReportText } from './text';

/**
 * A stage's decision in the report's language, worded from the facts the study stored with it (`basis`, `compared`,
 * `verdict`, `change`, `runs`, `unmeasured`) rather than from its stored English `reason`. A project written before
 * decisions kept their facts has only the reason: it is quoted, and a non-English report says it is the stored text.
 */

export interface DecisionContext {
  tx: ReportText;
  /** The objective on the study's basis ("total token throughput per GPU") and its unit. */
  objective: { label: string; unit: string };
  winnerLabel: string | null;
  /** The winner's gain over the best before the stage, in the objective's direction. */
  gainPct: number | null;
  /** A candidate's label in its stage. */
  labelOf: (candidateId: string) => string;
  /** A candidate as the decision names it: on a GPU budget with its replicas ("2 × FP8 TP4"); absent: its label. */
  named?: (candidateId: string) => string;
  /** Hides environment values and credentials in text from the project. */
  redact: (text: string) => string;
}

export function decisionWords(d: StageDecision, ctx: DecisionContext): string {
  const { tx } = ctx;
  const winner = d.winner !== null && ctx.winnerLabel !== null ? nameOf(d.winner, ctx.winnerLabel, ctx) : null;
  const kept =
    winner === null
      ? tx.t('decision.nothingKept')
      : ctx.gainPct !== null
        ? tx.t('decision.keptGain', { label: winner, gain: tx.pct(ctx.gainPct) })
        : tx.t('decision.kept', { label: winner });
  if (!d.basis) {
    const stored = ctx.redact(d.reason);
    const sentence = `${stored.charAt(0).toUpperCase()}${stored.slice(1)}${/[.!?]$/.test(stored) ? '' : '.'}`;
    return `${kept} ${tx.t('decision.stored', { reason: sentence })}`;
  }
  const unmeasured = (d.unmeasured ?? []).map((u) => unmeasuredWords(u, ctx));
  return [kept, ...basisWords(d, d.basis, ctx), ...unmeasured].join(' ');
}

/** A candidate as the decision names it (`named`), else its label. */
function nameOf(candidateId: string, label: string, ctx: DecisionContext): string {
  return ctx.named ? ctx.named(candidateId) : label;
}

function basisWords(d: StageDecision, basis: DecisionBasis, ctx: DecisionContext): string[] {
  const { tx, objective } = ctx;
  const metric = objective.label;
  const unit = objective.unit;
  const value = (v: number | null) => (v === null ? '–' : tx.number(v));
  const pctOf = (before: number | null, after: number | null) => (before !== null && after !== null && before !== 0 ? tx.pct(((after - before) / before) * 100) : '–');
  const compared = d.compared !== undefined ? nameOf(d.compared, ctx.labelOf(d.compared), ctx) : d.winner !== null && ctx.winnerLabel !== null ? nameOf(d.winner, ctx.winnerLabel, ctx) : '';
  const runs = runsWords(d, tx);
  const repeats = tx.integer(d.runs ? Math.max(d.runs.candidate, d.runs.reference) : 1);
  switch (basis.kind) {
    case 'skipped':
      return [
        tx.t('decision.skipped', {
          engines: tx.list(basis.stageEngines.map((e) => getAdapter(e).displayName)),
          engine: getAdapter(basis.bestEngine).displayName,
        }),
      ];
    case 'no-valid-result':
      return [d.stageId === 'engine' ? tx.t('decision.noEngine', { incumbent: basis.incumbent }) : tx.t('decision.noCandidate', { incumbent: basis.incumbent })];
    case 'engine': {
      const label = ctx.winnerLabel ?? compared;
      const shown = d.winner !== null && ctx.winnerLabel !== null ? nameOf(d.winner, ctx.winnerLabel, ctx) : compared;
      const out = [tx.t('decision.engineBest', { label: shown, value: value(d.after), unit, metric })];
      if (basis.others.length > 0) out.push(tx.t('decision.engineOthers', { others: tx.list(basis.others.map((o) => tx.t('decision.engineOther', { label: o.label, value: tx.number(o.value) }))) }));
      if (label === basis.baseline) out.push(tx.t('decision.engineIsBaseline'));
      else if (d.before !== null) out.push(tx.t('decision.engineVsBaseline', { change: pctOf(d.before, d.after), metric, baseline: basis.baseline }));
      if (basis.reference !== undefined && d.change && d.verdict) {
        const verdict =
          d.verdict === 'inconclusive'
            ? tx.t('decision.engineVerdict.inconclusive', { n: repeats })
            : d.verdict === 'no-difference'
              ? tx.t('decision.engineVerdict.no-difference')
              : tx.t('decision.engineVerdict.kept');
        out.push(tx.t('decision.engineVs', { reference: basis.reference, change: tx.change(d.change), metric, runs, verdict }));
      }
      return out;
    }
    case 'first-valid':
      return [tx.t('decision.firstValid', { label: compared, value: value(d.after), unit })];
    case 'compared': {
      const stated = d.change
        ? tx.t('decision.compared', { label: compared, change: tx.change(d.change), metric, before: value(d.before), after: tx.number(basis.value), unit, runs })
        : null;
      const margin = tx.percent(basis.marginPct);
      const incumbent = basis.incumbent;
      let verdict: string;
      switch (d.verdict) {
        case undefined:
          verdict = tx.t('decision.verdict.undecided');
          break;
        case 'kept':
          verdict = tx.t('decision.verdict.kept');
          break;
        case 'no-difference':
          verdict = tx.t('decision.verdict.no-difference', { margin, incumbent });
          break;
        case 'worse':
          verdict = tx.t('decision.verdict.worse', { incumbent });
          break;
        case 'no-gain':
          verdict = tx.t('decision.verdict.no-gain', { margin, incumbent });
          break;
        case 'inconclusive':
          verdict = tx.t('decision.verdict.inconclusive', { n: repeats, incumbent });
          break;
      }
      return stated ? [stated, verdict] : [verdict];
    }
    case 'single-run': {
      const change = tx.pct(basis.changePct);
      return [
        d.winner !== null
          ? tx.t('decision.singleRunKept', { label: compared, change, metric, before: value(d.before), after: tx.number(basis.value), unit })
          : tx.t('decision.singleRunNot', { incumbent: basis.incumbent, margin: tx.percent(basis.marginPct), label: compared, change, metric }),
      ];
    }
    case 'grid': {
      if (d.winner === null) return [tx.t('decision.gridNone', { total: tx.integer(basis.total) })];
      const label = ctx.winnerLabel ?? compared;
      const shown = d.winner !== null && ctx.winnerLabel !== null ? nameOf(d.winner, ctx.winnerLabel, ctx) : compared;
      const out = [tx.t('decision.gridBest', { measured: tx.integer(basis.measured), total: tx.integer(basis.total), label: shown, value: value(d.after), unit, metric })];
      if (d.before !== null && label !== basis.baseline) out.push(tx.t('decision.gridVsBaseline', { change: pctOf(d.before, d.after), metric, baseline: basis.baseline }));
      if (basis.total > basis.measured) out.push(tx.t('decision.gridInvalid', { n: tx.integer(basis.total - basis.measured) }));
      return out;
    }
  }
}

function runsWords(d: StageDecision, tx: ReportText): string {
  if (!d.runs) return tx.plural('decision.runsEach', 1);
  if (d.runs.candidate === d.runs.reference) return tx.plural('decision.runsEach', d.runs.candidate);
  return tx.t('decision.runsBoth', { candidate: tx.integer(d.runs.candidate), reference: tx.integer(d.runs.reference) });
}

function unmeasuredWords(u: UnmeasuredCandidate, ctx: DecisionContext): string {
  const { tx } = ctx;
  // The refusal or failure worded from its facts; a project written before them has only the English detail.
  const worded = u.refusal ? refusalWords(u.refusal, tx) : u.failure ? (failureWords(u.failure, tx).split('\n')[0] as string) : u.detail;
  const detail = worded !== undefined ? ctx.redact(worded).replace(/[.\s]+$/, '') : undefined;
  switch (u.why) {
    case 'rejected':
      return detail !== undefined ? tx.t('decision.unmeasured.rejected', { label: u.label, detail }) : tx.t('decision.unmeasured.rejectedPreflight', { label: u.label });
    case 'failed':
      return detail !== undefined ? tx.t('decision.unmeasured.failed', { label: u.label, detail }) : tx.t('decision.unmeasured.failedNoReason', { label: u.label });
    case 'missed-slos':
      return tx.t('decision.unmeasured.missed-slos', { label: u.label, detail: detail ?? '' });
    case 'no-result':
      return tx.t('decision.unmeasured.no-result', { label: u.label });
    case 'over-budget':
      return tx.t('decision.unmeasured.over-budget', { label: u.label, gpus: tx.integer(u.gpus ?? 0), budget: tx.integer(u.budget ?? 0) });
  }
}

/** The verdict in words with the change's interval: "−21.2% [−23.0, −19.5], kept"; null without one. */
export function verdictWords(d: StageDecision, tx: ReportText): string | null {
  if (!d.verdict || !d.change) return null;
  const change = tx.change(d.change);
  switch (d.verdict) {
    case 'kept':
      return tx.t('verdict.kept', { change });
    case 'no-difference':
      return tx.t('verdict.no-difference', { change });
    case 'worse':
      return tx.t('verdict.worse', { change });
    case 'no-gain':
      return tx.t('verdict.no-gain', { change });
    case 'inconclusive':
      return tx.t('verdict.inconclusive', { n: tx.integer(d.runs ? Math.max(d.runs.candidate, d.runs.reference) : 1), change });
  }
}
