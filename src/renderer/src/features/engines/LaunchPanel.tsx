import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { getAdapter, isEngineId } from '../../../../shared/engines';
import { BenchmarkPanel } from '../bench/BenchmarkPanel';
import { Badge, type BadgeTone } from '../../components/Badge';
import { copyText } from '../../components/clipboard';
import { ExtraArgsField } from '../../components/ExtraArgsField';
import { TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { Checkbox } from '../../components/Checkbox';
import { HF_TOKEN_REF } from '../../../../shared/model/model-prefetch';
import { toErrorInfo, useAppStore, type EngineMode, type InstalledEngine, type ServerState } from '../../store';
import { HfTokenControl, useHfToken } from './HfTokenControl';
import { engineOptions } from './InstallPanel';
import { emptyLaunchForm, planLaunch, type LaunchForm } from './launch-model';
import { LogView } from '../../logs/LogView';
import { ENGINE_MODES, ModeChoice } from './ModeChoice';
import { PrefetchPanel, PrefetchState, type PrefetchStart } from './PrefetchPanel';
import { SelectField } from '../../components/SelectField';
import { StopChecks } from './StopChecks';

const NO_INSTALLED: InstalledEngine[] = [];

const STATE_TONE: Record<ServerState, BadgeTone> = {
  starting: 'info',
  ready: 'success',
  failed: 'danger',
  stopping: 'warning',
  stopped: 'neutral',
};

function ServerView({ serverId }: { serverId: string }) {
  const run = useAppStore((s) => s.servers[serverId]);
  const stopServer = useAppStore((s) => s.stopServer);
  const titleId = useId();
  const [copied, setCopied] = useState(false);
  if (!run) return null;
  const canStop = (run.state === 'starting' || run.state === 'ready') && !run.stopping && !run.stop;
  const verdict = run.classification && run.classification.class !== 'ready' ? run.classification : null;
  return (
    <section className="server-view" aria-labelledby={titleId}>
      <header className="server-view-header">
        <h3 id={titleId} className="card-title">
          {t('engines.server.title', { engine: getAdapter(run.engine).displayName, version: run.version })}
        </h3>
        <span data-testid="server-state">
          <Badge tone={STATE_TONE[run.state]} dot>
            {t(`engines.server.state.${run.state}`)}
          </Badge>
        </span>
        {run.port > 0 && <span className="muted">{t('engines.server.port', { port: run.port })}</span>}
        <button type="button" className="btn btn-danger-outline btn-small" disabled={!canStop} onClick={() => void stopServer(serverId)}>
          {run.stopping ? <Spinner /> : <Icon name="power" size={13} />}
          {t('engines.server.stop')}
        </button>
      </header>
      {run.command && (
        <div className="command-box">
          <code className="command-text mono-block">{run.command}</code>
          <button type="button" className="btn btn-ghost btn-small" onClick={() => void copyText(run.command).then(setCopied)}>
            <Icon name={copied ? 'check' : 'copy'} size={13} />
            {copied ? t('engines.copied') : t('engines.copy')}
          </button>
        </div>
      )}
      {verdict && (
        <div className="alert alert-danger" role="alert">
          <Icon name="alert" size={16} className="alert-icon" />
          <div className="alert-content">
            <p className="alert-title">{t('engines.verdict.title', { class: verdict.class })}</p>
            <p className="alert-message">{t('engines.verdict.evidence')}</p>
            <pre className="alert-pre mono-block">{verdict.evidence}</pre>
            <p className="alert-hint">{t('engines.verdict.hint', { hint: verdict.hint })}</p>
          </div>
        </div>
      )}
      {run.stopError && (
        <p className="form-error" role="alert">
          {t('engines.server.stopFailed', { message: run.stopError.message })}
        </p>
      )}
      {run.stop && <StopChecks result={run.stop} title={t('engines.stop.title')} />}
      <LogView buffer={run.log} title={t('engines.server.logTitle')} label={t('engines.server.logLabel')} />
      {run.state === 'ready' && <BenchmarkPanel hostId={run.hostId} serverId={serverId} />}
    </section>
  );
}

/** Launches a server from a typed config, previewing the exact command and checking the extra args first. */
export function LaunchPanel({ hostId }: { hostId: string }) {
  const installed = useAppStore((s) => s.installedByHost[hostId]?.items) ?? NO_INSTALLED;
  const launchServer = useAppStore((s) => s.launchServer);
  const titleId = useId();
  const [form, setForm] = useState<LaunchForm>(() => emptyLaunchForm('vllm', ''));
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [serverId, setServerId] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [prefetch, setPrefetch] = useState<PrefetchStart | null>(null);
  const startPrefetch = useAppStore((s) => s.startPrefetch);
  const hfToken = useHfToken();

  const versions = useMemo(() => [...new Set(installed.filter((i) => i.engine === form.engine).map((i) => i.version))], [installed, form.engine]);
  const version = versions.includes(form.version) ? form.version : (versions[0] ?? '');
  // Only the ways this version is installed can be chosen: its environment, its pulled image, or both.
  const modes = useMemo(
    () => ENGINE_MODES.filter((mode) => installed.some((i) => i.engine === form.engine && i.version === version && i.mode === mode)),
    [installed, form.engine, version],
  );
  const mode: EngineMode = modes.includes(form.mode) ? form.mode : (modes[0] ?? 'env');
  const model = form.model.trim();
  // Weights prefetched for this model: the server reads them from the cache offline and needs no token.
  const prefetchJob = useAppStore((s) => (prefetch?.jobId ? s.prefetchJobs[prefetch.jobId] : undefined));
  const weightsCached = mode === 'env' && prefetch?.model === model && prefetchJob?.outcome?.ok === true;
  const passHfToken = form.passHfToken && hfToken !== null && !weightsCached;
  const effective = useMemo(() => ({ ...form, version, mode, passHfToken }), [form, version, mode, passHfToken]);
  const plan = useMemo(() => planLaunch(effective, t('engines.launch.notANumber')), [effective]);
  const prefetchBlocked: string | null = !version ? t('engines.launch.installFirst') : !modes.includes('env') ? t('engines.prefetch.needsEnv') : null;
  const canPrefetch = prefetchBlocked === null && plan.fieldErrors.model === undefined && model !== '';

  async function runPrefetch() {
    if (!canPrefetch) return;
    setPrefetch({ model, jobId: null, error: null });
    try {
      const jobId = await startPrefetch({ hostId, engine: form.engine, version, model, ...(hfToken ? { hfTokenRef: HF_TOKEN_REF } : {}) });
      setPrefetch({ model, jobId, error: null });
    } catch (e) {
      setPrefetch({ model, jobId: null, error: t('engines.prefetch.startFailed', { message: toErrorInfo(e).message }) });
    }
  }

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  const change = (key: 'version' | 'model' | 'port' | 'tensorParallel' | 'maxModelLen' | 'gpuMemoryFraction' | 'gpus' | 'extraArgs') => (value: string) =>
    setForm((f) => ({ ...f, [key]: value }));
  const extraErrors = plan.extra?.issues.filter((i) => i.severity === 'error') ?? [];
  const extraWarnings = plan.extra?.issues.filter((i) => i.severity === 'warning') ?? [];
  const blocked = !version || !plan.config || extraErrors.length > 0 || Object.keys(plan.fieldErrors).length > 0;

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (blocked || !plan.config) return;
    setSubmitting(true);
    setError(null);
    try {
      const id = await launchServer({
        hostId,
        engine: form.engine,
        version,
        config: plan.config,
        ...(plan.gpus.length > 0 ? { gpus: plan.gpus } : {}),
        ...(mode === 'docker' ? { mode } : {}),
        ...(weightsCached ? { offline: true } : {}),
      });
      setServerId(id);
    } catch (e) {
      setError(t('engines.launch.failed', { message: toErrorInfo(e).message }));
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <section className="card engines-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        <Icon name="terminal" />
        {t('engines.launch.title')}
      </h2>
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <div className="field-row">
          <SelectField
            label={t('engines.field.engine')}
            value={form.engine}
            options={engineOptions}
            onValueChange={(value) => {
              if (isEngineId(value)) setForm((f) => ({ ...f, engine: value, version: '' }));
            }}
          />
          <SelectField
            label={t('engines.field.installedVersion')}
            value={version}
            options={versions.length > 0 ? versions.map((v) => ({ value: v, label: v })) : [{ value: '', label: t('engines.launch.noVersion') }]}
            onValueChange={change('version')}
            disabled={versions.length === 0}
          />
        </div>
        {versions.length === 0 && <p className="field-hint">{t('engines.launch.installFirst')}</p>}
        {versions.length > 0 && (
          <ModeChoice
            value={mode}
            onChange={(value) => setForm((f) => ({ ...f, mode: value }))}
            unavailable={{
              ...(modes.includes('env') ? {} : { env: t('engines.mode.envNotInstalled') }),
              ...(modes.includes('docker') ? {} : { docker: t('engines.mode.dockerNotInstalled') }),
            }}
          />
        )}
        <TextField label={t('engines.field.model')} value={form.model} onValueChange={change('model')} error={plan.fieldErrors.model} />
        <PrefetchPanel started={prefetch} disabled={!canPrefetch} reason={prefetchBlocked} onPrefetch={() => void runPrefetch()} />
        <HfTokenControl />
        <Checkbox
          label={t('engines.hfToken.pass')}
          hint={weightsCached ? t('engines.hfToken.offlineHint') : hfToken ? t('engines.hfToken.passHint') : t('engines.hfToken.passNeedsToken')}
          checked={passHfToken}
          disabled={!hfToken || weightsCached}
          onChange={(checked) => setForm((f) => ({ ...f, passHfToken: checked }))}
        />
        <div className="field-row">
          <TextField
            className="grow"
            label={t('engines.field.port')}
            labelNote={t('engines.field.optional')}
            value={form.port}
            onValueChange={change('port')}
            placeholder={t('engines.field.portPlaceholder')}
            error={plan.fieldErrors.port}
            inputMode="numeric"
          />
          <TextField
            className="grow"
            label={t('engines.field.tensorParallel')}
            value={form.tensorParallel}
            onValueChange={change('tensorParallel')}
            error={plan.fieldErrors.tensorParallelSize}
            inputMode="numeric"
          />
        </div>
        <div className="field-row">
          <TextField
            className="grow"
            label={t('engines.field.maxModelLen')}
            value={form.maxModelLen}
            onValueChange={change('maxModelLen')}
            error={plan.fieldErrors.maxModelLen}
            inputMode="numeric"
          />
          <TextField
            className="grow"
            label={t('engines.field.gpuMemoryFraction')}
            value={form.gpuMemoryFraction}
            onValueChange={change('gpuMemoryFraction')}
            error={plan.fieldErrors.gpuMemoryFraction}
            placeholder="0.9"
            inputMode="decimal"
          />
        </div>
        <TextField
          label={t('engines.field.gpus')}
          labelNote={t('engines.field.optional')}
          value={form.gpus}
          onValueChange={change('gpus')}
          placeholder="0,1"
          hint={t('engines.field.gpusHint')}
        />
        <ExtraArgsField
          label={t('engines.field.extraArgs')}
          labelNote={t('engines.field.optional')}
          engine={form.engine}
          version={form.version}
          value={form.extraArgs}
          onValueChange={change('extraArgs')}
          error={extraErrors.length > 0 ? extraErrors.map((i) => i.message).join('; ') : undefined}
          hint={extraWarnings.length > 0 ? extraWarnings.map((i) => i.message).join('; ') : t('engines.field.extraArgsHint')}
        />
        <div className="command-preview">
          <div className="command-preview-head">
            <span className="field-label">{t('engines.launch.preview')}</span>
            <button
              type="button"
              className="btn btn-ghost btn-small"
              disabled={!plan.command}
              onClick={() => void copyText(plan.command ?? '').then(setCopied)}
            >
              <Icon name={copied ? 'check' : 'copy'} size={13} />
              {copied ? t('engines.copied') : t('engines.copyCommand')}
            </button>
          </div>
          {plan.image && <p className="field-hint">{t('engines.launch.dockerNote', { image: plan.image })}</p>}
          <code className="command-text mono-block" data-testid="command-preview">
            {plan.command ?? (plan.buildError ? t('engines.launch.previewFailed', { message: plan.buildError }) : t('engines.launch.previewEmpty'))}
          </code>
          {plan.secretEnv.map((entry) => (
            <p key={entry.name} className="field-hint">
              {t('engines.launch.secretEnvNote', { name: entry.name, ref: entry.secretRef })}
            </p>
          ))}
          {plan.warnings.length > 0 && (
            <ul className="command-warnings">
              {plan.warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          )}
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="launch-actions">
          <button type="submit" className="btn btn-primary" disabled={submitting || blocked}>
            {submitting ? <Spinner /> : <Icon name="power" size={14} />}
            {t('engines.launch.submit')}
          </button>
          <PrefetchState started={prefetch} model={model} />
        </div>
      </form>
      {serverId && <ServerView key={serverId} serverId={serverId} />}
    </section>
  );
}
