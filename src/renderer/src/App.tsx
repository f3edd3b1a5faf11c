import { Suspense, useEffect, useRef, useState, useSyncExternalStore, type RefObject } from 'react';
import type { ApiClient } from './api/client';
import { ApiProvider, useApi } from './api/context';
import { Icon, LogoMark } from './components/Icon';
import { Spinner } from './components/Spinner';
import { LanguagePicker } from './components/LanguagePicker';
import { NavRail } from './components/NavRail';
import { NotConnected } from './components/NotConnected';
import { PageErrorBoundary } from './components/PageErrorBoundary';
import { lazyPage } from './components/retry-import';
import { HostsPage } from './features/hosts/HostsPage';
import { PromptDialog } from './features/prompts/PromptDialog';
import { useOpenRequests } from './features/shell/use-open-requests';
import { CommandsContext } from './features/shell/commands-context';
import { StatusBar } from './features/shell/StatusBar';
import { UnsavedChangesDialog } from './features/shell/UnsavedChangesDialog';
import { useAppCommands } from './features/shell/use-app-commands';
import { useShellCommands } from './features/shell/use-shell-commands';
import { useStudyNotification } from './features/shell/use-study-notification';
import { useUnloadGuard } from './features/shell/use-unload-guard';
import { windowTitle } from './features/shell/window-title';
import { getLocale, setLocale, t } from './i18n';
import { createAppStore, runningStudyCount, StoreProvider, syncStoreWithCore, useAppStore, type AppStore, type PageId, type Theme } from './store';
import './features/shell/shell.css';

export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  document.documentElement.style.colorScheme = theme;
}

/** Sets the language `t` answers in and the document's `lang` (for screen readers, hyphenation and spell checks). */
export function applyLocale(locale: string): void {
  setLocale(locale);
  document.documentElement.lang = getLocale();
}

/** `refocusRef` outlives the shell's re-render, so focus comes back to the picker a keyboard user just changed. */
function LocaleChooser({ refocusRef }: { refocusRef: RefObject<boolean> }) {
  const locale = useAppStore((s) => s.locale);
  const chooseLocale = useAppStore((s) => s.setLocale);
  const selectRef = useRef<HTMLSelectElement>(null);
  useEffect(() => applyLocale(locale), [locale]);
  useEffect(() => {
    if (!refocusRef.current) return;
    refocusRef.current = false;
    selectRef.current?.focus();
  }, [refocusRef]);
  return (
    <LanguagePicker
      locale={locale}
      selectRef={selectRef}
      onChange={(code) => {
        refocusRef.current = true;
        chooseLocale(code);
      }}
    />
  );
}

function ThemeToggle() {
  const theme = useAppStore((s) => s.theme);
  const toggleTheme = useAppStore((s) => s.toggleTheme);
  useEffect(() => applyTheme(theme), [theme]);
  const next = theme === 'dark' ? 'light' : 'dark';
  return (
    <button
      type="button"
      className="btn btn-ghost btn-icon"
      aria-label={next === 'dark' ? t('theme.toDark') : t('theme.toLight')}
      title={next === 'dark' ? t('theme.toDark') : t('theme.toLight')}
      onClick={toggleTheme}
    >
      <Icon name={theme === 'dark' ? 'sun' : 'moon'} />
    </button>
  );
}

/** Things the core found wrong and left for the user to fix (a damaged hosts.json, say): shown until fixed. */
function ProblemsBanner() {
  const problems = useAppStore((s) => s.appInfo?.problems);
  if (!problems || problems.length === 0) return null;
  return (
    <div className="banner banner-danger" role="alert">
      <Icon name="alert" size={16} />
      <div className="banner-content">
        <p className="banner-title">{problems.length === 1 ? t('problems.titleOne') : t('problems.title', { count: problems.length })}</p>
        <ul className="banner-list">
          {problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      </div>
    </div>
  );
}

function ConnectionBanner() {
  const api = useApi();
  const status = useSyncExternalStore(api.onStatus, api.status);
  const reason = status === 'closed' ? api.closedReason() : null;
  if (reason) {
    return (
      <div className="banner banner-danger" role="alert">
        <Icon name="alert" size={14} />
        {reason}
      </div>
    );
  }
  if (status !== 'reconnecting') return null;
  return (
    <div className="banner banner-warning" role="status">
      <Icon name="alert" size={14} />
      {t('connection.lost')}
    </div>
  );
}

/** A study the user started has ended: said once, in the shell, whichever page is open. */
function StudyNoticeBanner() {
  const notice = useAppStore((s) => s.studyNotice);
  const dismiss = useAppStore((s) => s.dismissStudyNotice);
  const openStudyProject = useAppStore((s) => s.openStudyProject);
  const showPage = useAppStore((s) => s.showPage);
  const leaveWizardThen = useAppStore((s) => s.leaveWizardThen);
  if (!notice) return null;
  const tone = notice.status === 'done' ? 'banner-success' : notice.status === 'failed' ? 'banner-danger' : 'banner-warning';
  return (
    <div className={`banner study-notice ${tone}`} role="status">
      <Icon name={notice.status === 'done' ? 'check' : 'alert'} size={14} />
      <p className="study-notice-text">
        {t(`studies.notice.${notice.status}`, { name: notice.name })}
        {notice.message && notice.status !== 'done' ? ` ${notice.message}` : ''}
      </p>
      <button
        type="button"
        className="btn btn-ghost btn-small"
        onClick={() => {
          showPage('studies');
          dismiss();
          leaveWizardThen(() => void openStudyProject(notice.path).catch(() => {}));
        }}
      >
        {t('studies.notice.show')}
      </button>
      <button type="button" className="btn btn-ghost btn-small" onClick={dismiss}>
        {t('studies.notice.dismiss')}
      </button>
    </div>
  );
}

/** The one place that sets the window's title. */
function useWindowTitle(): void {
  const title = useAppStore(windowTitle);
  useEffect(() => {
    document.title = title;
  }, [title]);
}

const PAGES: readonly PageId[] = ['hosts', 'engines', 'studies', 'results'];

// The first page (Hosts) comes with the shell; the others are chunks of their own, fetched when first opened, so
// the window's first load parses only what it shows.
const EnginesPage = lazyPage(() => import('./features/engines/EnginesPage').then((m) => m.EnginesPage));
const StudiesPage = lazyPage(() => import('./features/studies/StudiesPage').then((m) => m.StudiesPage));
const ResultsPage = lazyPage(() => import('./features/results/ResultsPage').then((m) => m.ResultsPage));
const retryLazyPages = () => [EnginesPage, StudiesPage, ResultsPage].forEach((p) => p.retry());

function PageLoading() {
  return (
    <p className="page-loading muted" role="status">
      <Spinner />
      {t('app.pageLoading')}
    </p>
  );
}

function CurrentPage({ page }: { page: PageId }) {
  switch (page) {
    case 'engines':
      return <EnginesPage />;
    case 'studies':
      return <StudiesPage />;
    case 'results':
      return <ResultsPage />;
    default:
      return <HostsPage />;
  }
}

function Shell({ refocusLanguageRef }: { refocusLanguageRef: RefObject<boolean> }) {
  const page = useAppStore((s) => s.page);
  const showPage = useAppStore((s) => s.showPage);
  const runningStudies = useAppStore((s) => runningStudyCount(s.studyStatusByPath));
  useWindowTitle();
  useUnloadGuard();
  useStudyNotification();
  const commands = useShellCommands();
  useAppCommands(commands.run);
  useOpenRequests(commands.openProjectAt);
  return (
    <CommandsContext.Provider value={commands.run}>
      <div className="app">
        <aside className="sidebar">
          <div className="brand">
            <LogoMark />
            <div className="brand-text">
              <span className="brand-name">{t('app.name')}</span>
              <span className="brand-tagline">{t('app.tagline')}</span>
            </div>
          </div>
          <NavRail active={page} runningStudies={runningStudies} onNavigate={(id) => showPage(PAGES.find((p) => p === id) ?? 'hosts')} />
          <div className="sidebar-footer">
            <div className="sidebar-settings">
              <LocaleChooser refocusRef={refocusLanguageRef} />
              <ThemeToggle />
            </div>
          </div>
        </aside>
        <main className="content">
          <ConnectionBanner />
          <ProblemsBanner />
          <StudyNoticeBanner />
          {commands.error && (
            <div className="banner banner-warning" role="alert">
              <Icon name="alert" size={14} />
              <p className="study-notice-text">{commands.error}</p>
              <button type="button" className="btn btn-ghost btn-small" onClick={commands.dismissError}>
                {t('studies.notice.dismiss')}
              </button>
            </div>
          )}
          <PageErrorBoundary key={page} onRetry={retryLazyPages}>
            <Suspense fallback={<PageLoading />}>
              <CurrentPage page={page} />
            </Suspense>
          </PageErrorBoundary>
        </main>
        <StatusBar />
        <PromptDialog />
        <UnsavedChangesDialog />
        {commands.dialogs}
      </div>
    </CommandsContext.Provider>
  );
}

/**
 * `t` is a plain function, so a new language reaches every component only by rendering the shell afresh; the page,
 * the open study and everything else in the store stay as they were.
 */
function LocalizedShell() {
  const locale = useAppStore((s) => s.locale);
  const refocusLanguageRef = useRef(false);
  return <Shell key={locale} refocusLanguageRef={refocusLanguageRef} />;
}

function ConnectedApp({ api, store: givenStore }: { api: ApiClient; store?: AppStore }) {
  const [store] = useState(() => givenStore ?? createAppStore(api));
  useEffect(() => syncStoreWithCore(api, store), [api, store]);
  return (
    <ApiProvider api={api}>
      <StoreProvider store={store}>
        <LocalizedShell />
      </StoreProvider>
    </ApiProvider>
  );
}

/** The renderer: the workbench when a core is reachable, an explanation when it is not. */
export function App({ api, store }: { api: ApiClient | null; store?: AppStore }) {
  if (!api) return <NotConnected />;
  return <ConnectedApp api={api} {...(store ? { store } : {})} />;
}
