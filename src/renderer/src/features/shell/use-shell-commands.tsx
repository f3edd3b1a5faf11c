import { useCallback, useState, type ReactNode } from 'react';
import { useApi } from '../../api/context';
import { t } from '../../i18n';
import { useAppStoreApi, type PageId } from '../../store';
import type { AppCommand } from '../../../../shared/contract';
import { PathDialog } from '../studies/PathDialog';
import { errorText } from '../studies/study-errors';
import { useNativeDialog } from '../studies/use-native-dialog';
import { baseName } from '../studies/study-format';
import { ShortcutsDialog } from './ShortcutsDialog';
import { PROJECT_EXTENSION, PROJECT_SUFFIX, withoutProjectSuffix } from '../../../../shared/project-document';

type PathRequest = 'open' | 'openGuide' | 'saveAs';

const PAGE_COMMANDS: Partial<Record<AppCommand, PageId>> = {
  'page:hosts': 'hosts',
  'page:engines': 'engines',
  'page:studies': 'studies',
  'page:results': 'results',
};

/** The extensions a tuning guide may have: Markdown, HTML or text. */
const GUIDE_EXTENSIONS = ['md', 'markdown', 'html', 'htm', 'txt'];

/** `<dir>/<name>.servelab` beside the guide: `qwen3-8b.tr.txt` → `qwen3-8b.tr.servelab`. */
export function guideProjectPath(guide: string): string {
  return guide.replace(/\.(md|markdown|html?|txt)$/i, '') + PROJECT_SUFFIX;
}

/** `<dir>/<name>-copy.servelab` beside the project. */
function copyPath(path: string): string {
  return `${withoutProjectSuffix(path)}-copy${PROJECT_SUFFIX}`;
}

/**
 * What each app command does, whether it came from a key, the desktop menu or a button; and the dialogs they open
 * (a typed path where there is no native file dialog, the shortcuts list). Leaving the wizard asks first when it
 * holds unsaved changes.
 */
export function useShellCommands(): {
  run: (command: AppCommand) => void;
  /** Shows the project at `path` on the Studies page (leaving the wizard asks first); a failure shows as the error. */
  openProjectAt: (path: string) => void;
  dialogs: ReactNode;
  error: string | null;
  dismissError: () => void;
} {
  const api = useApi();
  const store = useAppStoreApi();
  const [pathRequest, setPathRequest] = useState<PathRequest | null>(null);
  const [shortcuts, setShortcuts] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const nativeDialog = useNativeDialog();

  const attempt = useCallback((work: () => Promise<void>) => {
    setError(null);
    work().catch((e: unknown) => setError(errorText(e)));
  }, []);

  const run = useCallback(
    (command: AppCommand) => {
      const state = store.getState();
      const page = PAGE_COMMANDS[command];
      if (page) {
        state.showPage(page);
        return;
      }
      const openProject = state.wizard ? null : state.openStudy;
      switch (command) {
        case 'shortcuts':
          setShortcuts(true);
          return;
        case 'newStudy':
          state.leaveWizardThen(() => {
            store.getState().showPage('studies');
            store.getState().startWizard();
          });
          return;
        case 'open':
          state.leaveWizardThen(() =>
            attempt(async () => {
              store.getState().showPage('studies');
              const answer = await nativeDialog(() => api.call('dialogs:openFile', { title: t('studies.open.dialogTitle'), extensions: [PROJECT_EXTENSION] }));
              if (answer === undefined) setPathRequest('open');
              else if (answer.path) await store.getState().openStudyProject(answer.path);
            }),
          );
          return;
        case 'openGuide':
          state.leaveWizardThen(() =>
            attempt(async () => {
              store.getState().showPage('studies');
              const guide = await nativeDialog(() => api.call('dialogs:openFile', { title: t('studies.guide.dialogTitle'), extensions: GUIDE_EXTENSIONS }));
              if (guide === undefined) {
                setPathRequest('openGuide');
                return;
              }
              if (!guide.path) return;
              const out = await nativeDialog(() => api.call('dialogs:saveFile', { title: t('studies.guide.saveTitle'), defaultName: baseName(guideProjectPath(guide.path!)), extensions: [PROJECT_EXTENSION] }));
              if (out?.path) await store.getState().createStudyFromGuide(out.path, guide.path);
            }),
          );
          return;
        case 'save':
          // A project's own file is written as it runs; only the wizard holds something to save.
          if (state.wizard) {
            state.showPage('studies');
            void state.saveWizard();
          }
          return;
        case 'saveAs':
          if (!openProject) {
            setError(t('commands.nothingOpen', { action: t('studies.saveAs') }));
            return;
          }
          attempt(async () => {
            store.getState().showPage('studies');
            const answer = await nativeDialog(() =>
              api.call('dialogs:saveFile', { title: t('studies.saveAs.dialogTitle'), defaultName: baseName(copyPath(openProject.path)), extensions: [PROJECT_EXTENSION] }),
            );
            if (answer === undefined) setPathRequest('saveAs');
            else if (answer.path) await store.getState().saveOpenStudyAs(answer.path);
          });
          return;
        case 'export':
          if (!openProject) {
            setError(t('commands.nothingOpen', { action: t('studies.report.exportLabel') }));
            return;
          }
          state.showPage('studies');
          state.requestStudyTab('report');
          return;
      }
    },
    [api, store, attempt, nativeDialog],
  );

  const openProjectAt = useCallback(
    (path: string) =>
      store.getState().leaveWizardThen(() =>
        attempt(async () => {
          store.getState().showPage('studies');
          await store.getState().openStudyProject(path);
        }),
      ),
    [store, attempt],
  );

  const openPath = store.getState().openStudy?.path ?? '';
  const dialogsNode = (
    <>
      {shortcuts && <ShortcutsDialog onClose={() => setShortcuts(false)} />}
      {pathRequest === 'open' && (
        <PathDialog
          title={t('studies.open.title')}
          intro={t('studies.open.intro')}
          submitLabel={t('studies.open.submit')}
          initialPath=""
          onSubmit={(path) => store.getState().openStudyProject(path)}
          onClose={() => setPathRequest(null)}
        />
      )}
      {pathRequest === 'openGuide' && (
        <PathDialog
          title={t('studies.guide.title')}
          intro={t('studies.guide.intro')}
          submitLabel={t('studies.guide.submit')}
          initialPath=""
          onSubmit={(path) => store.getState().createStudyFromGuide(guideProjectPath(path), path)}
          onClose={() => setPathRequest(null)}
        />
      )}
      {pathRequest === 'saveAs' && (
        <PathDialog
          title={t('studies.saveAs.title')}
          intro={t('studies.saveAs.intro')}
          submitLabel={t('studies.saveAs.submit')}
          initialPath={copyPath(openPath)}
          onSubmit={(path) => store.getState().saveOpenStudyAs(path)}
          onClose={() => setPathRequest(null)}
        />
      )}
    </>
  );
  return { run, openProjectAt, dialogs: dialogsNode, error, dismissError: () => setError(null) };
}
