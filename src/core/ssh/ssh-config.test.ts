import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSshConfigAliases } from './ssh-config';

describe('listSshConfigAliases', () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'servelab-sshcfg-'));
    await mkdir(join(home, '.ssh', 'conf.d'), { recursive: true });
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('lists the concrete aliases, Includes followed, each once, resolved', async () => {
    const configPath = join(home, '.ssh', 'config');
    await writeFile(join(home, '.ssh', 'conf.d', 'lab.conf'), 'Host gpu1 gpu2\n  User lab\nHost gpu?\n  Port 2222\n');
    await writeFile(
      configPath,
      ['Include conf.d/*.conf', 'Host bastion', '  HostName 203.0.113.5', 'Host gpu1', '  HostName 10.0.0.11', '  ProxyJump bastion', 'Host *.farm !bad.farm', '  User x', 'Host *', '  User fallback'].join('\n'),
    );
    expect(listSshConfigAliases(configPath, { env: { HOME: home } })).toEqual([
      { alias: 'gpu1', hostName: '10.0.0.11', user: 'lab', port: 2222, proxyJump: 'bastion' },
      { alias: 'gpu2', hostName: 'gpu2', user: 'lab', port: 2222 },
      { alias: 'bastion', hostName: '203.0.113.5', user: 'fallback' },
    ]);
    expect(listSshConfigAliases(join(home, 'missing'), { env: { HOME: home } })).toEqual([]);
  });

  it('follows Include classes once each, lower-cases host names and formats ProxyJump as ssh does', async () => {
    const configPath = join(home, '.ssh', 'config');
    await writeFile(join(home, '.ssh', 'conf.d', 'n1'), 'Host one\n  HostName One.Example\n  ProxyJump u@10.0.0.1:2222\n');
    await writeFile(join(home, '.ssh', 'conf.d', 'na'), 'Host letter\n');
    await writeFile(configPath, 'Include conf.d/n[0-9]\nInclude conf.d/n1\nHost two\n  HostName %h.lab\n  Port ssh\n');
    expect(listSshConfigAliases(configPath, { env: { HOME: home } })).toEqual([
      { alias: 'one', hostName: 'one.example', proxyJump: 'u@[10.0.0.1]:2222' },
      { alias: 'two', hostName: 'two.lab', port: 22 },
    ]);
  });
});
