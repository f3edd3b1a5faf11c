import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { keepsNoHostKeys } from './session-known-hosts';
import { sshSetup } from './ssh-setup';

describe('sshSetup', () => {
  let dir: string;
  let config: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-setup-'));
    config = join(dir, 'config');
    await writeFile(config, ['Host box', '  HostName box.example', '  UserKnownHostsFile /dev/null', '  ProxyJump hop', ''].join('\n'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes ~/.ssh from the passwd home, as ssh does, whatever $HOME says', () => {
    const setup = sshSetup({ dataDir: dir, env: { ...process.env, HOME: join(dir, 'elsewhere') } });
    expect(setup.home).toBe(userInfo().homedir);
    expect(setup.sshConfigPath).toBe(join(userInfo().homedir, '.ssh', 'config'));
  });

  it.each(['ssh -G', 'built-in'] as const)('lets fixed known_hosts files override the config\'s /dev/null, for the connection and the view (%s)', async (resolver) => {
    const appFile = join(dir, 'fixed_known_hosts');
    const setup = sshSetup({ dataDir: dir, env: process.env, sshConfigPath: config, appKnownHostsFile: appFile, userKnownHostsFiles: [], resolver });
    const target = await setup.resolve({ alias: 'box' });
    expect(target.knownHostsFiles).toEqual([]);
    expect(keepsNoHostKeys(target.userKnownHostsFiles)).toBe(false);
    expect(keepsNoHostKeys(target.jumps[0]?.userKnownHostsFiles)).toBe(false);
    const view = await setup.resolveHost({ alias: 'box' });
    expect(view).toMatchObject({ userKnownHostsFiles: [appFile], globalKnownHostsFiles: [] });
    expect(view.proxyJump[0]).toMatchObject({ userKnownHostsFiles: [appFile], globalKnownHostsFiles: [] });
  });

  it('keeps the config\'s known_hosts decision when the setup fixes no files', async () => {
    const setup = sshSetup({ dataDir: dir, env: process.env, sshConfigPath: config, resolver: 'built-in' });
    expect(keepsNoHostKeys((await setup.resolve({ alias: 'box' })).userKnownHostsFiles)).toBe(true);
  });
});
