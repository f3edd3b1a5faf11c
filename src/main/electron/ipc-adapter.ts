import { CALL_NAMES, type Envelope } from '../../shared/contract';
import type { Dispatch } from '../../core/dispatch/dispatcher';
import type { FrameLike } from './trusted-sender';

/** The part of Electron's ipcMain the adapter needs. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: { senderFrame: FrameLike | null }, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/**
 * Registers one handler per contract call, all through the same gate: the sender frame must be the app's own
 * top frame, then the core's dispatcher validates the input and returns the typed envelope.
 */
export function registerIpcHandlers(
  ipcMain: IpcMainLike,
  dispatch: Dispatch,
  isTrusted: (frame: FrameLike | null) => boolean,
): () => void {
  for (const name of CALL_NAMES) {
    ipcMain.handle(name, async (event, input): Promise<Envelope<unknown>> => {
      if (!isTrusted(event.senderFrame)) {
        return {
          ok: false,
          error: { code: 'FORBIDDEN_SENDER', message: `${name} was called from a page that is not Servelab's own window.` },
        };
      }
      return dispatch(name, input);
    });
  }
  return () => {
    for (const name of CALL_NAMES) ipcMain.removeHandler(name);
  };
}
