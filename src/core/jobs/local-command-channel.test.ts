import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServelabError } from '../../shared/contract';
import { execOnChannel } from './exec-binary';
import { LocalCommandChannel } from './local-command-channel';
import { RemoteJobRunner } from './remote-job-runner';

const folders: string[] = [];
function tempHome(): string {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-local-channel-'));
  folders.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  const stat = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim();
  return stat !== '' && !stat.startsWith('Z');
}

describe('LocalCommandChannel', () => {
  it('runs sh commands with exactly the given environment, in the given folder', async () => {
    const home = tempHome();
    const channel = new LocalCommandChannel({ env: { HOME: home, PATH: process.env.PATH ?? '', ONLY_THIS: 'yes' }, cwd: home });
    const result = await execOnChannel(channel, 'sh -s', { stdin: 'pwd; echo "$ONLY_THIS ${USER:-no-user}"; echo oops >&2; exit 4\n', timeoutMs: 10_000 });
    expect(result).toEqual({ stdout: Buffer.from(`${home}\nyes no-user\n`), stderr: 'oops\n', code: 4 });
  });

  it('abandoning a command on timeout ends what it started in the background too', async () => {
    const home = tempHome();
    const channel = new LocalCommandChannel({ env: { HOME: home, PATH: process.env.PATH ?? '' }, cwd: home });
    const pidFile = join(home, 'child.pid');
    const error = await execOnChannel(channel, 'sh -s', { stdin: `sleep 1000 & echo $! > ${pidFile}; wait\n`, timeoutMs: 500 }).catch((e: unknown) => e);
    expect((error as ServelabError).code).toBe('TIMEOUT');
    const pid = Number(spawnSync('cat', [pidFile], { encoding: 'utf8' }).stdout.trim());
    await expect.poll(() => alive(pid)).toBe(false);
  });

  it('once disposed, reports a drop, ends running commands and refuses new ones', async () => {
    const home = tempHome();
    const channel = new LocalCommandChannel({ env: { HOME: home, PATH: process.env.PATH ?? '' }, cwd: home });
    const drops: ServelabError[] = [];
    channel.onDrop((e) => drops.push(e));
    const running = execOnChannel(channel, 'sleep 1000', { timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    channel.dispose();
    await expect(running).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    expect(drops).toHaveLength(1);
    await expect(channel.exec('true')).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
  });

  it('names a working folder that does not exist', async () => {
    const channel = new LocalCommandChannel({ env: { PATH: process.env.PATH ?? '' }, cwd: join(tempHome(), 'missing') });
    await expect(channel.exec('true')).rejects.toMatchObject({ code: 'REMOTE_COMMAND_FAILED', message: expect.stringContaining('missing') });
  });

  it('carries remote jobs: detached, streamed, and still running after the channel is gone', async () => {
    const home = tempHome();
    const env = { HOME: home, PATH: process.env.PATH ?? '' };
    const first = new LocalCommandChannel({ env, cwd: home });
    const runner = new RemoteJobRunner({ hostId: 'here', channels: async () => first });
    const handle = await runner.start({ command: ['sh', '-c', 'echo one; sleep 0.5; echo two; exit 5'] });
    expect(handle.remoteDir).toBe(join(home, '.servelab', 'jobs', handle.id));
    first.dispose();
    const second = new LocalCommandChannel({ env, cwd: home });
    const again = new RemoteJobRunner({ hostId: 'here', channels: async () => second }).reattach({
      id: handle.id,
      hostId: 'here',
      remoteDir: handle.remoteDir,
      command: handle.command,
      offset: 0,
      state: 'running',
      createdAt: '',
      updatedAt: '',
    });
    let text = '';
    expect(await again.stream((chunk) => (text += chunk))).toBe(5);
    expect(text).toBe('one\ntwo\n');
    second.dispose();
  });
});
