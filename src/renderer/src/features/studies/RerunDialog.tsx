import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { CallOutput } from '../../../../shared/contract';
import { ENGINE_ADAPTERS } from '../../../../shared/engines/adapters';
import type { EngineId } from '../../../../shared/engines/types';
import type { ProjectFile } from '../../../../shared/study/study';
import { useApi } from '../../api/context';
import { TextField } from '../../components/Field';
import { Modal } from '../../components/Modal';
import { SelectField } from '../../components/SelectField';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { useAppStore } from '../../store';
import { errorText } from './study-errors';
import { engineName, stageLabel } from './study-format';
import { refusalText } from './study-words';
import { PROJECT_SUFFIX, withoutProjectSuffix } from '../../../../shared/project-document';

type Rerun = CallOutput<'studies:rerun'>;

/** `/dir/name.servelab` → `/dir/name-rerun.servelab`: beside the original, where its user looks for it. */
export function rerunPath(path: string): string {
  return `${withoutProjectSuffix(path)}-rerun${PROJECT_SUFFIX}`;
}

/** The study's engines, each once, in the order it lists them. */
function enginesOf(project: ProjectFile): { engine: EngineId; version: string }[] {
  const seen = new Map<EngineId, string>();
  for (const choice of project.study.engines) if (!seen.has(choice.engine)) seen.set(choice.engine, choice.version);
  return [...seen].map(([engine, version]) => ({ engine, version }));
}

const SAME_HOSTS = '';

/**
 * "Re-run with…": a finished study's engines at other versions (the versions Servelab has flag tables for, newest
 * first) and, optionally, on another host, written as a new project by studies:rerun. Candidates the new versions
 * cannot launch are listed before the re-run is opened.
 */
export function RerunDialog({ path, project, onClose }: { path: string; project: ProjectFile; onClose: () => void }) {
  const api = useApi();
  const hosts = useAppStore((s) => s.hosts);
  const openStudyProject = useAppStore((s) => s.openStudyProject);
  const engines = enginesOf(project);
  const [versions, setVersions] = useState<Partial<Record<EngineId, string>>>(() => Object.fromEntries(engines.map((e) => [e.engine, e.version])));
  const [hostId, setHostId] = useState(SAME_HOSTS);
  const [out, setOut] = useState(() => rerunPath(path));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [made, setMade] = useState<Rerun | null>(null);
  const formId = useId();
  const openRef = useRef<HTMLButtonElement>(null);
  // The form and its submit button are gone once the re-run is written: the keyboard goes on from "Open the re-run".
  useEffect(() => {
    if (made) openRef.current?.focus();
  }, [made]);

  const hostLabel = (id: string) => hosts.find((h) => h.id === id)?.label ?? id;
  const hostOptions = [
    { value: SAME_HOSTS, label: t('studies.rerun.hostSame', { hosts: project.study.hosts.map((h) => hostLabel(h.hostId)).join(', ') }) },
    ...hosts.map((h) => ({ value: h.id, label: h.label })),
  ];

  async function open(target: string) {
    try {
      await openStudyProject(target);
      onClose();
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const target = out.trim();
    if (!target) {
      setError(t('studies.path.required'));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const result = await api.call('studies:rerun', { path, out: target, engineVersions: versions, ...(hostId !== SAME_HOSTS ? { hostId } : {}) });
      if (result.lost.length === 0 && result.untabled.length === 0) {
        await open(result.path);
        return;
      }
      setMade(result);
      setBusy(false);
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  }

  const footer = made ? (
    <>
      <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
        {t('studies.rerun.close')}
      </button>
      <button ref={openRef} type="button" className="btn btn-primary" onClick={() => void open(made.path)} disabled={busy}>
        {busy && <Spinner />}
        {t('studies.rerun.open')}
      </button>
    </>
  ) : (
    <>
      <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
        {t('studies.dialog.cancel')}
      </button>
      <button type="submit" form={formId} className="btn btn-primary" disabled={busy}>
        {busy && <Spinner />}
        {t('studies.rerun.submit')}
      </button>
    </>
  );

  return (
    <Modal
      title={t('studies.rerun.title')}
      size="wide"
      onClose={() => {
        if (!busy) onClose();
      }}
      footer={footer}
    >
      {made ? (
        <div className="rerun-made">
          <p>{t('studies.rerun.created', { path: made.path })}</p>
          {made.untabled.map((u) => (
            <p key={`${u.engine}@${u.version}`} className="study-note">
              {t('studies.rerun.untabled', { engine: engineName(u.engine), version: u.version, table: u.checkedAgainst })}
            </p>
          ))}
          {made.lost.length > 0 && (
            <>
              <p>{t('studies.rerun.lost')}</p>
              <ul className="rerun-lost">
                {made.lost.map((l) => (
                  <li key={`${l.engine}/${l.stageId}/${l.candidateId}`}>
                    {t('studies.rerun.lostItem', { engine: engineName(l.engine), version: l.version, stage: stageLabel(project, l.stageId), label: l.label, reason: l.refusal ? refusalText(l.refusal) : l.reason })}
                  </li>
                ))}
              </ul>
            </>
          )}
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
        </div>
      ) : (
        <form id={formId} className="form" onSubmit={(event) => void submit(event)} noValidate>
          <p className="muted">{t('studies.rerun.intro')}</p>
          {engines.map(({ engine, version }) => (
            <SelectField
              key={engine}
              label={t('studies.rerun.version', { engine: engineName(engine) })}
              value={versions[engine] ?? version}
              options={versionOptions(engine, version)}
              onValueChange={(value) => setVersions((v) => ({ ...v, [engine]: value }))}
            />
          ))}
          <SelectField label={t('studies.rerun.host')} value={hostId} options={hostOptions} onValueChange={setHostId} />
          <TextField label={t('studies.rerun.path')} value={out} onValueChange={setOut} error={error} hint={t('studies.rerun.pathHint')} className="mono" spellCheck={false} autoComplete="off" />
        </form>
      )}
    </Modal>
  );
}

/** The versions Servelab has flag tables for, newest first, with the study's own marked (and kept when untabled). */
function versionOptions(engine: EngineId, current: string): { value: string; label: string }[] {
  const known = [...ENGINE_ADAPTERS[engine].knownVersions].reverse();
  const list = known.includes(current) ? known : [current, ...known];
  return list.map((v) => ({ value: v, label: v === current ? t('studies.rerun.versionCurrent', { version: v }) : v }));
}
