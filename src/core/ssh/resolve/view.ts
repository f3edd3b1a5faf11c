import type { ResolvedHostView } from '../../../shared/model/ssh-resolve';
import { resolveJson, type ResolvedSshHost } from './types';

/** Where Servelab does not do what ssh would with the resolved values, said in the user's terms. */
export function resolveWarnings(host: ResolvedSshHost): string[] {
  const warnings: string[] = [...(host.warnings ?? [])];
  for (const hop of host.proxyJump) for (const warning of hop.warnings ?? []) warnings.push(`jump host ${hop.alias}: ${warning}`);
  const all = [host, ...host.proxyJump];
  if (all.some((h) => h.strictHostKeyChecking === 'no')) {
    warnings.push('StrictHostKeyChecking no is treated as ask: Servelab never accepts a key silently.');
  }
  return warnings;
}

/** A resolved host as the Hosts page shows it ("resolved as"). */
export function resolvedHostView(host: ResolvedSshHost): ResolvedHostView {
  return {
    ...resolveJson(host),
    proxyJump: host.proxyJump.map((hop) => ({ alias: hop.alias, user: hop.user, hostname: hop.hostname, port: hop.port, identityFiles: hop.identityFiles })),
    globalKnownHostsFiles: host.globalKnownHostsFiles,
    connectionAttempts: host.connectionAttempts,
    origins: host.origins,
    warnings: resolveWarnings(host),
  };
}
