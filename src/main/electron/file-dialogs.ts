import type { BrowserWindow, Dialog } from 'electron';
import type { FileDialogs } from '../../core/create-core';

/** The core's file dialogs as Electron's, attached to the focused window (sheets on macOS). */
export function electronFileDialogs(dialog: Pick<Dialog, 'showSaveDialog' | 'showOpenDialog'>, currentWindow: () => BrowserWindow | null): FileDialogs {
  const filters = (extensions: string[]) => (extensions.length > 0 ? [{ name: extensions.map((e) => `.${e}`).join(', '), extensions }] : []);
  return {
    async save({ title, defaultName, extensions }) {
      const win = currentWindow();
      const opts = { title, defaultPath: defaultName, filters: filters(extensions) };
      const result = win ? await dialog.showSaveDialog(win, opts) : await dialog.showSaveDialog(opts);
      return result.canceled || !result.filePath ? null : result.filePath;
    },
    async open({ title, extensions }) {
      const win = currentWindow();
      const opts = { title, filters: filters(extensions), properties: ['openFile' as const] };
      const result = win ? await dialog.showOpenDialog(win, opts) : await dialog.showOpenDialog(opts);
      return result.canceled || result.filePaths.length === 0 ? null : (result.filePaths[0] ?? null);
    },
  };
}
