import type { BrowserWindow, Dialog, MessageBoxSyncOptions } from 'electron';

export const UNLOAD_QUESTION: MessageBoxSyncOptions = {
  type: 'question',
  buttons: ['Leave', 'Stay'],
  defaultId: 1,
  cancelId: 1,
  title: 'Unsaved changes',
  message: 'The study in the wizard has changes that are not saved to its file.',
  detail: 'Leave, and they are lost; or stay, and save the draft first.',
};

/**
 * The page refused to unload (its beforeunload handler says there are unsaved changes): Electron then neither closes
 * nor reloads, and asks nobody. This asks the user natively; Leave lets the unload go on (Electron's documented
 * `event.preventDefault()` on `will-prevent-unload`), Stay keeps the window as it is.
 */
export function guardUnload(win: Pick<BrowserWindow, 'webContents'>, dialog: Pick<Dialog, 'showMessageBoxSync'>): void {
  win.webContents.on('will-prevent-unload', (event) => {
    const choice = dialog.showMessageBoxSync(win as BrowserWindow, UNLOAD_QUESTION);
    if (choice === 0) event.preventDefault();
  });
}
