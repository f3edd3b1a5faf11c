import { useEffect, useId, useState, type FormEvent } from 'react';
import { ENGINE_IDS, getAdapter, isEngineId, type EngineId } from '../../../../shared/engines';
import { Checkbox } from '../../components/Checkbox';
import { TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ProgressBar, ProgressHead } from '../../components/ProgressBar';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { toErrorInfo, useAppStore, type EngineMode } from '../../store';
import { LogView } from '../../logs/LogView';
import { ModeChoice } from './ModeChoice';
import { SelectField } from '../../components/SelectField';

const OTHER = '__other__';

export const engineOptions = ENGINE_IDS.map((id) => ({ value: id, label: getAdapter(id).displayName }));

function InstallProgress({ jobId }: { jobId: string }) {
  const job = useAppStore((s) => s.installJobs[jobId]);
  const [showLog, setShowLog] = useState(false);
  if (!job) return null;
  const name = job.engine ? getAdapter(job.engine).displayName : '';
  const percent = job.percent ?? 0;
  return (
    <div className="progress-group">
      <ProgressHead caption={job.phase ? t(`engines.phase.${job.phase}`) : t('engines.install.starting')} detail={job.percent !== null && `${Math.round(percent)}%`} />
      <ProgressBar label={t('engines.install.progressLabel')} percent={percent} max={100} value={job.percent === null ? undefined : Math.round(percent)} />
      {job.done && (
        <p className={job.done.ok ? 'form-success' : 'form-error'} role={job.done.ok ? 'status' : 'alert'}>
          {job.done.ok
            ? job.done.skipped
              ? t('engines.install.skipped', { engine: name, version: job.version ?? '' })
              : t('engines.install.succeeded', { engine: name, version: job.version ?? '' })
            : t('engines.install.failed', { message: job.done.message })}
        </p>
      )}
      <button type="button" className="btn btn-ghost btn-small" aria-expanded={showLog} onClick={() => setShowLog((v) => !v)}>
        <Icon name="chevron" size={12} className={showLog ? 'chevron-open' : undefined} />
        {showLog ? t('engines.install.hideLog') : t('engines.install.showLog')}
      </button>
      {showLog && <LogView buffer={job.log} title={t('engines.install.logTitle')} label={t('engines.install.logLabel')} height={240} />}
    </div>
  );
}

/**
 * Why docker mode cannot be used on the host, or null. The demo lab refuses it (a docker found there would be the
 * real machine's); another box says from its inventory, which is read once if the Hosts page has not read it yet.
 */
function useDockerUnavailable(hostId: string): string | null {
  const isDemo = useAppStore((s) => s.hosts.find((h) => h.id === hostId)?.kind === 'demo');
  const inventory = useAppStore((s) => s.inventoryByHost[hostId]);
  const readInventory = useAppStore((s) => s.readInventory);
  const known = inventory !== undefined;
  useEffect(() => {
    if (!isDemo && !known) void readInventory(hostId);
  }, [hostId, isDemo, known, readInventory]);
  if (isDemo) return t('engines.mode.demoNoDocker');
  if (inventory && !inventory.tools.docker.present) return t('engines.mode.noDocker');
  return null;
}

/** Installs a pinned engine version on the host; progress and outcome arrive as events. */
export function InstallPanel({ hostId }: { hostId: string }) {
  const installEngine = useAppStore((s) => s.installEngine);
  const dockerUnavailable = useDockerUnavailable(hostId);
  const [modeChoice, setModeChoice] = useState<EngineMode>('env');
  const mode: EngineMode = dockerUnavailable ? 'env' : modeChoice;
  const titleId = useId();
  const [engine, setEngine] = useState<EngineId>('vllm');
  const [versionChoice, setVersionChoice] = useState<string>(getAdapter('vllm').defaultVersion);
  const [customVersion, setCustomVersion] = useState('');
  const [force, setForce] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [jobId, setJobId] = useState<string | null>(null);

  const known = getAdapter(engine).knownVersions;
  const version = versionChoice === OTHER ? customVersion.trim() : versionChoice;

  function changeEngine(value: string) {
    if (!isEngineId(value)) return;
    setEngine(value);
    setVersionChoice(getAdapter(value).defaultVersion);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!version) {
      setError(t('engines.install.versionRequired'));
      return;
    }
    setSubmitting(true);
    setError(null);
    try {
      setJobId(await installEngine({ hostId, engine, version, ...(force ? { force: true } : {}), ...(mode === 'docker' ? { mode } : {}) }));
    } catch (e) {
      setError(t('engines.install.startFailed', { message: toErrorInfo(e).message }));
    } finally {
      setSubmitting(false);
    }
  }

  return (
    <section className="card engines-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        <Icon name="download" />
        {t('engines.install.title')}
      </h2>
      <form className="form" onSubmit={(event) => void submit(event)} noValidate>
        <div className="field-row">
          <SelectField label={t('engines.field.engine')} value={engine} options={engineOptions} onValueChange={changeEngine} />
          <SelectField
            label={t('engines.field.version')}
            value={versionChoice}
            options={[...known.map((v) => ({ value: v, label: v })), { value: OTHER, label: t('engines.field.versionOther') }]}
            onValueChange={setVersionChoice}
          />
        </div>
        <ModeChoice value={mode} onChange={setModeChoice} unavailable={dockerUnavailable ? { docker: dockerUnavailable } : {}} />
        {versionChoice === OTHER && (
          <TextField label={t('engines.field.customVersion')} value={customVersion} onValueChange={setCustomVersion} placeholder="0.11.0" />
        )}
        <Checkbox label={t('engines.install.force')} hint={t('engines.install.forceHint')} checked={force} onChange={setForce} />
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={submitting}>
          {submitting ? <Spinner /> : <Icon name="download" size={14} />}
          {t('engines.install.submit')}
        </button>
      </form>
      {jobId && <InstallProgress key={jobId} jobId={jobId} />}
    </section>
  );
}
