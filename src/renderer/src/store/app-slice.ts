import type { StateCreator } from 'zustand';
import type { CallOutput } from '../../../shared/contract';
import type { ApiClient } from '../api/client';
import type { AppState } from './types';

export type AppInfo = CallOutput<'app:info'>;

export interface AppSlice {
  appInfo: AppInfo | null;
  loadAppInfo(): Promise<void>;
}


export function createAppSlice(api: ApiClient): StateCreator<AppState, [], [], AppSlice> {
  return (set) => ({
    appInfo: null,
    async loadAppInfo() {
      try {
        set({ appInfo: await api.call('app:info', {}) });
      } catch {
        // Only the version line and the problems banner depend on it; both stay hidden.
      }
    },
  });
}
