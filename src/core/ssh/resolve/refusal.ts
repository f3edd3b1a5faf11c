import { ServelabError } from '../../../shared/contract';
import type { SshResolveRequest } from './types';

// ssh's refusals of a value the request gave (-J, -l, -p, the destination), as ssh prints them: these are about
// the host's own fields, not about a config line.
const REQUEST_FIELD_REFUSALS: readonly { line: RegExp; path: string; field: string; value: (r: SshResolveRequest) => string | undefined }[] = [
  { line: /^Invalid -J argument$/, path: 'proxyJump', field: 'ProxyJump', value: (r) => r.proxyJump },
  { line: /^remote username contains invalid characters$/, path: 'user', field: 'user', value: (r) => r.user },
  { line: /^Bad port '.*'$/, path: 'port', field: 'port', value: (r) => (r.port === undefined ? undefined : String(r.port)) },
  { line: /^(hostname contains invalid characters|Bad destination '.*')$/, path: 'destination', field: 'host name', value: (r) => r.destination },
];

/**
 * What ssh's refusal to resolve a host is about: a field of the request (BAD_INPUT, naming the field), a name
 * that does not resolve (CONNECT_FAILED), else the config (SSH_CONFIG_INVALID, ssh's own words).
 */
export function sshRefusal(message: string, request: SshResolveRequest, details: Record<string, unknown>): ServelabError {
  const lines = message.split('\n');
  for (const refusal of REQUEST_FIELD_REFUSALS) {
    const said = lines.find((line) => refusal.line.test(line));
    const value = refusal.value(request);
    if (said === undefined || value === undefined) continue;
    return new ServelabError('BAD_INPUT', `The ${refusal.field} "${value}" given for ${request.destination} is not valid (ssh: ${said}).`, {
      details,
      issues: [{ path: refusal.path, message: said }],
    });
  }
  if (lines.some((line) => /^Could not resolve host ?name /i.test(line))) return new ServelabError('CONNECT_FAILED', message, { details });
  return new ServelabError('SSH_CONFIG_INVALID', message, { details });
}
