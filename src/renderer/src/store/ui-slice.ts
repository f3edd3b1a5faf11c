import type { StateCreator } from 'zustand';
import type { AppState, Theme, UiSlice } from './types';

export const THEME_STORAGE_KEY = 'servelab.theme';

export type ThemeStorage = Pick<Storage, 'getItem' | 'setItem'>;

/** The stored choice, else the system preference, else light. */
export function initialTheme(storage: ThemeStorage | null, prefersDark: boolean): Theme {
  let stored: string | null = null;
  try {
    stored = storage?.getItem(THEME_STORAGE_KEY) ?? null;
  } catch {
    // Storage can be disabled; the theme then simply is not remembered.
  }
  if (stored === 'light' || stored === 'dark') return stored;
  return prefersDark ? 'dark' : 'light';
}

export function systemPrefersDark(): boolean {
  return typeof window !== 'undefined' && typeof window.matchMedia === 'function' && window.matchMedia('(prefers-color-scheme: dark)').matches;
}

export function browserStorage(): ThemeStorage | null {
  try {
    return typeof window !== 'undefined' ? window.localStorage : null;
  } catch {
    return null;
  }
}

export function createUiSlice(storage: ThemeStorage | null, prefersDark: boolean): StateCreator<AppState, [], [], UiSlice> {
  const save = (theme: Theme) => {
    try {
      storage?.setItem(THEME_STORAGE_KEY, theme);
    } catch {
      // See initialTheme.
    }
  };
  let tabRequests = 0;
  return (set, get) => ({
    theme: initialTheme(storage, prefersDark),
    setTheme(theme) {
      save(theme);
      set({ theme });
    },
    toggleTheme() {
      get().setTheme(get().theme === 'dark' ? 'light' : 'dark');
    },
    page: 'hosts',
    showPage(page) {
      set({ page });
    },
    studyTabRequest: null,
    requestStudyTab(tab) {
      tabRequests += 1;
      set({ studyTabRequest: { tab, seq: tabRequests } });
    },
    clearStudyTabRequest() {
      set({ studyTabRequest: null });
    },
  });
}
