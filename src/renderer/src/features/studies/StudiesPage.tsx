import { useEffect, useState } from 'react';
import { useApi } from '../../api/context';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { t } from '../../i18n';
import { useAppStore, type StudyExample } from '../../store';
import { StudyWizard } from '../wizard/StudyWizard';
import { errorText } from './study-errors';
import { exampleText, recentName } from './study-words';
import { useNativeDialog } from './use-native-dialog';
import { baseName, formatOpenedAt } from './study-format';
import { defaultProjectPath, PathDialog } from './PathDialog';
import { StudyProjectView } from './StudyProjectView';
import { useRunCommand } from '../shell/commands-context';
import './studies.css';
import { PROJECT_EXTENSION } from '../../../../shared/project-document';

type PathRequest = { kind: 'open' } | { kind: 'example'; example: StudyExample };

function Landing({ onNewStudy }: { onNewStudy: () => void }) {
  const api = useApi();
  const examples = useAppStore((s) => s.studyExamples);
  const recent = useAppStore((s) => s.recentStudies);
  const dataDir = useAppStore((s) => s.appInfo?.dataDir);
  const loadStudyLists = useAppStore((s) => s.loadStudyLists);
  const openStudyProject = useAppStore((s) => s.openStudyProject);
  const createStudyFromExample = useAppStore((s) => s.createStudyFromExample);
  const [pathRequest, setPathRequest] = useState<PathRequest | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const nativeDialog = useNativeDialog();
  const runCommand = useRunCommand();

  useEffect(() => {
    void loadStudyLists();
  }, [loadStudyLists]);

  async function attempt(key: string, work: () => Promise<void>) {
    setBusy(key);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(null);
    }
  }

  function openProject() {
    void attempt('open', async () => {
      const answer = await nativeDialog(() => api.call('dialogs:openFile', { title: t('studies.open.dialogTitle'), extensions: [PROJECT_EXTENSION] }));
      if (answer === undefined) setPathRequest({ kind: 'open' });
      else if (answer.path) await openStudyProject(answer.path);
    });
  }

  function startFromExample(example: StudyExample) {
    void attempt(`example:${example.path}`, async () => {
      const answer = await nativeDialog(() =>
        api.call('dialogs:saveFile', { title: t('studies.example.dialogTitle'), defaultName: baseName(example.path), extensions: [PROJECT_EXTENSION] }),
      );
      if (answer === undefined) setPathRequest({ kind: 'example', example });
      else if (answer.path) await createStudyFromExample(answer.path, baseName(example.path));
    });
  }

  return (
    <div className="page study-page">
      <header className="page-header">
        <div>
          <h1 className="page-title">{t('studies.title')}</h1>
          <p className="page-subtitle">{t('studies.subtitle')}</p>
        </div>
        <div className="page-actions">
          <button type="button" className="btn btn-secondary" onClick={openProject} disabled={busy === 'open'}>
            {busy === 'open' ? <Spinner /> : <Icon name="log" size={14} />}
            {t('studies.open')}
          </button>
          {runCommand && (
            // The same command as File → Open guide…, so a browser (which has no menu) reaches it too.
            <button type="button" className="btn btn-secondary" onClick={() => runCommand('openGuide')}>
              <Icon name="log" size={14} />
              {t('studies.guide.open')}
            </button>
          )}
          <button type="button" className="btn btn-primary" onClick={onNewStudy}>
            <Icon name="plus" size={14} />
            {t('studies.new')}
          </button>
        </div>
      </header>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="study-landing">
        <section className="card study-list-card" aria-labelledby="study-examples-title">
          <h2 id="study-examples-title" className="card-title">
            <Icon name="flask" size={16} />
            {t('studies.examples.title')}
          </h2>
          <p className="muted">{t('studies.examples.intro')}</p>
          {examples.status === 'loading' && examples.items.length === 0 ? (
            <p className="empty-line">
              <Spinner /> {t('studies.loading')}
            </p>
          ) : examples.status === 'failed' ? (
            <p className="form-error">{examples.error?.message}</p>
          ) : examples.items.length === 0 ? (
            <p className="empty-line">{t('studies.examples.none')}</p>
          ) : (
            <ul className="study-examples">
              {examples.items.map((example) => {
                const text = exampleText(example);
                return (
                  <li key={example.path} className="study-example">
                    <div className="study-example-text">
                      <h3 className="study-example-name">{text.name}</h3>
                      {text.description && <p className="study-example-description">{text.description}</p>}
                    </div>
                    <button
                      type="button"
                      className="btn btn-secondary btn-small"
                      aria-label={t('studies.examples.useNamed', { name: text.name })}
                      disabled={busy === `example:${example.path}`}
                      onClick={() => startFromExample(example)}
                    >
                      {busy === `example:${example.path}` ? <Spinner /> : <Icon name="plus" size={13} />}
                      {t('studies.examples.use')}
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
        <section className="card study-list-card" aria-labelledby="study-recent-title">
          <h2 id="study-recent-title" className="card-title">
            <Icon name="clock" size={16} />
            {t('studies.recent.title')}
          </h2>
          {recent.status === 'failed' ? (
            <p className="form-error">{recent.error?.message}</p>
          ) : recent.items.length === 0 ? (
            <p className="empty-line">{recent.status === 'loading' ? t('studies.loading') : t('studies.recent.none')}</p>
          ) : (
            <ul className="study-recent" aria-label={t('studies.recent.title')}>
              {recent.items.map((item) => (
                <li key={item.path}>
                  <button
                    type="button"
                    className="study-recent-item"
                    aria-label={t('studies.recent.openNamed', { name: recentName(item) })}
                    disabled={busy === `recent:${item.path}`}
                    onClick={() => void attempt(`recent:${item.path}`, () => openStudyProject(item.path))}
                  >
                    <span className="study-recent-name">{recentName(item)}</span>
                    <span className="study-recent-path mono">{item.path}</span>
                    <span className="study-recent-time muted">{t('studies.recent.openedAt', { when: formatOpenedAt(item.openedAt) })}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      {pathRequest?.kind === 'open' && (
        <PathDialog
          title={t('studies.open.title')}
          intro={t('studies.open.intro')}
          submitLabel={t('studies.open.submit')}
          initialPath=""
          onSubmit={(path) => openStudyProject(path)}
          onClose={() => setPathRequest(null)}
        />
      )}
      {pathRequest?.kind === 'example' && (
        <PathDialog
          title={t('studies.example.title', { name: exampleText(pathRequest.example).name })}
          intro={t('studies.example.intro')}
          submitLabel={t('studies.example.submit')}
          initialPath={defaultProjectPath(dataDir, baseName(pathRequest.example.path))}
          onSubmit={(path) => createStudyFromExample(path, baseName(pathRequest.example.path))}
          onClose={() => setPathRequest(null)}
        />
      )}
    </div>
  );
}

/** Studies: open or create a project, then plan, run, watch, and read its recommendation and report. */
export function StudiesPage() {
  const openStudy = useAppStore((s) => s.openStudy);
  const openStudyProject = useAppStore((s) => s.openStudyProject);
  // The wizard's session is in the store: it is still here after a visit to another page.
  const wizardOpen = useAppStore((s) => s.wizard !== null);
  const startWizard = useAppStore((s) => s.startWizard);
  const closeWizard = useAppStore((s) => s.closeWizard);
  const [createdError, setCreatedError] = useState<string | null>(null);

  if (wizardOpen) {
    return (
      <div className="page study-page">
        <StudyWizard
          onCreated={(path) => {
            closeWizard();
            setCreatedError(null);
            openStudyProject(path).catch((e: unknown) => setCreatedError(errorText(e)));
          }}
          onCancel={closeWizard}
        />
      </div>
    );
  }
  if (openStudy) return <StudyProjectView key={openStudy.path} study={openStudy} />;
  return (
    <>
      {createdError && (
        <p className="form-error study-page-error" role="alert">
          {createdError}
        </p>
      )}
      <Landing onNewStudy={() => startWizard()} />
    </>
  );
}
