import type { MenuItemConstructorOptions } from 'electron';
import type { AppCommand } from '../../shared/contract/app-commands';

export interface MenuOptions {
  isMac: boolean;
  isDev: boolean;
  appName: string;
  /** Sends a command to the renderer (to the focused window). */
  send: (command: AppCommand) => void;
}

/**
 * The application menu. Standard roles keep copy/paste, zoom and window management native; the app's own items only
 * show their shortcut (`registerAccelerator: false`) and send the command to the renderer, whose keydown handler is
 * the one place shortcuts act, the same in the desktop app and in a browser.
 */
export function buildMenuTemplate(opts: MenuOptions): MenuItemConstructorOptions[] {
  const command = (label: string, accelerator: string, name: AppCommand): MenuItemConstructorOptions => ({
    label,
    accelerator,
    registerAccelerator: false,
    click: () => opts.send(name),
  });
  const file: MenuItemConstructorOptions[] = [
    command('New study', 'CmdOrCtrl+N', 'newStudy'),
    command('Open…', 'CmdOrCtrl+O', 'open'),
    // macOS keeps the projects the app opened (app.addRecentDocument) and shows them here; elsewhere the system's
    // own recent lists and the Studies page show them.
    ...(opts.isMac ? [{ role: 'recentDocuments', submenu: [{ role: 'clearRecentDocuments' }] } satisfies MenuItemConstructorOptions] : []),
    // A tuning guide (Markdown, HTML, text) opened as a new study; no shortcut of its own.
    { label: 'Open guide…', click: () => opts.send('openGuide') },
    command('Save draft', 'CmdOrCtrl+S', 'save'),
    command('Save as…', 'CmdOrCtrl+Shift+S', 'saveAs'),
    command('Export report…', 'CmdOrCtrl+E', 'export'),
    { type: 'separator' },
    opts.isMac ? { role: 'close' } : { role: 'quit' },
  ];
  const view: MenuItemConstructorOptions[] = [
    command('Hosts', 'CmdOrCtrl+1', 'page:hosts'),
    command('Engines', 'CmdOrCtrl+2', 'page:engines'),
    command('Studies', 'CmdOrCtrl+3', 'page:studies'),
    command('Results', 'CmdOrCtrl+4', 'page:results'),
    { type: 'separator' },
    command('Keyboard shortcuts', 'CmdOrCtrl+/', 'shortcuts'),
    { type: 'separator' },
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  if (opts.isDev) view.unshift({ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' });
  const template: MenuItemConstructorOptions[] = [
    { label: 'File', submenu: file },
    { role: 'editMenu' },
    { label: 'View', submenu: view },
    { role: 'windowMenu' },
  ];
  if (opts.isMac) template.unshift({ label: opts.appName, submenu: [{ role: 'about' }, { type: 'separator' }, { role: 'hide' }, { role: 'quit' }] });
  return template;
}
