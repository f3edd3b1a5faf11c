// The identity the differential test relies on is really the one ssh and Node see, not $HOME/$USER.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createNssIdentity, type NssIdentity } from './nss-wrapper';

let identity: NssIdentity;

beforeAll(async () => {
  identity = await createNssIdentity({ user: 'mira', hostname: 'ws42.lab.example', hosts: ['192.0.2.17 gpu7.cluster.example gpu7'], prefix: 'servelab-nss-test-' });
});

afterAll(async () => {
  await identity?.remove();
});

/** Runs a command with the identity and a $HOME/$USER that say something else. */
function run(command: string, args: string[]) {
  const env = { PATH: '/usr/bin:/bin', HOME: '/nonexistent-decoy', USER: 'decoy', LOGNAME: 'decoy', ...identity.env };
  const result = spawnSync(command, args, { env, encoding: 'utf8' });
  if (result.error) throw result.error;
  return result;
}

describe('nss_wrapper identity', () => {
  it('gives ssh its user, home and host name from the passwd entry and gethostname()', () => {
    const config = join(identity.root, 'config');
    writeFileSync(config, 'Host *\n  IdentityFile ~/.ssh/k_%u_%l_%L\n  UserKnownHostsFile %d/kh ~/kh2\n');
    const result = run('ssh', ['-G', '-F', config, 'gpu7']);
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toContain('user mira');
    expect(lines).toContain(`userknownhostsfile ${identity.home}/kh ${identity.home}/kh2`);
    // IdentityFile is printed before expansion; the connect-time oracle expands it.
    expect(lines).toContain('identityfile ~/.ssh/k_%u_%l_%L');
  });

  it('gives Node the same user, home, shell and host name', () => {
    const script = 'const os = require("node:os"); const u = os.userInfo(); console.log(JSON.stringify({ user: u.username, home: u.homedir, shell: u.shell, uid: u.uid, host: os.hostname() }))';
    const result = run(process.execPath, ['-e', script]);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ user: 'mira', home: identity.home, shell: '/bin/sh', uid: identity.uid, host: 'ws42.lab.example' });
  });

  it('resolves names only through its own hosts file', () => {
    expect(run('getent', ['hosts', 'gpu7']).stdout).toMatch(/^192\.0\.2\.17\s+gpu7\.cluster\.example\s+gpu7/);
    expect(run('getent', ['hosts', 'localhost.invalid-servelab-test']).status).not.toBe(0);
    expect(run('getent', ['hosts', 'debian.org']).status).not.toBe(0);
  });
});
