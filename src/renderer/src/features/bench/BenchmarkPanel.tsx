import { useId, useMemo, useState, type FormEvent } from 'react';
import { WORKLOAD_PRESETS, WorkloadSchema, type Workload } from '../../../../shared/bench/workload';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { Badge } from '../../components/Badge';
import { TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ProgressBar, ProgressHead } from '../../components/ProgressBar';
import { Spinner } from '../../components/Spinner';
import { t, type PlainMessageKey } from '../../i18n';
import { LogView } from '../../logs/LogView';
import { toErrorInfo, useAppStore } from '../../store';
import { SelectField } from '../../components/SelectField';
import { formatMetric } from '../../components/metric-text';
import { presetName, workloadDescription } from '../studies/study-words';
import './bench.css';


const SUMMARY_METRICS: [key: string, label: PlainMessageKey][] = [
  ['completed', 'bench.metric.completed'],
  ['failed', 'bench.metric.failed'],
  ['duration', 'bench.metric.duration'],
  ['request_throughput', 'bench.metric.requestThroughput'],
  ['output_throughput', 'bench.metric.outputThroughput'],
  ['total_token_throughput', 'bench.metric.totalThroughput'],
  ['mean_ttft_ms', 'bench.metric.meanTtft'],
  ['mean_tpot_ms', 'bench.metric.meanTpot'],
  ['mean_itl_ms', 'bench.metric.meanItl'],
  ['mean_e2el_ms', 'bench.metric.meanE2el'],
];

interface WorkloadPlan {
  workload: Workload | null;
  errors: { numPrompts?: string; maxConcurrency?: string };
}

/** The preset with the user's prompt count and concurrency cap; a changed preset gets an id that says so. */
function planWorkload(preset: Workload, numPrompts: string, maxConcurrency: string): WorkloadPlan {
  const errors: WorkloadPlan['errors'] = {};
  const whole = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : NaN);
  const prompts = whole(numPrompts);
  if (Number.isNaN(prompts)) errors.numPrompts = t('bench.notAWholeNumber');
  const cap = maxConcurrency.trim() === '' ? undefined : whole(maxConcurrency);
  if (cap !== undefined && Number.isNaN(cap)) errors.maxConcurrency = t('bench.notAWholeNumber');
  if (Object.keys(errors).length > 0) return { workload: null, errors };
  const { maxConcurrency: _presetCap, label: _presetLabel, ...rest } = preset;
  const changed = prompts !== preset.numPrompts || cap !== preset.maxConcurrency;
  const candidate = {
    ...rest,
    ...(changed ? { id: `${preset.id}.n${prompts}.c${cap ?? 'inf'}` } : preset.label ? { label: preset.label } : {}),
    numPrompts: prompts,
    ...(cap !== undefined ? { maxConcurrency: cap } : {}),
  };
  const parsed = WorkloadSchema.safeParse(candidate);
  if (parsed.success) return { workload: parsed.data, errors };
  for (const issue of parsed.error.issues) {
    const field = issue.path[0];
    if (field === 'numPrompts' || field === 'maxConcurrency') errors[field] ??= issue.message;
  }
  return { workload: null, errors };
}

function ResultSummary({ entry, onShow }: { entry: ResultEntry | undefined; onShow: () => void }) {
  const metrics = entry?.result.metrics ?? {};
  const present = SUMMARY_METRICS.filter(([key]) => metrics[key] !== undefined);
  return (
    <div className="bench-summary" role="group" aria-label={t('bench.summaryLabel')}>
      {entry?.result.provenance?.simulated && (
        <Badge tone="warning" title={t('results.simulatedTitle')}>
          {t('results.simulated')}
        </Badge>
      )}
      {present.length > 0 && (
        <dl className="facts bench-metrics">
          {present.map(([key, label]) => (
            <div key={key} className="fact">
              <dt>{t(label)}</dt>
              <dd>{formatMetric(key, metrics[key])}</dd>
            </div>
          ))}
        </dl>
      )}
      <button type="button" className="btn btn-secondary btn-small bench-show" onClick={onShow}>
        <Icon name="chart" size={13} />
        {t('bench.showInResults')}
      </button>
    </div>
  );
}

function RunView({ runId }: { runId: string }) {
  const run = useAppStore((s) => s.benchRuns[runId]);
  const entry = useAppStore((s) => (run?.outcome?.entryId ? s.results.find((r) => r.id === run.outcome!.entryId) : undefined));
  const cancel = useAppStore((s) => s.cancelBenchmark);
  const showResult = useAppStore((s) => s.showResult);
  if (!run) return null;
  const running = run.outcome === null;
  const percent = run.total ? Math.min(100, (run.done / run.total) * 100) : 0;
  return (
    <div className="bench-run">
      {/* The bar stays at its last count when the run ends, so a short run's progress is not a flash. */}
      {(running || run.total !== null) && (
        <div className="progress-group">
          <ProgressHead caption={run.total ? t('bench.progress', { done: run.done, total: run.total }) : t('bench.starting')} detail={run.total !== null && `${Math.round(percent)}%`} />
          <ProgressBar label={t('bench.progressLabel')} percent={percent} max={run.total ?? undefined} value={run.total ? run.done : undefined} />
          {running && (
            <div>
              <button type="button" className="btn btn-danger-outline btn-small" disabled={run.cancelling} onClick={() => void cancel(runId)}>
                {run.cancelling ? <Spinner /> : <Icon name="power" size={13} />}
                {run.cancelling ? t('bench.cancelling') : t('bench.cancel')}
              </button>
            </div>
          )}
        </div>
      )}
      {run.outcome && (
        <p className={run.outcome.ok ? 'form-success' : 'form-error'} role={run.outcome.ok ? 'status' : 'alert'}>
          {run.outcome.ok ? t('bench.succeeded') : t('bench.failed', { message: run.outcome.message })}
        </p>
      )}
      {run.outcome?.entryId && <ResultSummary entry={entry} onShow={() => showResult(run.outcome!.entryId!)} />}
      <LogView buffer={run.log} title={t('bench.logTitle')} label={t('bench.logLabel')} />
    </div>
  );
}

/** Runs a benchmark workload against a ready server: progress, live log, then the key numbers of its result. */
export function BenchmarkPanel({ hostId, serverId }: { hostId: string; serverId: string }) {
  const startBenchmark = useAppStore((s) => s.startBenchmark);
  const runId = useAppStore((s) => s.latestBenchByServer[serverId] ?? null);
  const running = useAppStore((s) => (runId ? s.benchRuns[runId]?.outcome === null : false));
  const titleId = useId();
  const [presetId, setPresetId] = useState(WORKLOAD_PRESETS[0]!.id);
  const preset = WORKLOAD_PRESETS.find((w) => w.id === presetId) ?? WORKLOAD_PRESETS[0]!;
  const [numPrompts, setNumPrompts] = useState(String(preset.numPrompts));
  const [maxConcurrency, setMaxConcurrency] = useState(preset.maxConcurrency !== undefined ? String(preset.maxConcurrency) : '');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const plan = useMemo(() => planWorkload(preset, numPrompts, maxConcurrency), [preset, numPrompts, maxConcurrency]);

  function pickPreset(id: string) {
    const next = WORKLOAD_PRESETS.find((w) => w.id === id);
    if (!next) return;
    setPresetId(id);
    setNumPrompts(String(next.numPrompts));
    setMaxConcurrency(next.maxConcurrency !== undefined ? String(next.maxConcurrency) : '');
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!plan.workload || running) return;
    setSubmitting(true);
    setError(null);
    try {
      await startBenchmark({ hostId, serverId, workload: plan.workload });
    } catch (e) {
      setError(t('bench.startFailed', { message: toErrorInfo(e).message }));
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <section className="bench-panel" aria-labelledby={titleId}>
      <h3 id={titleId} className="card-title">
        <Icon name="chart" />
        {t('bench.title')}
      </h3>
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <SelectField label={t('bench.workload')} value={presetId} options={WORKLOAD_PRESETS.map((w) => ({ value: w.id, label: presetName(w) }))} onValueChange={pickPreset} />
        <div className="field-row">
          <TextField className="grow" label={t('bench.numPrompts')} value={numPrompts} onValueChange={setNumPrompts} error={plan.errors.numPrompts} inputMode="numeric" />
          <TextField
            className="grow"
            label={t('bench.maxConcurrency')}
            labelNote={t('bench.optional')}
            value={maxConcurrency}
            onValueChange={setMaxConcurrency}
            error={plan.errors.maxConcurrency}
            hint={t('bench.maxConcurrencyHint')}
            inputMode="numeric"
          />
        </div>
        {plan.workload && <p className="field-hint">{t('bench.willRun', { workload: workloadDescription(plan.workload) })}</p>}
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" className="btn btn-primary" disabled={submitting || running || !plan.workload}>
            {submitting ? <Spinner /> : <Icon name="chart" size={14} />}
            {t('bench.run')}
          </button>
        </div>
      </form>
      {runId && <RunView key={runId} runId={runId} />}
    </section>
  );
}
