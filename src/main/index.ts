// Composition root of the desktop app: everything Electron-specific lives in this file and src/main/electron;
// the core it wires up is the same one the CLI and the WebSocket host run without Electron.
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, safeStorage, session, shell } from 'electron';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createCore, type Core } from '../core/create-core';
import { EVENT_CHANNEL } from '../shared/contract/channels';
import { registerIpcHandlers } from './electron/ipc-adapter';
import { isAppRendererUrl, isTrustedFrame, type RendererLocation } from './electron/trusted-sender';
import { denyAllPermissions, isSafeExternalUrl, restrictNavigation } from './electron/security';
import { mainWindowOptions } from './electron/window';
import { buildMenuTemplate } from './electron/menu';
import { SafeStorageSecretStore } from './electron/safe-storage-secrets';
import { resolveSimboxBinDir } from '../core/box/simbox-path';
import { resolveExamplesDir } from '../core/study/examples-path';
import { electronFileDialogs } from './electron/file-dialogs';
import { guardUnload } from './electron/unload-guard';
import { appCommandSender } from './electron/app-command-sender';
import { studyNotifier } from './electron/study-notifier';

const here = fileURLToPath(new URL('.', import.meta.url));
const rendererIndex = join(here, '../renderer/index.html');
const preloadPath = join(here, '../preload/index.cjs');
// The dev server is used only by `npm run dev`; production always loads the built files.
const devServerUrl = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const location: RendererLocation = devServerUrl ? { devServerUrl } : { fileIndexUrl: pathToFileURL(rendererIndex).href };

app.enableSandbox();

function log(line: string): void {
  process.stderr.write(`[servelab] ${line}\n`);
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow(mainWindowOptions(preloadPath, false));
  win.once('ready-to-show', () => win.show());
  guardUnload(win, dialog);
  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(rendererIndex);
  return win;
}

async function start(): Promise<void> {
  await app.whenReady();
  denyAllPermissions(session.defaultSession);
  app.on('web-contents-created', (_event, contents) => {
    restrictNavigation(contents, (url) => isAppRendererUrl(url, location), (url) => {
      if (isSafeExternalUrl(url)) void shell.openExternal(url);
    });
  });
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      buildMenuTemplate({ isMac: process.platform === 'darwin', isDev: !!devServerUrl, appName: app.name, send: appCommandSender(() => BrowserWindow.getFocusedWindow()) }),
    ),
  );

  const dataDir = app.getPath('userData');
  const core: Core = await createCore({
    dataDir,
    secrets: new SafeStorageSecretStore(safeStorage, join(dataDir, 'secrets.json'), log),
    // Packaged, the simulated box ships beside app.asar; from a checkout it is found from the built files.
    simboxBinDir: resolveSimboxBinDir(app.isPackaged ? { resourcesPath: process.resourcesPath } : {}),
    examplesDir: resolveExamplesDir(app.isPackaged ? { resourcesPath: process.resourcesPath } : {}),
    dialogs: electronFileDialogs(dialog, () => BrowserWindow.getFocusedWindow()),
    log,
  });
  registerIpcHandlers(ipcMain, core.dispatch, (frame) => isTrustedFrame(frame, location));
  core.events.subscribe((message) => {
    for (const win of BrowserWindow.getAllWindows()) {
      if (!win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, message);
    }
  });
  core.events.subscribe(
    studyNotifier({
      isSupported: () => Notification.isSupported(),
      create: (options) => new Notification(options),
      anyWindowFocused: () => BrowserWindow.getFocusedWindow() !== null,
      showWindow: () => {
        const win = BrowserWindow.getAllWindows()[0];
        if (!win) return;
        if (win.isMinimized()) win.restore();
        win.show();
        win.focus();
      },
    }),
  );

  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('will-quit', () => {
    void core.close();
  });
}

start().catch((error: unknown) => {
  log(`failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  app.exit(1);
});
