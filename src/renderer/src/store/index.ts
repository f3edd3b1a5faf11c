import { createContext, createElement, useContext, type ReactNode } from 'react';
import { createStore, useStore, type StoreApi } from 'zustand';
import type { ApiClient } from '../api/client';
import { createHostsSlice } from './hosts-slice';
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
    ...createUiSlice(storage, prefersDark)(...args),
  }));
}

/**
 * Keeps the store in step with the core: mirrors its events, loads the hosts, and reloads them after a
 * reconnect because events sent while the connection was down are lost.
 */
export function syncStoreWithCore(api: ApiClient, store: AppStore): () => void {
  const state = () => store.getState();
  const offChanged = api.on('hosts:changed', ({ hosts }) => state().applyHostsChanged(hosts));
  const offState = api.on('hosts:state', (event) => state().applyHostState(event));
  let wasDown = false;
  const offStatus = api.onStatus((status) => {
    if (status === 'reconnecting') wasDown = true;
    if (status === 'open' && wasDown) {
      wasDown = false;
      void state().loadHosts();
    }
  });
  void state().loadHosts();
  return () => {
    offChanged();
    offState();
    offStatus();
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
export { initialTheme, browserStorage, systemPrefersDark, THEME_STORAGE_KEY } from './ui-slice';
export { toErrorInfo } from './hosts-slice';
