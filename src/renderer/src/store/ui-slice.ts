import type { StateCreator } from 'zustand';
import { browserLocale, getLocale, isAvailableLocale, setLocale as setMessagesLocale } from '../i18n';
import type { AppState } from './types';

export type Theme = 'light' | 'dark';

/** The workbench's pages, as the navigation rail names them. */
export type PageId = 'hosts' | 'engines' | 'studies' | 'results';

export interface UiSlice {
  theme: Theme;
  setTheme(theme: Theme): void;
  toggleTheme(): void;
  /** The UI language, a code with a file in `i18n/` ("en", "tr"). */
  locale: string;
  setLocale(locale: string): void;
  page: PageId;
  showPage(page: PageId): void;
  /** A tab of the open project asked for from outside it (Export report… opens the report); seq tells repeats apart. */
  studyTabRequest: { tab: StudyTabId; seq: number } | null;
  requestStudyTab(tab: StudyTabId): void;
  /** The open project took the request. */
  clearStudyTabRequest(): void;
}

/** The tabs of an open project. */
export type StudyTabId = 'plan' | 'run' | 'results' | 'recommendation' | 'report';


export const THEME_STORAGE_KEY = 'servelab.theme';
export const LOCALE_STORAGE_KEY = 'servelab.locale';

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

/** The stored language if it still has a file, else the browser's language, else English. */
export function initialLocale(storage: ThemeStorage | null): string {
  let stored: string | null = null;
  try {
    stored = storage?.getItem(LOCALE_STORAGE_KEY) ?? null;
  } catch {
    // As for the theme: without storage the choice is not remembered.
  }
  return stored && isAvailableLocale(stored) ? stored : browserLocale();
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
  const save = (key: string, value: string) => {
    try {
      storage?.setItem(key, value);
    } catch {
      // See initialTheme.
    }
  };
  // `t` reads the language from the i18n module, so it is set there before anything renders with this store.
  setMessagesLocale(initialLocale(storage));
  let tabRequests = 0;
  return (set, get) => ({
    theme: initialTheme(storage, prefersDark),
    setTheme(theme) {
      save(THEME_STORAGE_KEY, theme);
      set({ theme });
    },
    toggleTheme() {
      get().setTheme(get().theme === 'dark' ? 'light' : 'dark');
    },
    locale: getLocale(),
    setLocale(code) {
      setMessagesLocale(code);
      const locale = getLocale();
      save(LOCALE_STORAGE_KEY, locale);
      set({ locale });
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
