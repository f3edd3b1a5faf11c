import { describe, expect, it, vi } from 'vitest';
import type { MenuItemConstructorOptions } from 'electron';
import { buildMenuTemplate } from './menu';

function submenu(template: MenuItemConstructorOptions[], label: string): MenuItemConstructorOptions[] {
  return template.find((m) => m.label === label)!.submenu as MenuItemConstructorOptions[];
}

describe('application menu', () => {
  it('has File and View items with their shortcuts shown, never registered, each sending its command', () => {
    const send = vi.fn();
    const template = buildMenuTemplate({ isMac: false, isDev: false, appName: 'Servelab', send });
    const file = submenu(template, 'File');
    const view = submenu(template, 'View');
    const items = [...file, ...view].filter((i) => i.label);
    expect(file.filter((i) => i.label).map((i) => [i.label, i.accelerator])).toEqual([
      ['New study', 'CmdOrCtrl+N'],
      ['Open…', 'CmdOrCtrl+O'],
      ['Open guide…', undefined],
      ['Save draft', 'CmdOrCtrl+S'],
      ['Save as…', 'CmdOrCtrl+Shift+S'],
      ['Export report…', 'CmdOrCtrl+E'],
    ]);
    expect(file.at(-2)).toEqual({ type: 'separator' });
    expect(file.at(-1)).toEqual({ role: 'quit' });
    expect(view.filter((i) => i.label).map((i) => [i.label, i.accelerator])).toEqual([
      ['Hosts', 'CmdOrCtrl+1'],
      ['Engines', 'CmdOrCtrl+2'],
      ['Studies', 'CmdOrCtrl+3'],
      ['Results', 'CmdOrCtrl+4'],
      ['Keyboard shortcuts', 'CmdOrCtrl+/'],
    ]);
    for (const item of items) if (item.accelerator) expect(item.registerAccelerator).toBe(false);
    for (const item of items) (item.click as () => void)();
    expect(send.mock.calls.map((c) => c[0])).toEqual(['newStudy', 'open', 'openGuide', 'save', 'saveAs', 'export', 'page:hosts', 'page:engines', 'page:studies', 'page:results', 'shortcuts']);
    // Zoom and full screen stay native roles.
    expect(view.map((i) => i.role).filter(Boolean)).toEqual(['resetZoom', 'zoomIn', 'zoomOut', 'togglefullscreen']);
  });

  it('closes the window on macOS, puts the app menu first, and adds reload and dev tools in development', () => {
    const template = buildMenuTemplate({ isMac: true, isDev: true, appName: 'Servelab', send: () => {} });
    expect(template[0]!.label).toBe('Servelab');
    const file = submenu(template, 'File');
    expect(file[2]).toEqual({ role: 'recentDocuments', submenu: [{ role: 'clearRecentDocuments' }] });
    expect(submenu(template, 'File').at(-1)).toEqual({ role: 'close' });
    expect(submenu(template, 'View').slice(0, 2).map((i) => i.role)).toEqual(['reload', 'toggleDevTools']);
  });
});
