// The default name lookup for canonicalisation: getaddrinfo through node:dns.lookup (so /etc/hosts, NSS and DNS
// answer as they do for ssh), and the canonical name getaddrinfo's AI_CANONNAME would give: the official name of
// a hosts-file entry, else the end of the DNS CNAME chain, else the name itself.
import { lookup, resolveCname } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import type { LookupHost } from './canonicalise';

export function defaultLookupHost(env: NodeJS.ProcessEnv): LookupHost {
  return async (name) => {
    const bare = name.endsWith('.') ? name.slice(0, -1) : name;
    try {
      await lookup(name, { all: true });
    } catch {
      return null; // not resolvable: ssh tries the next suffix
    }
    return { canonicalName: hostsFileOfficialName(bare, env) ?? (await cnameTarget(bare)) ?? bare };
  };
}

function hostsFileOfficialName(name: string, env: NodeJS.ProcessEnv): string | null {
  const wrapped = (env.LD_PRELOAD ?? '').includes('nss_wrapper') && env.NSS_WRAPPER_HOSTS;
  let text: string;
  try {
    text = readFileSync(wrapped || '/etc/hosts', 'utf8');
  } catch {
    return null; // no hosts file: DNS decides
  }
  const wanted = name.toLowerCase();
  for (const raw of text.split('\n')) {
    const fields = raw.replace(/#.*/, '').trim().split(/\s+/).slice(1);
    if (fields.some((f) => f.toLowerCase() === wanted)) return fields[0] ?? null;
  }
  return null;
}

async function cnameTarget(name: string): Promise<string | null> {
  let current = name;
  for (let i = 0; i < 8; i++) {
    let targets: string[];
    try {
      targets = await resolveCname(current);
    } catch {
      break; // no CNAME record: the chain ends here
    }
    if (!targets[0]) break;
    current = targets[0];
  }
  return current === name ? null : current;
}
