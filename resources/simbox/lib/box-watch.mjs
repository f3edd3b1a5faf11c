// A simulated box is a folder: its HOME and its state (SERVELAB_SIMBOX_HOME), for the demo lab inside the app's data
// folder, for a test inside its temporary folder. A real engine server outlives the app that started it, and so does a
// simulated one while its box is there; once that folder is removed (the demo lab reset, a test's lab deleted) no one
// can reach, stop or account for the process any more, so it ends by itself instead of running on for good.

import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { stateDir } from './state.mjs';

/** How often the folder is looked at: a removed box's processes are gone within this time (and one more look). */
export const BOX_WATCH_MS = 2_000;

/** The folder's device and inode; null when it does not exist; undefined when it could not be looked at. */
function identity(dir) {
  try {
    const s = statSync(dir);
    return `${s.dev}:${s.ino}`;
  } catch (error) {
    return error.code === 'ENOENT' || error.code === 'ENOTDIR' ? null : undefined;
  }
}

/**
 * Calls `onGone` once the box's folder is removed, or removed and made again (a server writing its GPU record may
 * recreate the state folder of a box that is gone: a new folder is not the box this process belongs to). The folder
 * watched is the state folder, or HOME when the state folder does not exist yet. Returns a function that stops
 * watching; the timer never keeps the process alive on its own.
 */
export function endWithBox(onGone, { env = process.env, everyMs = BOX_WATCH_MS } = {}) {
  const candidates = [stateDir(env), env.HOME || homedir()];
  const dir = candidates.find((d) => typeof identity(d) === 'string');
  if (dir === undefined) return () => {};
  const id = identity(dir);
  const timer = setInterval(() => {
    const now = identity(dir);
    // Only a folder known to be gone or replaced ends the process; a look that failed otherwise says nothing.
    if (now === id || now === undefined) return;
    clearInterval(timer);
    onGone(dir);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
