import type { Dispatch } from '../../core/dispatch/dispatcher';

/** The calls that leave a project open in the window, and where the input names it. */
const OPENING_CALLS: Readonly<Record<string, 'path' | 'out'>> = {
  'studies:open': 'path',
  'studies:create': 'path',
  'studies:fromExample': 'path',
  'studies:fromGuide': 'path',
  'studies:saveAs': 'out',
  'studies:rerun': 'out',
};

/**
 * The dispatcher, telling the system about every project the window opened or wrote, so it shows in the OS's
 * recent documents (the Dock's and File → Open Recent on macOS, the jump list on Windows; Electron keeps no such list
 * on Linux, where the call does nothing).
 * Only successful calls count: a file that failed to open is not recent.
 */
export function withRecentDocuments(dispatch: Dispatch, addRecentDocument: (path: string) => void): Dispatch {
  return async (name, input) => {
    const envelope = await dispatch(name, input);
    const field = OPENING_CALLS[name];
    if (field && envelope.ok && typeof input === 'object' && input !== null) {
      const path = (input as Record<string, unknown>)[field];
      if (typeof path === 'string') addRecentDocument(path);
    }
    return envelope;
  };
}
