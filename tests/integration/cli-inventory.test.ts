import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { runInventory } from '../../src/main/cli/commands/inventory';
import type { CliIo } from '../../src/main/cli/cli-io';
import { InventorySchema } from '../../src/shared/model/inventory';

// Without root the test sshd cannot check passwords (see startTestSshd).
const asRoot = process.getuid?.() === 0;
let sshd: TestSshd;
let home: string;
let dataDir: string;

/** Runs `servelab inventory …` in-process with a fresh HOME and data folder, and captures what it prints. */
async function inventory(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: { HOME: home, USER: 'local-user', SERVELAB_DATA_DIR: dataDir, ...env },
    cwd: home,
  };
  const code = await runInventory(args, io);
  return { code, stdout, stderr };
}

const target = () => `${sshd.user}@127.0.0.1`;
const keyArgs = () => [target(), '--port', String(sshd.port), '--identity', sshd.identityFile, '--timeout', '10'];

beforeAll(async () => {
  sshd = await startTestSshd();
  home = await mkdtemp(join(tmpdir(), 'servelab-cli-'));
  dataDir = join(home, 'data');
});

afterAll(async () => {
  await sshd?.stop();
  if (home) await rm(home, { recursive: true, force: true });
});

describe('servelab inventory', () => {
  it('stops at an unknown host key with exit 3 and says how to accept it', async () => {
    const result = await inventory([...keyArgs(), '--json']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`[127.0.0.1]:${sshd.port}`);
    expect(result.stderr).toContain('ED25519');
    expect(result.stderr).toContain(sshd.hostKeyFingerprint);
    expect(result.stderr).toContain('--accept-new');
    expect(existsSync(join(dataDir, 'known_hosts'))).toBe(false);
  });

  it('stores the key with --accept-new and prints the inventory as JSON', async () => {
    const result = await inventory([...keyArgs(), '--accept-new', '--json']);
    expect(result.stderr).toContain('Permanently added');
    expect(result.code).toBe(0);
    const json = InventorySchema.parse(JSON.parse(result.stdout));
    expect(json.hostId).toBe(`${sshd.user}@127.0.0.1:${sshd.port}`);
    expect(json.gpus[0]?.name).toBe('NVIDIA H200');
    expect(json.gpus[0]?.memoryTotalMiB).toBe(143771);
    expect(json.gpus[0]?.computeCapability).toBe('9.0');
    expect(json.cudaVersion).toBe('13.0');
    expect(await readFile(join(dataDir, 'known_hosts'), 'utf8')).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
  });

  it('prints a human summary once the key is known', async () => {
    const result = await inventory(keyArgs());
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('GPU 0: NVIDIA H200 · 143771 MiB · sm 9.0');
    expect(result.stdout).toContain('Driver: 580.159.04 · CUDA: 13.0');
    expect(result.stdout).toMatch(/^OS: .*Linux/m);
    expect(result.stdout).toMatch(/^Python: /m);
    expect(result.stdout).toMatch(/^Disk: .* free of /m);
  });

  it('resolves an ~/.ssh/config alias and trusts ~/.ssh/known_hosts', async () => {
    await mkdir(join(home, '.ssh'), { recursive: true });
    await writeFile(
      join(home, '.ssh', 'config'),
      `Host testbox\n  HostName 127.0.0.1\n  Port ${sshd.port}\n  User ${sshd.user}\n  IdentityFile ${sshd.identityFile}\n`,
    );
    await writeFile(join(home, '.ssh', 'known_hosts'), await readFile(join(dataDir, 'known_hosts'), 'utf8'));
    const result = await inventory(['testbox', '--json'], { SERVELAB_DATA_DIR: join(home, 'other-data') });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).hostId).toBe(`${sshd.user}@127.0.0.1:${sshd.port}`);
  });

  it.skipIf(!asRoot)('logs in with --password-env and writes accepted keys to --known-hosts', async () => {
    const file = join(home, 'kh', 'custom_known_hosts');
    const args = [target(), '--port', String(sshd.port), '--password-env', 'BOX_PASSWORD', '--known-hosts', file, '--json'];
    expect((await inventory(args, { BOX_PASSWORD: sshd.password })).code).toBe(3);
    const result = await inventory([...args, '--accept-new'], { BOX_PASSWORD: sshd.password });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).gpus[0].name).toBe('NVIDIA H200');
    expect(await readFile(file, 'utf8')).toContain(`[127.0.0.1]:${sshd.port} ssh-ed25519 `);
  });

  it('exits 5 on a failed login and 6 on a closed port', async () => {
    const wrong = await inventory([target(), '--port', String(sshd.port), '--password-env', 'P'], { P: 'wrong' });
    expect(wrong.code).toBe(5);
    expect(wrong.stderr).toContain(`${sshd.user}@127.0.0.1`);
    const closed = await inventory([target(), '--port', '1', '--identity', sshd.identityFile, '--timeout', '5']);
    expect(closed.code).toBe(6);
    expect(closed.stderr).toMatch(/refused/);
  });

  it('exits 2 with the usage on bad arguments', async () => {
    for (const args of [[], ['a', 'b'], [target(), '--bogus'], [target(), '--port', 'x'], [target(), '--password-env', 'UNSET_VAR'], ['-rf']]) {
      const result = await inventory(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('Usage: servelab inventory');
    }
    const help = await inventory(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--accept-new');
  });

  it('exits 4 with the OpenSSH warning after the host key changed, even with --accept-new', async () => {
    const before = await readFile(join(dataDir, 'known_hosts'), 'utf8');
    await sshd.rotateHostKey();
    const result = await inventory([...keyArgs(), '--accept-new', '--json']);
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!');
    expect(result.stderr).toContain(sshd.hostKeyFingerprint);
    expect(result.stderr).toContain(`Offending ED25519 key in ${join(dataDir, 'known_hosts')}:1`);
    expect(await readFile(join(dataDir, 'known_hosts'), 'utf8')).toBe(before);
  });
});
