import { createContext, createElement, useContext, type ReactNode } from 'react';
import { createStore, useStore, type StoreApi } from 'zustand';
import type { ApiClient } from '../api/client';
import { createAppSlice } from './app-slice';
import { createBenchSlice } from './bench-slice';
import { createEnginesSlice } from './engines-slice';
import { createHostsSlice } from './hosts-slice';
import { createPromptsSlice } from './prompts-slice';
import { createResultsSlice } from './results-slice';
import { createStudiesSlice } from './studies-slice';
import { createWizardSlice } from './wizard-slice';
import { browserStorage, createUiSlice, systemPrefersDark, type ThemeStorage } from './ui-slice';
import type { AppState } from './types';

export type AppStore = StoreApi<AppState>;

export interface AppStoreOptions {
  storage?: ThemeStorage | null;
  prefersDark?: boolean;
}

/** One store for the whole renderer, composed of one slice per feature. */
export function createAppStore(api: ApiClient, options: AppStoreOptions = {}): AppStore {
  const storage = options.storage === undefined ? browserStorage() : options.storage;
  const prefersDark = options.prefersDark ?? systemPrefersDark();
  return createStore<AppState>()((...args) => ({
    ...createHostsSlice(api)(...args),
    ...createPromptsSlice(api)(...args),
    ...createAppSlice(api)(...args),
    ...createEnginesSlice(api)(...args),
    ...createResultsSlice(api)(...args),
    ...createBenchSlice(api)(...args),
    ...createStudiesSlice(api)(...args),
    ...createWizardSlice(api)(...args),
    ...createUiSlice(storage, prefersDark)(...args),
  }));
}

/**
 * Keeps the store in step with the core: mirrors its events, loads the hosts, the questions already waiting
 * and the app's facts, and loads them again after a reconnect because events sent while the link was down are lost.
 */
export function syncStoreWithCore(api: ApiClient, store: AppStore): () => void {
  const state = () => store.getState();
  const offs = [
    api.on('hosts:changed', ({ hosts }) => state().applyHostsChanged(hosts)),
    api.on('hosts:state', (event) => state().applyHostState(event)),
    api.on('hosts:log', ({ hostId, entry }) => state().applyHostLog(hostId, entry)),
    api.on('prompts:request', (prompt) => state().applyPromptRequest(prompt)),
    api.on('prompts:settled', ({ requestId }) => state().applyPromptSettled(requestId)),
    api.on('engines:progress', (event) => state().applyInstallProgress(event)),
    api.on('engines:log', (event) => state().applyInstallLog(event)),
    api.on('engines:done', (event) => state().applyInstallDone(event)),
    api.on('servers:log', (event) => state().applyServerLog(event)),
    api.on('servers:state', (event) => state().applyServerState(event)),
    api.on('models:progress', (event) => state().applyModelProgress(event)),
    api.on('models:done', (event) => state().applyModelDone(event)),
    api.on('results:changed', () => state().applyResultsChanged()),
    api.on('bench:progress', (event) => state().applyBenchProgress(event)),
    api.on('bench:log', (event) => state().applyBenchLog(event)),
    api.on('bench:done', (event) => state().applyBenchDone(event)),
    api.on('studies:state', (event) => state().applyStudyState(event)),
    api.on('studies:phase', (event) => state().applyStudyPhase(event)),
    api.on('studies:log', (event) => state().applyStudyLog(event)),
    api.on('studies:gpu', (event) => state().applyStudyGpu(event)),
    api.on('studies:decision', (event) => state().applyStudyDecision(event)),
  ];
  let wasDown = false;
  offs.push(
    api.onStatus((status) => {
      if (status === 'reconnecting') wasDown = true;
      if (status === 'open' && wasDown) {
        wasDown = false;
        state().markLogsStale();
        void state().loadHosts();
        void state().loadPendingPrompts();
        void state().loadAppInfo();
        state().applyResultsChanged();
        // The open study may have moved on (or ended) while its events could not arrive.
        const open = state().openStudy;
        if (open) void state().openStudyProject(open.path).catch(() => {});
      }
    }),
  );
  void state().loadHosts();
  void state().loadPendingPrompts();
  void state().loadAppInfo();
  return () => {
    for (const off of offs) off();
  };
}

const StoreContext = createContext<AppStore | null>(null);

export function StoreProvider({ store, children }: { store: AppStore; children: ReactNode }) {
  return createElement(StoreContext.Provider, { value: store }, children);
}

export function useAppStoreApi(): AppStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useAppStore() needs a <StoreProvider> above it');
  return store;
}

export function useAppStore<T>(selector: (state: AppState) => T): T {
  return useStore(useAppStoreApi(), selector);
}

export * from './selectors';
export type * from './types';
export type * from './load-status';
export type * from './app-slice';
export type * from './bench-slice';
export type * from './engines-slice';
export type * from './hosts-slice';
export type * from './prompts-slice';
export type * from './results-slice';
export type * from './studies-slice';
export type * from './ui-slice';
export type * from './wizard-slice';
export { toErrorInfo } from './errors';
export { initialLocale, initialTheme, browserStorage, systemPrefersDark, LOCALE_STORAGE_KEY, THEME_STORAGE_KEY } from './ui-slice';
export { LOG_LIMIT, presentedHostKey } from './hosts-slice';
export { canEditStudy, runningStudyCount } from './studies-slice';
export { assembledOf, effectivePathOf, hasUnsavedChanges, sessionIsDemoHost, wizardDirty } from './wizard-slice';
