import { homedir } from 'node:os';
import { join } from 'node:path';

/** Expands a leading `~` or `~/` the way OpenSSH does for IdentityFile and friends. */
export function expandHome(path: string, home: string = homedir()): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return path;
}

/** Default data folder for headless runs: $SERVELAB_DATA_DIR, else $XDG_CONFIG_HOME/servelab, else ~/.config/servelab. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SERVELAB_DATA_DIR) return env.SERVELAB_DATA_DIR;
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'servelab');
}
