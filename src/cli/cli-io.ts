/** What a CLI command may touch of its process, so tests can run commands in-process and read what they print. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}
