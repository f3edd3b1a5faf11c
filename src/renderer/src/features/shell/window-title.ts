import { t } from '../../i18n';
import { hasUnsavedChanges, type AppState } from '../../store';
import { studyTextOf } from '../studies/study-words';

/**
 * What the window is about: the wizard's study while it is open, else the open project by its name in the app's
 * language (as its heading shows it); null on its own.
 */
export function openProjectName(state: Pick<AppState, 'wizard' | 'openStudy'>): string | null {
  if (state.wizard) return state.wizard.editing ? state.wizard.draft.name.trim() || t('wizard.title') : t('wizard.title');
  return state.openStudy ? studyTextOf(state.openStudy.project).name : null;
}

/** `Servelab`, `Servelab — <project>`, with a leading `• ` while the wizard holds unsaved changes. */
export function windowTitle(state: Pick<AppState, 'wizard' | 'openStudy'>): string {
  const name = openProjectName(state);
  const title = name ? t('studies.windowTitle', { name }) : t('app.name');
  return hasUnsavedChanges(state) ? t('app.windowTitle.unsaved', { title }) : title;
}
