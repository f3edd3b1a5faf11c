/** Phases of an engine install, in order, read from pip's and uv's own progress lines. */
export const INSTALL_PHASES = ['environment', 'resolving', 'downloading', 'installing', 'verifying', 'done'] as const;
export type InstallPhase = (typeof INSTALL_PHASES)[number];

export interface InstallProgress {
  phase: InstallPhase;
  /** A rough share of the whole install, for a progress bar; pip and uv print no totals worth more. */
  percent: number;
}

const PERCENT: Record<InstallPhase, number> = { environment: 5, resolving: 15, downloading: 40, installing: 80, verifying: 95, done: 100 };

const RULES: { phase: InstallPhase; pattern: RegExp }[] = [
  { phase: 'environment', pattern: /^(Creating virtual environment|Using CPython|servelab: creating the environment)/ },
  { phase: 'resolving', pattern: /^(Collecting |Looking in indexes|Resolved \d+ packages)/ },
  { phase: 'downloading', pattern: /^\s*(Downloading |Prepared \d+ packages|Using cached )/ },
  { phase: 'installing', pattern: /^(Installing collected packages|Installed \d+ packages|Successfully installed )/ },
  { phase: 'verifying', pattern: /^servelab: verifying/ },
];

/** Follows an install log line by line; the phase only moves forward (pip repeats "Collecting" for dependencies). */
export class InstallProgressParser {
  private current: InstallPhase | null = null;
  private rest = '';

  /** Feeds a chunk of log; returns the progress each time the phase advances. */
  push(text: string): InstallProgress[] {
    const lines = (this.rest + text).split('\n');
    this.rest = lines.pop() ?? '';
    const out: InstallProgress[] = [];
    for (const line of lines) {
      const phase = phaseOf(line.replace(/\r/g, ''));
      if (phase && (this.current === null || INSTALL_PHASES.indexOf(phase) > INSTALL_PHASES.indexOf(this.current))) {
        this.current = phase;
        out.push({ phase, percent: PERCENT[phase] });
      }
    }
    return out;
  }

  get phase(): InstallPhase | null {
    return this.current;
  }
}

export function phaseOf(line: string): InstallPhase | null {
  return RULES.find((r) => r.pattern.test(line))?.phase ?? null;
}

export function phasePercent(phase: InstallPhase): number {
  return PERCENT[phase];
}
