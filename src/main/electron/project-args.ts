import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProjectPath } from '../../shared/project-document';

/**
 * The project files a launch names on its command line: what Windows passes for a double-clicked `.servelab`, what
 * a Linux desktop entry passes (`Exec=… %U`: a path or a `file://` URL), and what a user types. The executable
 * (and, from a checkout, the app folder) comes first and is skipped; Chromium's and Electron's switches start with
 * `-`; anything not ending in `.servelab` is not a project. Relative paths are relative to the launch's own working
 * folder, which for a second launch is not this process's.
 */
export function projectPathsFromArgv(argv: readonly string[], workingDirectory: string): string[] {
  const paths: string[] = [];
  for (const arg of argv.slice(1)) {
    if (arg.startsWith('-')) continue;
    let path = arg;
    if (/^file:\/\//i.test(arg)) {
      try {
        path = fileURLToPath(arg);
      } catch {
        continue;
      }
    } else if (/^[a-z][a-z0-9+.-]+:\/\//i.test(arg)) {
      // Another scheme (a file manager's `%U` may pass sftp://, smb://…): not a file here, and not a path relative to
      // the launch folder either.
      continue;
    }
    if (!isProjectPath(path)) continue;
    paths.push(isAbsolute(path) ? path : resolve(workingDirectory, path));
  }
  return paths;
}

/** What a launch hands the running app with the single-instance lock: its projects, already resolved. */
export interface LaunchHandover {
  projects: string[];
}

/**
 * The projects a second launch handed over with the lock (`requestSingleInstanceLock(data)`), or null when it sent
 * none that can be read: Electron warns that the argv a `second-instance` event carries may be reordered and have
 * switches appended (Windows), so the launch's own reading of its command line comes first, argv second.
 */
export function projectsHandedOver(additionalData: unknown): string[] | null {
  if (typeof additionalData !== 'object' || additionalData === null) return null;
  const projects = (additionalData as { projects?: unknown }).projects;
  if (!Array.isArray(projects) || !projects.every((p): p is string => typeof p === 'string')) return null;
  return projects.filter((p) => isAbsolute(p) && isProjectPath(p));
}
