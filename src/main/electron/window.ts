import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The main window's options. Every security switch is explicit, even where it is Electron's default,
 * so the test that asserts them fails if anyone relaxes one (Electron security checklist items 2–4, 6).
 */
export function mainWindowOptions(preloadPath: string, dark: boolean, devTools: boolean): BrowserWindowConstructorOptions {
  return {
    width: 1360,
    height: 860,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Servelab',
    backgroundColor: dark ? '#0f1115' : '#f7f7f8',
    autoHideMenuBar: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      experimentalFeatures: false,
      spellcheck: false,
      // Only from a checkout: a packaged app has no DevTools for anyone to open.
      devTools,
      safeDialogs: true,
    },
  };
}
