import type { MenuItemConstructorOptions } from 'electron';

/** The application menu: standard roles so copy/paste, zoom and window management behave natively. */
export function buildMenuTemplate(opts: { isMac: boolean; isDev: boolean; appName: string }): MenuItemConstructorOptions[] {
  const view: MenuItemConstructorOptions[] = [
    { role: 'resetZoom' },
    { role: 'zoomIn' },
    { role: 'zoomOut' },
    { type: 'separator' },
    { role: 'togglefullscreen' },
  ];
  if (opts.isDev) view.unshift({ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' });
  const template: MenuItemConstructorOptions[] = [
    { label: 'File', submenu: [opts.isMac ? { role: 'close' } : { role: 'quit' }] },
    { role: 'editMenu' },
    { label: 'View', submenu: view },
    { role: 'windowMenu' },
  ];
  if (opts.isMac) template.unshift({ label: opts.appName, submenu: [{ role: 'about' }, { type: 'separator' }, { role: 'hide' }, { role: 'quit' }] });
  return template;
}
