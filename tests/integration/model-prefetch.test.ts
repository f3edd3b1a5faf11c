// Model prefetch over a real sshd with the simulated GPU box on the test user's PATH: weights land in the box's
// Hugging Face cache, a second run is a cache hit, a gated model needs the token, and the token's value never
// reaches a file on the box, a job's command, a log, an event or an answer.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startSimboxOverSsh, type SimboxOverSsh } from '../helpers/simbox-ssh';
import { EngineInstaller } from '../../src/core/engines/engine-installer';
import { prefetchModel, type PrefetchProgress } from '../../src/core/engines/model-prefetch';
import { runEngine } from '../../src/cli/commands/engine';
import { createCore, type Core } from '../../src/core/create-core';
import { EVENTS, ServelabError, type EventMessage } from '../../src/shared/contract';

const TOKEN = 'hf_IntegrationTokenValue_9f8e7d6c5b4a3210';
const GATED = 'meta-llama/Llama-3.1-8B-Instruct';

let lab: SimboxOverSsh;
// Everything this test saw come back from the box or the core, to search for the token at the end.
let captured = '';

beforeAll(async () => {
  lab = await startSimboxOverSsh({ hostId: 'prefetch-it' });
  const installed = await new EngineInstaller(lab.box).install('vllm', '0.11.0');
  expect(installed.ok, installed.message).toBe(true);
}, 60_000);

afterAll(async () => {
  await lab?.stop();
});

/** Every regular file under a folder, with its text. */
async function filesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const out: { path: string; text: string }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else if (entry.isFile()) out.push({ path, text: await readFile(path, 'latin1') });
  }
  return out;
}

const snapshotsOf = (repo: string) => join(lab.sshd.homeDir, '.cache', 'huggingface', 'hub', `models--${repo.replace('/', '--')}`, 'snapshots');

describe('model prefetch', () => {
  it('downloads Qwen/Qwen3-8B into the HF cache with progress, then finds it cached', async () => {
    const progress: PrefetchProgress[] = [];
    const first = await prefetchModel(lab.box, { engine: 'vllm', version: '0.11.0', model: 'Qwen/Qwen3-8B', onProgress: (p) => progress.push(p), onLog: (t) => (captured += t) });
    expect(first).toMatchObject({ ok: true, skipped: false });
    expect(first.downloaded).toBe(first.files);
    expect(first.localPath).toBe(join(snapshotsOf('Qwen/Qwen3-8B'), first.revision ?? ''));
    const files = await readdir(first.localPath);
    expect(files).toHaveLength(first.files);
    expect(files).toEqual(expect.arrayContaining(['config.json', 'model-00001-of-00005.safetensors', 'model.safetensors.index.json']));
    expect(progress[0]).toMatchObject({ done: 0, total: first.files });
    expect(progress.at(-1)).toMatchObject({ done: first.files, total: first.files });

    const second = await prefetchModel(lab.box, { engine: 'vllm', version: '0.11.0', model: 'Qwen/Qwen3-8B', onLog: (t) => (captured += t) });
    expect(second).toMatchObject({ ok: true, skipped: true, downloaded: 0, files: first.files, localPath: first.localPath, revision: first.revision });
    expect(second.message).toContain('already in the cache');
  }, 60_000);

  it('skips a path on the box at once', async () => {
    const result = await prefetchModel(lab.box, { engine: 'vllm', version: '0.11.0', model: `${lab.sshd.homeDir}/.servelab` });
    expect(result).toMatchObject({ ok: true, skipped: true, revision: null });
  });

  it('fails a gated model without a token as gated-model, and an unknown repo clearly', async () => {
    const gated = await prefetchModel(lab.box, { engine: 'vllm', version: '0.11.0', model: GATED }).catch((e: unknown) => e);
    expect(gated).toBeInstanceOf(ServelabError);
    expect((gated as ServelabError).code).toBe('REMOTE_COMMAND_FAILED');
    expect((gated as ServelabError).details).toMatchObject({ classification: 'gated-model' });
    expect((gated as ServelabError).message).toContain(`Could not download ${GATED}`);
    expect((gated as ServelabError).message).toContain('is a gated model');

    const unknown = await prefetchModel(lab.box, { engine: 'vllm', version: '0.11.0', model: 'nobody/no-such-model' }).catch((e: unknown) => e);
    expect((unknown as ServelabError).message).toContain('RepositoryNotFoundError: 401 Client Error.');
    expect((unknown as ServelabError).message).toContain('Hugging Face shows no repo nobody/no-such-model to this request. Check the model id for typos');
    await expect(stat(snapshotsOf(GATED))).rejects.toThrow();
  }, 60_000);

  it('downloads the gated model with the token from HF_TOKEN through `servelab engine prefetch --host`', async () => {
    let out = '';
    let err = '';
    const code = await runEngine(
      ['prefetch', 'vllm', '0.11.0', '--model', GATED, '--host', `${lab.sshd.user}@${lab.sshd.host}`, '-p', String(lab.sshd.port), '-i', lab.sshd.identityFile, '--known-hosts', join(lab.scratch, 'known_hosts'), '--ssh-config', join(lab.scratch, 'no-ssh-config')],
      { stdout: (t) => (out += t), stderr: (t) => (err += t), env: { ...process.env, SERVELAB_DATA_DIR: lab.scratch, HF_TOKEN: TOKEN }, cwd: lab.scratch },
    );
    captured += out + err;
    expect(code, err).toBe(0);
    expect(out).toMatch(/downloaded \d+ of \d+ files into /);
    expect(err).toContain('SERVELAB_PREFETCH_DONE');
    expect((await readdir(snapshotsOf(GATED))).length).toBe(1);
  }, 60_000);

  it('prefetches through the core with the token stored as the hf-token secret; events follow the contract', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'servelab-prefetch-core-'));
    const events: EventMessage[] = [];
    let core: Core | undefined;
    try {
      core = await createCore({ dataDir, appKnownHostsFile: join(lab.scratch, 'known_hosts'), userKnownHostsFiles: [], sshConfigPath: join(lab.scratch, 'no-ssh-config') });
      core.events.subscribe((m) => {
        expect(EVENTS[m.name].safeParse(m.payload).success, JSON.stringify(m)).toBe(true);
        events.push(m);
      });
      const host = (await core.call('hosts:add', { address: lab.sshd.host, port: lab.sshd.port, user: lab.sshd.user, identityFile: lab.sshd.identityFile })) as { id: string };
      const done = (jobId: string) =>
        expect.poll(() => events.find((e) => e.name === 'models:done' && e.payload.jobId === jobId)?.payload, { timeout: 30_000 }).toBeTruthy();

      // Without the secret the gated model is refused, as models:done.
      const denied = (await core.call('models:prefetch', { hostId: host.id, engine: 'vllm', version: '0.11.0', model: 'meta-llama/Llama-3.1-70B-Instruct' })) as { jobId: string };
      await done(denied.jobId);
      expect(events.find((e) => e.name === 'models:done' && e.payload.jobId === denied.jobId)?.payload).toMatchObject({ ok: false, message: expect.stringContaining('gated model') });

      // A named secret that is not stored fails the call itself.
      await expect(core.call('models:prefetch', { hostId: host.id, engine: 'vllm', version: '0.11.0', model: 'meta-llama/Llama-3.1-70B-Instruct', hfTokenRef: 'other-token' })).rejects.toMatchObject({ code: 'NOT_FOUND' });

      expect(await core.call('secrets:set', { ref: 'hf-token', value: TOKEN })).toMatchObject({ ref: 'hf-token' });
      expect(await core.call('secrets:list', {})).toEqual([{ ref: 'hf-token', setAt: expect.any(String) }]);
      const allowed = (await core.call('models:prefetch', { hostId: host.id, engine: 'vllm', version: '0.11.0', model: 'meta-llama/Llama-3.1-70B-Instruct' })) as { jobId: string };
      await done(allowed.jobId);
      const ok = events.find((e) => e.name === 'models:done' && e.payload.jobId === allowed.jobId)?.payload as { ok: boolean; message: string; localPath?: string };
      expect(ok.ok, ok.message).toBe(true);
      expect(ok.localPath).toContain(snapshotsOf('meta-llama/Llama-3.1-70B-Instruct'));
      const progress = events.filter((e) => e.name === 'models:progress' && e.payload.jobId === allowed.jobId).map((e) => e.payload as { done: number; total: number });
      expect(progress.at(-1)?.done).toBe(progress.at(-1)?.total);
      expect(progress.length).toBeGreaterThan(2);

      captured += JSON.stringify(events);
      // The app's own data: hosts, jobs registry, the index of secret names.
      const local = await filesUnder(dataDir);
      expect(local.map((f) => f.path)).toEqual(expect.arrayContaining([join(dataDir, 'secret-refs.json'), join(dataDir, 'jobs.json')]));
      for (const file of local) expect(file.text.includes(TOKEN), file.path).toBe(false);
    } finally {
      await core?.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 90_000);

  it('prefetches on the demo lab with `servelab engine prefetch --demo`, reporting a path argument as skipped', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'servelab-prefetch-demo-'));
    const run = async (args: string[]) => {
      let out = '';
      let err = '';
      const code = await runEngine([...args, '--demo'], { stdout: (t) => (out += t), stderr: (t) => (err += t), env: { ...process.env, SERVELAB_DATA_DIR: dataDir, HF_TOKEN: '' }, cwd: dataDir });
      captured += out + err;
      return { code, out, err };
    };
    try {
      const installed = await run(['install', 'vllm', '0.11.0']);
      expect(installed.code, installed.err).toBe(0);
      const first = await run(['prefetch', 'vllm', '0.11.0', '--model', 'Qwen/Qwen3-0.6B', '--json']);
      expect(first.code, first.err).toBe(0);
      const result = JSON.parse(first.out) as { skipped: boolean; localPath: string; files: number };
      expect(result.skipped).toBe(false);
      expect(result.localPath.startsWith(join(dataDir, 'demo-lab', 'home', '.cache', 'huggingface', 'hub', 'models--Qwen--Qwen3-0.6B', 'snapshots'))).toBe(true);
      expect((await readdir(result.localPath)).length).toBe(result.files);
      const path = await run(['prefetch', 'vllm', '0.11.0', '--model', result.localPath]);
      expect(path.code, path.err).toBe(0);
      expect(path.out).toContain('is a path on the box; nothing to download');
      const gated = await run(['prefetch', 'vllm', '0.11.0', '--model', GATED]);
      expect(gated.code).toBe(1);
      expect(gated.err).toContain('is a gated model');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('left the token in no file under ~/.servelab on the box (job commands, logs, records) and in nothing captured', async () => {
    const files = await filesUnder(join(lab.sshd.homeDir, '.servelab'));
    // The search covered the jobs that had the token: their command files and logs are there.
    const commands = files.filter((f) => f.path.endsWith('/command') && f.text.includes('servelab-prefetch'));
    expect(commands.length).toBeGreaterThanOrEqual(3);
    expect(files.some((f) => f.text.includes('SERVELAB_PREFETCH_DONE'))).toBe(true);
    for (const file of files) expect(file.text.includes(TOKEN), file.path).toBe(false);
    expect(captured).toContain('SERVELAB_PREFETCH');
    expect(captured.includes(TOKEN)).toBe(false);
  });
});
