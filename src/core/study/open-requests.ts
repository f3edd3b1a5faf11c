import { isAbsolute } from 'node:path';
import { isProjectPath } from '../../shared/project-document';

/**
 * Project files the system asked the app to open — a double-clicked `.servelab`, a path on the command line, the
 * file a second launch handed over — kept until the window takes them (`app:openRequests`). A request can arrive
 * before any window has loaded, so the window asks once when it starts and again on each `app:openRequested`.
 */
export class OpenRequests {
  private pending: string[] = [];

  constructor(private readonly announce: () => void) {}

  /** Keeps the absolute project paths among `paths` (anything else is not a project to open) and announces them. */
  add(paths: readonly string[]): string[] {
    const accepted = paths.filter((p) => isAbsolute(p) && isProjectPath(p) && !p.includes('\0'));
    if (accepted.length === 0) return [];
    this.pending = [...this.pending.filter((p) => !accepted.includes(p)), ...accepted];
    this.announce();
    return accepted;
  }

  /** The paths not taken yet, oldest first; they are given out once. */
  take(): string[] {
    const paths = this.pending;
    this.pending = [];
    return paths;
  }
}
