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
  if (parsed.files && parsed.files.length > 0) problems.push(`the command's options file (${parsed.files.map((f) => f.path).join(', ')}) holds settings Servelab does not model; they are not part of the study`);
  return { engine: parsed.engine, config: parsed.config, problems };
}
