// Composition root of the desktop app: everything Electron-specific lives in this file and src/main/electron;
// the core it wires up is the same one the CLI and the WebSocket host run without Electron.
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, protocol, safeStorage, session } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore, type Core } from '../core/create-core';
import { EVENT_CHANNEL } from '../shared/contract/channels';
import { registerIpcHandlers } from './electron/ipc-adapter';
import { isAppRendererUrl, isTrustedFrame, type RendererLocation } from './electron/trusted-sender';
import { denyAllPermissions, restrictNavigation } from './electron/security';
import { APP_INDEX_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, appProtocolResponse } from './electron/app-protocol';
import { mainWindowOptions } from './electron/window';
import { buildMenuTemplate } from './electron/menu';
import { SafeStorageSecretStore } from './electron/safe-storage-secrets';
import { resolveSimboxBinDir } from '../core/box/simbox-path';
import { resolveExamplesDir } from '../core/study/examples-path';
import { electronFileDialogs } from './electron/file-dialogs';
import { guardUnload } from './electron/unload-guard';
import { appCommandSender } from './electron/app-command-sender';
import { studyNotifier } from './electron/study-notifier';
import { projectPathsFromArgv, projectsHandedOver, type LaunchHandover } from './electron/project-args';
import { ProjectInbox } from './electron/project-inbox';
import { withRecentDocuments } from './electron/recent-documents';
import { simboxNodeFor } from './electron/simbox-node';

const here = fileURLToPath(new URL('.', import.meta.url));
const rendererDir = join(here, '../renderer');
const preloadPath = join(here, '../preload/index.cjs');

/**
 * The dev server is used only by `npm run dev` (electron-vite sets NODE_ENV=development and ELECTRON_RENDERER_URL),
 * from a checkout, and only on loopback: an ELECTRON_RENDERER_URL inherited anywhere else would make the app load,
 * and grant IPC to, whatever that URL serves. Everything else loads the built files over app://.
 */
function devServer(): string | undefined {
  const url = process.env.ELECTRON_RENDERER_URL;
  if (!url || app.isPackaged || process.env.NODE_ENV !== 'development') return undefined;
  try {
    const { protocol: scheme, hostname } = new URL(url);
    return scheme === 'http:' && (hostname === 'localhost' || hostname === '127.0.0.1') ? url : undefined;
  } catch {
    return undefined;
  }
}
const devServerUrl = devServer();
const location: RendererLocation = devServerUrl ? { devServerUrl } : { appIndexUrl: APP_INDEX_URL };

app.enableSandbox();
// Must happen before the app is ready: app:// behaves like https (its own origin, secure context, fetch).
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);

function log(line: string): void {
  process.stderr.write(`[servelab] ${line}\n`);
}

// Project files the system asks this app to open can arrive before the core exists: they wait in the inbox.
const projectInbox = new ProjectInbox();

function createWindow(): BrowserWindow {
  const win = new BrowserWindow(mainWindowOptions(preloadPath, false, !app.isPackaged));
  win.once('ready-to-show', () => win.show());
  guardUnload(win, dialog);
  void win.loadURL(devServerUrl ?? APP_INDEX_URL);
  return win;
}

/** Whether start() has made the first window: until then the files asked for wait for it. */
let started = false;

/** A project was asked for: show it in the window, making one if there is none (macOS runs on with no window). */
function windowForProject(): void {
  if (!started) return;
  if (BrowserWindow.getAllWindows().length === 0) createWindow();
  else showFirstWindow();
}

function showFirstWindow(): void {
  const win = BrowserWindow.getAllWindows()[0];
  if (!win) return;
  if (win.isMinimized()) win.restore();
  win.show();
  win.focus();
}

async function start(): Promise<void> {
  await app.whenReady();
  protocol.handle(APP_SCHEME, (request) => appProtocolResponse(rendererDir, request.url));
  denyAllPermissions(session.defaultSession);
  app.on('web-contents-created', (_event, contents) => {
    restrictNavigation(contents, (url) => isAppRendererUrl(url, location));
  });
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      buildMenuTemplate({ isMac: process.platform === 'darwin', isDev: !!devServerUrl, appName: app.name, send: appCommandSender(() => BrowserWindow.getFocusedWindow()) }),
    ),
  );

  const dataDir = app.getPath('userData');
  const simboxNode = simboxNodeFor({ isPackaged: app.isPackaged, resourcesPath: process.resourcesPath, electronPath: process.execPath });
  if (!simboxNode) log('this package ships no Node.js runtime for the demo lab: the demo lab is not offered.');
  const core: Core = await createCore({
    dataDir,
    secrets: new SafeStorageSecretStore(safeStorage, join(dataDir, 'secrets.json'), log),
    // Packaged, the simulated box ships beside app.asar; from a checkout it is found from the built files.
    simboxBinDir: simboxNode ? resolveSimboxBinDir(app.isPackaged ? { resourcesPath: process.resourcesPath } : {}) : null,
    ...(simboxNode ? { simboxNode } : {}),
    examplesDir: resolveExamplesDir(app.isPackaged ? { resourcesPath: process.resourcesPath } : {}),
    dialogs: electronFileDialogs(dialog, () => BrowserWindow.getFocusedWindow()),
    log,
  });
  const dispatch = withRecentDocuments(core.dispatch, (path) => app.addRecentDocument(path));
  registerIpcHandlers(ipcMain, dispatch, (frame) => isTrustedFrame(frame, location));
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
      showWindow: showFirstWindow,
    }),
  );

  createWindow();
  // This launch's own project files, and those that arrived while it started, go to the window (app:openRequests).
  projectInbox.add(launchProjects);
  projectInbox.connect((paths) => core.requestOpen(paths));
  started = true;
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

// One app per user: two would each rewrite hosts.json and jobs.json from their own memory and lose the other's
// changes, and each would resume the other's studies.
const launchProjects = projectPathsFromArgv(process.argv, process.cwd());
const handover: LaunchHandover = { projects: launchProjects };
if (!app.requestSingleInstanceLock(handover)) {
  log('Servelab is already running: handed it this launch and brought its window forward instead of starting a second one.');
  app.quit();
} else {
  // Registered before ready: macOS sends the files a launch was opened with (a double-click in the Finder, a drop
  // on the Dock icon) as open-file events, possibly before the app is ready.
  app.on('open-file', (event, path) => {
    event.preventDefault();
    projectInbox.add([path]);
    windowForProject();
  });
  // A second launch (a double-clicked project on Windows and Linux, a path on the command line) hands its files to
  // this window and brings it forward, instead of running a second core on the same data.
  app.on('second-instance', (_event, argv, workingDirectory, additionalData) => {
    projectInbox.add(projectsHandedOver(additionalData) ?? projectPathsFromArgv(argv, workingDirectory));
    windowForProject();
  });
  start().catch((error: unknown) => {
    log(`failed to start: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    app.exit(1);
  });
}
