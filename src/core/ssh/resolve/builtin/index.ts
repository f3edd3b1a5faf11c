import { ServelabError } from '../../../../shared/contract';
import type { RawSshOptions, SshResolveContext, SshResolveRequest } from '../types';

/**
 * The built-in reader of ssh_config(5), for machines without an OpenSSH client. Not in this build yet: until it
 * is, only `ssh -G` resolves hosts.
 */
export async function builtInRawOptions(
  request: SshResolveRequest,
  _ctx: SshResolveContext,
  _hooks?: { lookupHost?: (name: string) => Promise<{ canonicalName?: string } | null>; runExec?: (command: string) => Promise<boolean> },
): Promise<RawSshOptions> {
  throw new ServelabError('NOT_SUPPORTED', `Resolving ${request.destination} needs an OpenSSH client (ssh): the built-in ssh_config reader is not in this build.`);
}
