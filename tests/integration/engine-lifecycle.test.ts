// Engines over a real sshd with the simulated GPU box on the test user's PATH: side-by-side installs, launch until
// ready, stop with the port and GPU memory checked, failures classified and cleaned up.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestSshd } from '../helpers/sshd';
import { startSimboxOverSsh, type SimboxOverSsh } from '../helpers/simbox-ssh';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import type { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { EngineInstaller } from '../../src/core/engines/engine-installer';
import { launchServer, readServerRecord, stopRecordedServer } from '../../src/core/engines/server-launcher';
import type { InstallPhase } from '../../src/core/engines/install-progress';
import { ServelabError } from '../../src/shared/contract';
import { runEngine } from '../../src/cli/commands/engine';

let lab: SimboxOverSsh;
let sshd: TestSshd;
let scratch: string;
let box: SshBoxTransport;

const simbox = (args: string) => lab.simbox(args);

async function gpuMemoryUsed(): Promise<number> {
  const result = await box.run('nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits\n', { timeoutSeconds: 30 });
  // The login profile prints a greeting first: take the numeric line.
  return Number(result.stdout.split('\n').find((l) => /^\d+$/.test(l.trim())));
}

beforeAll(async () => {
  lab = await startSimboxOverSsh({ hostId: 'engines-it' });
  ({ sshd, box, scratch } = lab);
  // The CLI below checks host keys against this file.
  const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
  await new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] }).add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
}, 30_000);

afterAll(async () => {
  await lab?.stop();
});

describe('engine installs', () => {
  it('installs vLLM 0.11.0 and SGLang 0.5.3.post3 side by side, verified, and skips a re-install', async () => {
    const installer = new EngineInstaller(box);
    const phases: InstallPhase[] = [];
    let log = '';
    const vllm = await installer.install('vllm', '0.11.0', { onProgress: (p) => phases.push(p.phase), onLog: (t) => (log += t) });
    expect(vllm, vllm.message).toMatchObject({ ok: true, skipped: false });
    expect(phases).toEqual(expect.arrayContaining(['environment', 'resolving', 'installing', 'verifying', 'done']));
    expect(log).toMatch(/Installed \d+ packages/);

    const sglang = await installer.install('sglang', '0.5.3.post3');
    expect(sglang, sglang.message).toMatchObject({ ok: true, skipped: false });

    const listed = await installer.list();
    expect(listed.map((e) => `${e.engine}@${e.version}:${e.verifiedVersion}`)).toEqual(['sglang@0.5.3.post3:0.5.3.post3', 'vllm@0.11.0:0.11.0']);
    expect(listed[1]?.dir).toBe(`${sshd.homeDir}/.servelab/engines/vllm-0.11.0`);

    const again = await installer.install('vllm', '0.11.0');
    expect(again).toMatchObject({ ok: true, skipped: true });
    expect(again.message).toMatch(/already installed/);
  }, 30_000);

  it('lists them with `servelab engine list --host` over SSH', async () => {
    let out = '';
    let err = '';
    const code = await runEngine(
      ['list', '--json', '--host', `${sshd.user}@${sshd.host}`, '-p', String(sshd.port), '-i', sshd.identityFile, '--known-hosts', join(scratch, 'known_hosts'), '--ssh-config', join(scratch, 'no-ssh-config')],
      { stdout: (t) => (out += t), stderr: (t) => (err += t), env: { ...process.env, SERVELAB_DATA_DIR: scratch }, cwd: scratch },
    );
    expect(code, err).toBe(0);
    expect((JSON.parse(out) as { engine: string }[]).map((e) => e.engine)).toEqual(['sglang', 'vllm']);
  });

  it('refuses versions that are not version numbers and removes only engine folders', async () => {
    const installer = new EngineInstaller(box);
    await expect(installer.install('vllm', '../../etc')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(installer.remove('vllm', '9.9.9')).resolves.toMatchObject({ removed: false });
  });
});

describe('server lifecycle', () => {
  it('launches vLLM, waits for ready, answers /v1/models, stops with the port closed and GPU memory back', async () => {
    const before = await gpuMemoryUsed();
    const states: string[] = [];
    let log = '';
    const server = await launchServer(box, {
      engine: 'vllm',
      version: '0.11.0',
      config: { model: 'Qwen/Qwen3-0.6B', gpuMemoryFraction: 0.5 },
      gpus: ['0'],
      onLog: (t) => (log += t),
      onState: (s) => states.push(s),
    });
    try {
      await server.waitReady(30_000);
      expect(log).toContain('Application startup complete.');
      expect(await gpuMemoryUsed()).toBeGreaterThan(before);

      const models = await box.httpRequest(server.port, { path: '/v1/models', timeoutMs: 5000 });
      expect(models.status).toBe(200);
      expect(JSON.parse(models.body).data[0].id).toBe('Qwen/Qwen3-0.6B');
      expect(server.record.command).toContain('CUDA_VISIBLE_DEVICES=0');
    } catch (error) {
      await server.stop();
      throw error;
    }

    const report = await server.stop();
    expect(report).toMatchObject({ portClosed: true, gpuMemoryReleased: true, leftovers: [] });
    expect(await gpuMemoryUsed()).toBe(before);
    expect(states).toEqual(['ready', 'stopping', 'stopped']);
  }, 30_000);

  it('stops a server from its record, as a later process would', async () => {
    const server = await launchServer(box, { engine: 'sglang', version: '0.5.3.post3', config: { model: 'Qwen/Qwen3-0.6B' } });
    await server.waitReady(30_000);
    const record = await readServerRecord(box, server.serverId);
    expect(record.port).toBe(server.port);
    const report = await stopRecordedServer(box, record);
    expect(report).toMatchObject({ portClosed: true, gpuMemoryReleased: true, leftovers: [] });
  }, 30_000);

  it('classifies an OOM at startup and cleans up', async () => {
    await simbox('fault oom on');
    try {
      const states: string[] = [];
      const server = await launchServer(box, { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-8B' }, onState: (s) => states.push(s) });
      const error = await server.waitReady(30_000).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ServelabError);
      expect((error as ServelabError).details?.classification).toBe('oom');
      expect(server.classification?.class).toBe('oom');
      expect(states).toContain('failed');
      const report = await server.stop();
      expect(report).toMatchObject({ portClosed: true, gpuMemoryReleased: true, leftovers: [] });
    } finally {
      await simbox('fault oom off');
    }
  }, 30_000);

  it('confirms a healthy server at once, and waits to see a crashed one end so its cause is named', async () => {
    await simbox('fault crash-after on 2');
    try {
      const server = await launchServer(box, { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-0.6B' } });
      try {
        await server.waitReady(30_000);
        expect(await server.confirmServing()).toBe(true);
        const complete = () =>
          box
            .httpRequest(server.port, { method: 'POST', path: '/v1/completions', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'Qwen/Qwen3-0.6B', prompt: 'hi', max_tokens: 4 }), timeoutMs: 10_000 })
            .catch((error: unknown) => error);
        await Promise.all([complete(), complete()]);
        // Asked right after the failures, before the log stream has necessarily reported the end.
        expect(await server.confirmServing()).toBe(false);
        expect(server.state).toBe('failed');
        expect(server.classification?.evidence).toMatch(/illegal memory access|EngineDead/);
      } finally {
        await server.stop();
      }
    } finally {
      await simbox('fault crash-after off');
    }
  }, 60_000);

  it('classifies TensorRT-LLM with an FP8 checkpoint on an A100 as unsupported-sm-fp8', async () => {
    await simbox('config --gpu a100 --count 1');
    try {
      const installed = await new EngineInstaller(box).install('trtllm', '1.2.0rc1');
      expect(installed, installed.message).toMatchObject({ ok: true });
      const server = await launchServer(box, { engine: 'trtllm', version: '1.2.0rc1', config: { model: 'Qwen/Qwen3-8B-FP8' } });
      await expect(server.waitReady(30_000)).rejects.toMatchObject({ details: { classification: 'unsupported-sm-fp8' } });
      const report = await server.stop();
      expect(report.leftovers).toEqual([]);
    } finally {
      await simbox('config --gpu h100 --count 1');
    }
  }, 30_000);

  it('rejects an unknown flag in the extra args before anything starts', async () => {
    const jobsBefore = (await box.run('ls ~/.servelab/jobs | wc -l\n', { timeoutSeconds: 30 })).stdout.trim();
    await expect(
      launchServer(box, { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-0.6B', extraArgs: ['--no-such-flag', '1'] } }),
    ).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringContaining('--no-such-flag') });
    expect((await box.run('ls ~/.servelab/jobs | wc -l\n', { timeoutSeconds: 30 })).stdout.trim()).toBe(jobsBefore);
  });
});
