import type { CliIo } from '../../src/cli/cli-io';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one CLI command in-process with its own environment and folder, capturing what it prints. */
export async function runCaptured(command: (io: CliIo) => Promise<number>, env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env, cwd };
  const code = await command(io);
  return { code, stdout, stderr };
}
