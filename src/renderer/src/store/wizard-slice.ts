import type { StateCreator } from 'zustand';
import type { CallOutput } from '../../../shared/contract';
import type { StudyDefinition } from '../../../shared/study/study';
import type { ApiClient } from '../api/client';
import { currentMessages, type Messages } from '../i18n';
import { assemble, type Assembled, type WizardIssue } from '../study-draft/assemble';
import { WIZARD_STEPS, draftFromDefinition, initialDraft, slugOf, type WizardDraft, type WizardStep } from '../study-draft/draft';
import { locateCoreIssue } from '../study-draft/issue-location';
import { issueLine, plainMessage } from '../study-draft/issue-text';
import { toErrorInfo } from './errors';
import type { AppState } from './types';
import { PROJECT_SUFFIX } from '../../../shared/project-document';

/** Where the wizard's save-and-plan stands: the json is the definition the plan was made for. */
export type PlanView =
  | { status: 'idle' }
  | { status: 'saving' }
  | { status: 'planning' }
  | { status: 'failed'; message: string }
  | { status: 'ready'; plan: CallOutput<'studies:plan'>; json: string }
  | { status: 'planFailed'; message: string; json: string };

/**
 * Everything the study wizard holds between visits: kept in the store, so going to another page and back returns
 * to the same step with everything typed.
 */
export interface WizardSession {
  /** The draft the session started from; Cancel asks before discarding anything else. */
  initial: WizardDraft;
  draft: WizardDraft;
  stepIndex: number;
  /** The furthest step visited: every step up to it can be jumped to. */
  reached: number;
  touched: ReadonlySet<string>;
  /** Steps whose every error shows, untouched fields included (after Enter on an invalid step or a failed save). */
  revealed: ReadonlySet<WizardStep>;
  /** Issues the core reported for the last save, placed on their step and field. */
  coreIssues: WizardIssue[];
  path: string;
  pathTouched: boolean;
  /** The file this session last wrote and the definition it wrote there. */
  saved: { path: string; json: string } | null;
  plan: PlanView;
  /** The project this session edits again (a draft that has not run), or null for a new study. */
  editing: string | null;
  /** The app's data folder, for the default path; null until app:info answered. */
  dataDir: string | null;
  /** Ids of the simulated hosts; null until the host list arrived (then only `demo-lab` counts as one). */
  demoHostIds: string[] | null;
  /** Each host's label by id, for the issues that name a host; null until the host list arrived. */
  hostLabels: Readonly<Record<string, string>> | null;
}

type Update<T> = T | ((previous: T) => T);

/** What the user chose when asked about unsaved changes before leaving the wizard. */
export type LeaveChoice = 'save' | 'discard' | 'cancel';

export interface WizardSlice {
  wizard: WizardSession | null;
  /** Leaving the wizard with unsaved changes waits here for the user's choice; `then` runs after save or discard. */
  wizardLeave: { then: () => void; saving: boolean; error: string | null } | null;
  /** A new session, empty, or for the draft project at `from.path` (saved back to the same file). */
  startWizard(from?: { path: string; study: StudyDefinition }): void;
  updateWizard<K extends keyof WizardSession>(key: K, value: Update<WizardSession[K]>): void;
  closeWizard(): void;
  /** Writes the definition (create, or save over this session's own file) and asks the core for its plan. */
  saveWizard(): Promise<boolean>;
  /** Runs `then` at once when nothing would be lost, else asks first (save draft / discard / cancel). */
  leaveWizardThen(then: () => void): void;
  resolveWizardLeave(choice: LeaveChoice): Promise<void>;
}

export function sessionIsDemoHost(session: Pick<WizardSession, 'demoHostIds'>): (hostId: string) => boolean {
  const ids = session.demoHostIds;
  return (hostId) => (ids ? ids.includes(hostId) : hostId === 'demo-lab');
}

/** The host's label as the issues name it: the id until the host list arrived. */
export function sessionHostLabel(session: Pick<WizardSession, 'hostLabels'>): (hostId: string) => string {
  const labels = session.hostLabels;
  return (hostId) => labels?.[hostId] ?? hostId;
}

const assembledCache = new WeakMap<WizardDraft, { hosts: string; messages: Messages; result: Assembled }>();

/**
 * The definition the session's draft assembles to; the same object while the draft, hosts and language are unchanged
 * (its issues are said in the language, so switching it assembles them again).
 */
export function assembledOf(session: Pick<WizardSession, 'draft' | 'demoHostIds' | 'hostLabels'>): Assembled {
  const hosts = JSON.stringify([session.demoHostIds, session.hostLabels]);
  const messages = currentMessages();
  const cached = assembledCache.get(session.draft);
  if (cached && cached.hosts === hosts && cached.messages === messages) return cached.result;
  const result = assemble(session.draft, sessionIsDemoHost(session), messages, sessionHostLabel(session));
  assembledCache.set(session.draft, { hosts, messages, result });
  return result;
}

function joinPath(dir: string, ...parts: string[]): string {
  const sep = dir.includes('\\') && !dir.includes('/') ? '\\' : '/';
  return [dir.replace(/[\\/]+$/, ''), ...parts].join(sep);
}

/** The path the session would save to: the one typed or chosen, else `<data folder>/studies/<name>.servelab`. */
export function effectivePathOf(session: Pick<WizardSession, 'path' | 'pathTouched' | 'dataDir' | 'draft'>): string {
  if (session.pathTouched || session.path) return session.path;
  return session.dataDir ? joinPath(session.dataDir, 'studies', `${slugOf(session.draft.name)}${PROJECT_SUFFIX}`) : '';
}

const draftJson = new WeakMap<WizardDraft, string>();
function jsonOf(draft: WizardDraft): string {
  let json = draftJson.get(draft);
  if (json === undefined) {
    json = JSON.stringify(draft);
    draftJson.set(draft, json);
  }
  return json;
}

/** Whether the user changed anything since the session started. */
export function wizardDirty(session: WizardSession): boolean {
  return jsonOf(session.draft) !== jsonOf(session.initial);
}

/**
 * Whether the wizard holds changes its file does not: never saved and changed, or its definition now differs from
 * what was last written (or no longer assembles at all).
 */
export function hasUnsavedChanges(state: Pick<AppState, 'wizard'>): boolean {
  const session = state.wizard;
  if (!session) return false;
  if (!session.saved) return wizardDirty(session);
  const parsed = assembledOf(session).parsed;
  return parsed === null || JSON.stringify(parsed) !== session.saved.json;
}

function newSession(from?: { path: string; study: StudyDefinition }): WizardSession {
  const base = {
    stepIndex: 0,
    touched: new Set<string>(),
    revealed: new Set<WizardStep>(),
    coreIssues: [],
    plan: { status: 'idle' } as PlanView,
    dataDir: null,
    demoHostIds: null,
    hostLabels: null,
  };
  if (!from) {
    const draft = initialDraft();
    return { ...base, initial: draft, draft, reached: 0, path: '', pathTouched: false, saved: null, editing: null };
  }
  const draft = draftFromDefinition(from.study);
  // What the file holds, as this draft writes it: the session starts with nothing unsaved.
  const json = JSON.stringify(assemble(draft, sessionIsDemoHost({ demoHostIds: null }), currentMessages()).parsed ?? from.study);
  return { ...base, initial: draft, draft, reached: WIZARD_STEPS.length - 1, path: from.path, pathTouched: true, saved: { path: from.path, json }, editing: from.path };
}

export function createWizardSlice(api: ApiClient): StateCreator<AppState, [], [], WizardSlice> {
  return (set, get) => {
    const patch = (change: Partial<WizardSession>) => set((s) => (s.wizard ? { wizard: { ...s.wizard, ...change } } : {}));

    return {
      wizard: null,
      wizardLeave: null,

      startWizard(from) {
        set({ wizard: newSession(from), wizardLeave: null });
      },

      updateWizard(key, value) {
        set((s) => {
          if (!s.wizard) return {};
          const next = typeof value === 'function' ? (value as (previous: WizardSession[typeof key]) => WizardSession[typeof key])(s.wizard[key]) : value;
          return next === s.wizard[key] ? {} : { wizard: { ...s.wizard, [key]: next } };
        });
      },

      closeWizard() {
        set({ wizard: null, wizardLeave: null });
      },

      async saveWizard() {
        const session = get().wizard;
        if (!session) return false;
        const study = assembledOf(session).parsed;
        if (!study) {
          patch({ revealed: new Set(WIZARD_STEPS) });
          return false;
        }
        const target = effectivePathOf(session).trim();
        const json = JSON.stringify(study);
        patch({ plan: { status: 'saving' } });
        try {
          if (session.saved?.path === target) await api.call('studies:save', { path: target, study });
          else await api.call('studies:create', { path: target, study });
          patch({ saved: { path: target, json } });
        } catch (e) {
          const info = toErrorInfo(e);
          const { draft } = session;
          const messages = currentMessages();
          const coreIssues = (info.issues ?? []).map((issue) => {
            const located = locateCoreIssue(issue.path, draft, draft.generalisationPresets.length, messages, sessionHostLabel(session));
            return { step: located.step, field: located.field, message: issueLine(located.label, plainMessage(issue.message, messages), messages) };
          });
          patch({ coreIssues, revealed: new Set(WIZARD_STEPS), plan: { status: 'failed', message: info.message } });
          return false;
        }
        patch({ plan: { status: 'planning' } });
        try {
          const plan = await api.call('studies:plan', { path: target });
          patch({ plan: { status: 'ready', plan, json } });
        } catch (e) {
          patch({ plan: { status: 'planFailed', message: toErrorInfo(e).message, json } });
        }
        return true;
      },

      leaveWizardThen(then) {
        if (!hasUnsavedChanges(get())) {
          if (get().wizard) get().closeWizard();
          then();
          return;
        }
        set({ wizardLeave: { then, saving: false, error: null } });
      },

      async resolveWizardLeave(choice) {
        const leave = get().wizardLeave;
        if (!leave) return;
        if (choice === 'cancel') {
          set({ wizardLeave: null });
          return;
        }
        if (choice === 'save') {
          set({ wizardLeave: { ...leave, saving: true, error: null } });
          const ok = await get().saveWizard();
          if (!ok) {
            const message = get().wizard?.plan.status === 'failed' ? (get().wizard?.plan as { message: string }).message : null;
            set({ wizardLeave: { ...leave, saving: false, error: message ?? '' } });
            return;
          }
        }
        get().closeWizard();
        leave.then();
      },
    };
  };
}
