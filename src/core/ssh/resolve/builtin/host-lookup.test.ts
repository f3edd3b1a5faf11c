import { describe, expect, it } from 'vitest';
import { defaultLookupHost } from './host-lookup';

// getaddrinfo through node:dns, as ssh's resolve_host: /etc/hosts answers localhost; `.invalid` never resolves (RFC 6761).
describe('default host lookup', () => {
  const lookup = defaultLookupHost({});
  it('finds a hosts-file name and gives its official name', async () => {
    expect(await lookup('localhost')).toEqual({ canonicalName: 'localhost' });
  });
  it('returns null for a name that does not resolve (the glibc hosts file does not match an anchored name)', async () => {
    expect(await lookup('localhost.')).toBeNull();
    expect(await lookup('servelab-nowhere.invalid.')).toBeNull();
  });
});
