import { homedir } from 'node:os';
import { listConfigAliases } from './resolve/builtin/aliases';

/** A concrete `Host` alias of the config (no wildcard, no negation), with what it resolves to. */
export interface SshConfigAlias {
  alias: string;
  hostName: string;
  user?: string;
  port?: number;
  proxyJump?: string;
}

/**
 * The aliases a user can pick from the config, in the order they appear (Includes followed), each once,
 * resolved like a connection to it would start (the built-in ssh_config reader's lexer, patterns and Include rules;
 * nothing in the config is run).
 */
export function listSshConfigAliases(configPath: string, opts: { env?: NodeJS.ProcessEnv } = {}): SshConfigAlias[] {
  const env = opts.env ?? process.env;
  const home = env.HOME || homedir();
  return listConfigAliases(configPath, home);
}
