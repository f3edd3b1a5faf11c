import { ServelabError } from '../../shared/contract';
import { PROBE_SCRIPT } from './probe-script';
import { parseProbeOutput, probeCompleted, type ProbeInventory } from './parse-probe';

export interface CommandResult {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** Runs a POSIX sh script in a login shell on some box (over SSH, or locally) and collects its output. */
export interface CommandRunner {
  run(script: string): Promise<CommandResult>;
}

/** Seconds the whole probe may take: three nvidia-smi calls at worst plus the quick facts. */
export const PROBE_TIMEOUT_SECONDS = 120;

/** Runs the inventory probe through `runner` and parses what it printed. */
export async function collectInventory(runner: CommandRunner, opts: { now?: Date } = {}): Promise<ProbeInventory> {
  const result = await runner.run(PROBE_SCRIPT);
  if (!probeCompleted(result.stdout)) {
    const stderr = result.stderr.trim().split('\n').slice(-5).join(' | ');
    throw new ServelabError(
      'REMOTE_COMMAND_FAILED',
      `The inventory probe did not run to the end (exit code ${result.code ?? 'none'})` +
        (stderr ? `: ${stderr.length > 500 ? `${stderr.slice(0, 497)}…` : stderr}` : '; the login shell may not be POSIX sh compatible.'),
      { details: { code: result.code } },
    );
  }
  return parseProbeOutput(result.stdout, opts);
}
