import { parseServeCommand } from '../../engines/command-parse';
import type { ServerConfig } from '../../engines/server-config';
import type { EngineId } from '../../engines/types';

/**
 * A guide's server command → engine and typed config, for the guide reader: the one place it asks the engines' own
 * command reader (`parseServeCommand`), at the version the guide names for that engine.
 */
export interface ServeRead {
  engine: EngineId;
  config: ServerConfig;
  /** What the command says that the study cannot take (a flag the version refuses), in words. */
  problems: string[];
}

export function readServeCommand(text: string, versions: Partial<Record<EngineId, string>>): ServeRead | { error: string } {
  const first = parseServeCommand(text);
  if ('error' in first) return first;
  const version = versions[first.engine];
  const parsed = version !== undefined ? parseServeCommand(text, { engineVersion: version }) : first;
  if ('error' in parsed) return parsed;
  const problems = [...parsed.refused.map((r) => r.message), ...parsed.warnings];
  if (parsed.docker) problems.push(`the command runs in docker (${parsed.docker.image}); the study installs ${parsed.engine} ${parsed.version} itself`);
  // A guide's study keeps no files: the files the command writes stay with the guide.
  const { chatTemplate, optionsFile, ...config } = parsed.config;
  const named = [chatTemplate, optionsFile].flatMap((ref) => (ref ? [ref.file] : []));
  if (named.length > 0) problems.push(`the command's files (${named.join(', ')}) hold settings Servelab does not model in a guide's study; they are not part of the study`);
  return { engine: parsed.engine, config, problems };
}
