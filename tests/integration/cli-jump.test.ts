// `servelab inventory` through jump hosts, against the namespace lab (tests/helpers/netns.ts): a GPU host that
// only the jump host can reach, named by an ~/.ssh/config alias whose ProxyJump, Include and %-tokens are
// resolved the way ssh resolves them.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { startSshLab, type SshLab } from '../helpers/netns';
import type { TestSshd } from '../helpers/sshd';
import { runInventory, type InventoryTerminal } from '../../src/cli/commands/inventory';
import { runCaptured, type CliRun } from '../helpers/cli';
import { knownHostsName } from '../../src/core/ssh/known-hosts';
import { InventorySchema, type Inventory } from '../../src/shared/model/inventory';

let lab: SshLab;
let home: string;
let dataDir: string;

async function inventory(
  args: string[],
  env: Record<string, string> = {},
  // Not a terminal unless a test passes one: nothing may be asked.
  terminal: InventoryTerminal = { input: new PassThrough(), output: new PassThrough() },
): Promise<CliRun> {
  // ssh reads ~/.ssh/config from the passwd home, which is not this $HOME: the test's config is named.
  const withConfig = args.includes('--ssh-config') ? args : [...args, '--ssh-config', join(home, '.ssh', 'config')];
  return runCaptured((io) => runInventory(withConfig, io, terminal), { HOME: home, USER: 'local-user', SERVELAB_DATA_DIR: dataDir, ...env }, home);
}

/** A terminal that types `answer` at each "Passphrase:" prompt and counts the prompts. */
function passphraseTerminal(answer: string): InventoryTerminal & { prompts: () => number } {
  const input = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode: (mode: boolean) => Object.assign(input, { isRaw: mode }) });
  const output = new PassThrough();
  let prompts = 0;
  output.on('data', (chunk: Buffer) => {
    if (!chunk.toString('utf8').includes('Passphrase:')) return;
    prompts++;
    setImmediate(() => input.write(`${answer}\r`));
  });
  return { input, output, prompts: () => prompts };
}

const knownName = (sshd: TestSshd) => knownHostsName(sshd.host, sshd.port);

async function hostKeyLine(sshd: TestSshd): Promise<string> {
  const [keyType, publicKey] = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).trim().split(' ') as [string, string];
  return `${keyType} ${publicKey}`;
}

beforeAll(async () => {
  lab = await startSshLab({ nvidiaSmi: true });
  home = await mkdtemp(join(tmpdir(), 'servelab-cli-jump-'));
  dataDir = join(home, 'data');
  const ssh = join(home, '.ssh');
  await mkdir(join(ssh, 'conf.d'), { recursive: true, mode: 0o700 });
  await mkdir(join(ssh, 'keys'), { mode: 0o700 });
  // One key file per user@host, found only through the %r@%h tokens below.
  for (const sshd of [lab.jump, lab.gpu1]) await copyFile(lab.clientKey, join(ssh, 'keys', `${sshd.user}@${sshd.host}`));
  const block = (alias: string, sshd: TestSshd) => [`Host ${alias}`, `  HostName ${sshd.host}`, `  User ${sshd.user}`, `  Port ${sshd.port}`].join('\n');
  await writeFile(join(ssh, 'conf.d', 'lab.conf'), `${block('bastion', lab.jump)}\n${block('gpu1-alias', lab.gpu1)}\n`);
  await writeFile(
    join(ssh, 'config'),
    // ssh takes `~` (and the folder of a relative Include) from the passwd entry, not from $HOME: this process's
    // account is not the test's, so the paths are absolute, and the key folder comes from ${HOME} as ssh expands it.
    [`Include ${join(ssh, 'conf.d')}/*.conf`, 'Host gpu*-alias', '  ProxyJump bastion', 'Host *', '  IdentityFile ${HOME}/.ssh/keys/%r@%h', '  IdentitiesOnly yes', ''].join('\n'),
  );
});

afterAll(async () => {
  await lab?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

function expectGpu1Inventory(inv: Inventory): void {
  expect(inv.hostId).toBe(`${lab.gpu1.user}@${lab.gpu1.host}:${lab.gpu1.port}`);
  if (lab.mode === 'netns') expect(inv.hostname).toBe('gpu1');
  expect(inv.gpuStatus).toBe('ok');
  expect(inv.gpus[0]).toMatchObject({ name: 'NVIDIA H200', memoryTotalMiB: 143771, computeCapability: '9.0' });
}

let viaAlias: Inventory;

describe('servelab inventory through a jump host', () => {
  it('stops at the unknown jump host key with exit 3, naming the jump host', async () => {
    const result = await inventory(['gpu1-alias', '--json']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`The authenticity of jump host '${knownName(lab.jump)}'`);
    expect(result.stderr).toContain(lab.jump.hostKeyFingerprint);
    expect(result.stderr).toContain(`That is jump host bastion (${lab.jump.user}@${lab.jump.host}:${lab.jump.port}), hop 1 of 1 on the way to gpu1-alias`);
    expect(result.stderr).toContain('--accept-new');
    expect(existsSync(join(dataDir, 'known_hosts'))).toBe(false);
  });

  it('accepts the key of every hop with --accept-new and prints the inventory', async () => {
    const result = await inventory(['gpu1-alias', '--json', '--accept-new']);
    expect(result.code, result.stderr).toBe(0);
    const added = result.stderr.split('\n').filter((line) => line.startsWith('Warning: Permanently added'));
    expect(added).toHaveLength(2);
    expect(added[0]).toContain(`'${knownName(lab.jump)}' (ED25519 ${lab.jump.hostKeyFingerprint})`);
    expect(added[1]).toContain(`'${knownName(lab.gpu1)}' (ED25519 ${lab.gpu1.hostKeyFingerprint})`);
    viaAlias = InventorySchema.parse(JSON.parse(result.stdout));
    expectGpu1Inventory(viaAlias);
    const stored = await readFile(join(dataDir, 'known_hosts'), 'utf8');
    expect(stored).toContain(`${knownName(lab.jump)} ${await hostKeyLine(lab.jump)}`);
    expect(stored).toContain(`${knownName(lab.gpu1)} ${await hostKeyLine(lab.gpu1)}`);
  });

  it('goes the same way with -J user@jump:port', async () => {
    const args = [`${lab.gpu1.user}@${lab.gpu1.host}`, '-p', String(lab.gpu1.port), '-J', `${lab.jump.user}@${lab.jump.host}:${lab.jump.port}`, '--json'];
    const unknown = await inventory(args, { SERVELAB_DATA_DIR: join(home, 'fresh-data') });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain(`The authenticity of jump host '${knownName(lab.jump)}'`);
    expect(unknown.stderr).toContain(`hop 1 of 1 on the way to ${lab.gpu1.user}@${lab.gpu1.host}:${lab.gpu1.port}`);

    const result = await inventory([...args, '-v']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`servelab: Opening a tunnel through jump host ${lab.jump.user}@${lab.jump.host}:${lab.jump.port} to ${lab.gpu1.host}:${lab.gpu1.port}`);
    expect(result.stderr).not.toContain('Permanently added');
    const viaFlag = InventorySchema.parse(JSON.parse(result.stdout));
    expectGpu1Inventory(viaFlag);
    expect(viaFlag.hostname).toBe(viaAlias.hostname);
  });

  it('asks for a jump host key passphrase once, though --accept-new connects again after each new key', async () => {
    const config = join(home, 'encrypted-jump.conf');
    await writeFile(
      config,
      [
        'Host bastion-encrypted',
        ...[`HostName ${lab.jump.host}`, `User ${lab.jump.user}`, `Port ${lab.jump.port}`, `IdentityFile ${lab.jump.encryptedIdentityFile}`].map((l) => `  ${l}`),
        'Host gpu1-behind',
        ...[`HostName ${lab.gpu1.host}`, `User ${lab.gpu1.user}`, `Port ${lab.gpu1.port}`, 'ProxyJump bastion-encrypted', `IdentityFile ${lab.clientKey}`].map((l) => `  ${l}`),
        'Host *',
        '  IdentitiesOnly yes',
        '',
      ].join('\n'),
    );
    const terminal = passphraseTerminal(lab.jump.identityPassphrase);
    const result = await inventory(['gpu1-behind', '--ssh-config', config, '--known-hosts', join(home, 'kh-encrypted'), '--accept-new', '--json'], {}, terminal);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/Permanently added/g)).toHaveLength(2);
    expect(terminal.prompts()).toBe(1);
    expectGpu1Inventory(InventorySchema.parse(JSON.parse(result.stdout)));
  });

  it('refuses a changed jump host key with exit 4, even with --accept-new', async () => {
    const file = join(home, 'changed_known_hosts');
    const before = `${knownName(lab.jump)} ${await hostKeyLine(lab.gpu2)}\n${knownName(lab.gpu1)} ${await hostKeyLine(lab.gpu1)}\n`;
    await writeFile(file, before);
    const result = await inventory(['gpu1-alias', '--json', '--accept-new', '--known-hosts', file]);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!');
    expect(result.stderr).toContain(`Host key for jump host ${knownName(lab.jump)} has changed`);
    expect(result.stderr).toContain(lab.jump.hostKeyFingerprint);
    expect(result.stderr).toContain('That is jump host bastion');
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});
