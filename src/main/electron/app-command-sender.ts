import type { BrowserWindow } from 'electron';
import { EVENTS } from '../../shared/contract';
import { EVENT_CHANNEL } from '../../shared/contract/channels';
import type { AppCommand } from '../../shared/contract/app-commands';

/**
 * Sends a menu command as the `app:command` contract event to the focused window only (another window must not act
 * on a shortcut meant for this one); with no focused window, nothing is sent.
 */
export function appCommandSender(focusedWindow: () => Pick<BrowserWindow, 'webContents' | 'isDestroyed'> | null): (command: AppCommand) => void {
  return (command) => {
    const win = focusedWindow();
    if (!win || win.isDestroyed()) return;
    const payload = EVENTS['app:command'].parse({ command });
    win.webContents.send(EVENT_CHANNEL, { name: 'app:command', payload });
  };
}
