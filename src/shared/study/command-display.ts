import { shellQuote } from '../shell-quote';
import { getAdapter } from '../engines/adapters';
import { redactCredentialArgs } from '../engines/credentials';
import type { ServerConfig } from '../engines/server-config';
import type { EngineId } from '../engines/types';
import { BOX_FILE_WORD, fileTextOptions, type ConfigFile } from '../engines/config-files';

/**
 * Launch commands as people read and copy them: one line a POSIX shell reads back into the same words. For display
 * only; what runs on a box is quoted by the transport.
 */

/**
 * A word as a POSIX shell reads it back: the same quoting as the commands that run on a box. A config file's box path
 * (`~/.servelab/files/<sha256>/<name>`, Servelab's own) stays unquoted, so its `~` is the box's HOME, as at launch.
 */
export function shellWord(word: string): string {
  return BOX_FILE_WORD.test(word) ? word : shellQuote(word);
}

/** `NAME=value … program args`, every word quoted as needed; a credential's value shows as `<redacted>`. */
export function displayCommand(argv: readonly string[], env: Readonly<Record<string, string>> = {}): string {
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${shellWord(value)}`);
  return [...assignments, ...redactCredentialArgs(argv).map(shellWord)].join(' ');
}

/**
 * The adapter's launch command for a config, without host or port (those belong to one launch, not the config). The
 * study's `files` let TensorRT-LLM's typed options be checked against the user's options file.
 */
export function launchCommandOf(engine: EngineId, version: string, config: ServerConfig, files?: readonly ConfigFile[]): string {
  const { host: _host, port: _port, ...rest } = config;
  const built = getAdapter(engine).buildArgv(rest, version, fileTextOptions(files));
  return displayCommand(built.argv, built.env);
}
