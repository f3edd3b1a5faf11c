import type { StateCreator } from 'zustand';
import type { ApiClient } from '../api/client';
import type { AppSlice, AppState } from './types';

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
