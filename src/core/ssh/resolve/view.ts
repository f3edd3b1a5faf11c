import type { ResolvedHostView } from '../../../shared/model/ssh-resolve';
import type { ResolvedSshHost } from './types';

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
    hostname: host.hostname,
    port: host.port,
    user: host.user,
    identityFiles: host.identityFiles,
    identitiesOnly: host.identitiesOnly,
    identityAgent: host.identityAgent,
    certificateFiles: host.certificateFiles,
    proxyJump: host.proxyJump.map((hop) => ({ alias: hop.alias, user: hop.user, hostname: hop.hostname, port: hop.port, identityFiles: hop.identityFiles })),
    proxyCommand: host.proxyCommand,
    hostKeyAlias: host.hostKeyAlias,
    strictHostKeyChecking: host.strictHostKeyChecking,
    userKnownHostsFiles: host.userKnownHostsFiles,
    globalKnownHostsFiles: host.globalKnownHostsFiles,
    connectTimeout: host.connectTimeout,
    connectionAttempts: host.connectionAttempts,
    serverAliveInterval: host.serverAliveInterval,
    serverAliveCountMax: host.serverAliveCountMax,
    source: host.source,
    origins: host.origins,
    warnings: resolveWarnings(host),
  };
}
