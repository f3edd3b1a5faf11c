// Docker mode over a real sshd with the simulated GPU box (its docker switched on or off): pull the official image,
// launch the server in a container until ready, stop it with the port, GPU memory and container checked; a box
// without docker and the demo lab refuse docker mode with a clear error.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFile, cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'ssh2';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { repoRoot } from '../helpers/repo';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import type { SshTarget } from '../../src/core/ssh/ssh-target';
import { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { EngineInstaller } from '../../src/core/engines/engine-installer';
import { launchServer, readServerRecord, stopRecordedServer } from '../../src/core/engines/server-launcher';
import type { InstallPhase } from '../../src/core/engines/install-progress';
import { boxFacts } from '../../src/core/engines/engine-box';
import { createCore } from '../../src/core/create-core';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { DEMO_LAB_HOST_ID } from '../../src/shared/model/host';
import { runEngine } from '../../src/cli/commands/engine';
import { runCaptured } from '../helpers/cli';

let sshd: TestSshd;
let scratch: string;
let knownHosts: KnownHostsStore;
const clients: Client[] = [];
const boxes: SshBoxTransport[] = [];

/** A fresh transport: box facts (docker or not) are read once per box object. */
function newBox(): SshBoxTransport {
  const target: SshTarget = { host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile };
  let opening: Promise<Client> | undefined;
  const box = new SshBoxTransport({
    hostId: 'engine-docker-it',
    target,
    pool: {
      provider: () => async () => {
        opening ??= openSshClient(target, { knownHosts, timeoutSeconds: 10 }).then((c) => {
          clients.push(c);
          return c;
        });
        return opening;
      },
      release: () => {},
    },
  });
  boxes.push(box);
  return box;
}

async function run(box: SshBoxTransport, script: string): Promise<string> {
  const result = await box.run(`${script}\n`, { timeoutSeconds: 30 });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

async function gpuMemoryUsed(box: SshBoxTransport): Promise<number> {
  const out = await run(box, 'nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits');
  // Every GPU's line, summed (the login profile may print a greeting first).
  return out
    .split('\n')
    .filter((l) => /^\d+$/.test(l.trim()))
    .reduce((sum, l) => sum + Number(l), 0);
}

beforeAll(async () => {
  sshd = await startTestSshd({ nvidiaSmi: false });
  scratch = await mkdtemp(join(tmpdir(), 'servelab-engine-docker-it-'));
  await cp(join(repoRoot, 'resources', 'simbox'), join(sshd.homeDir, 'simbox'), { recursive: true });
  // The simulated engines read their flag tables from beside the simbox, as in the packaged app.
  await cp(join(repoRoot, 'resources', 'engine-flags'), join(sshd.homeDir, 'engine-flags'), { recursive: true });
  await appendFile(
    join(sshd.homeDir, '.profile'),
    'PATH="$HOME/simbox/bin:$PATH"\nexport SERVELAB_SIMBOX_HOME="$HOME/.servelab-simbox"\nexport SERVELAB_SIMBOX_TIME_SCALE=0.0005\n',
  );
  if (sshd.dedicatedUser) spawnSync('chown', ['-R', `${sshd.user}:`, sshd.homeDir]);
  knownHosts = new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] });
  const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
  await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
  await run(newBox(), 'simbox config --gpu h100 --count 2');
}, 30_000);

afterAll(async () => {
  // A test that failed half-way may leave a container running: remove them all.
  if (boxes[0]) await boxes[0].run('for c in $(SERVELAB_SIMBOX_DOCKER=on docker ps -q); do SERVELAB_SIMBOX_DOCKER=on docker rm -f "$c"; done\n', { timeoutSeconds: 30 }).catch(() => {});
  for (const box of boxes) box.release();
  for (const client of clients) client.end();
  await sshd?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('a box without docker', () => {
  it('has no docker in its facts, and refuses docker installs and launches with what to do', async () => {
    const setup = newBox();
    await run(setup, 'simbox config --docker none');
    const box = newBox();
    expect((await boxFacts(box)).hasDocker).toBe(false);
    await expect(new EngineInstaller(box).install('vllm', '0.11.0', { mode: 'docker' })).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
      message: expect.stringMatching(/no working docker .*Install docker with the NVIDIA container toolkit/),
    });
    await expect(launchServer(box, { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-0.6B' }, mode: 'docker' })).rejects.toMatchObject({
      code: 'NOT_SUPPORTED',
      message: expect.stringMatching(/cannot run vLLM in docker/),
    });
    // The environment mode still lists (nothing), with no docker entries.
    expect(await new EngineInstaller(box).list()).toEqual([]);
  }, 30_000);
});

describe('docker mode', () => {
  let box: SshBoxTransport;

  beforeAll(async () => {
    await run(newBox(), 'simbox config --docker on');
    box = newBox();
  }, 30_000);

  it('pulls the vLLM 0.11.0 image as a job with progress, verified and listed; a second install is skipped', async () => {
    expect((await boxFacts(box)).hasDocker).toBe(true);
    const installer = new EngineInstaller(box);
    const phases: InstallPhase[] = [];
    let log = '';
    const result = await installer.install('vllm', '0.11.0', { mode: 'docker', onProgress: (p) => phases.push(p.phase), onLog: (t) => (log += t) });
    expect(result, result.message).toMatchObject({ ok: true, skipped: false, env: { engine: 'vllm', version: '0.11.0', mode: 'docker', tool: 'docker', dir: 'vllm/vllm-openai:v0.11.0' } });
    expect(result.jobId).toBeTruthy();
    expect(log).toContain('Status: Downloaded newer image for vllm/vllm-openai:v0.11.0');
    expect(phases).toEqual(['resolving', ...phases.slice(1, -2).map(() => 'downloading'), 'verifying', 'done']);
    expect(phases.length).toBeGreaterThan(4);

    expect(await installer.list()).toEqual([expect.objectContaining({ engine: 'vllm', version: '0.11.0', mode: 'docker' })]);
    const again = await installer.install('vllm', '0.11.0', { mode: 'docker' });
    expect(again).toMatchObject({ ok: true, skipped: true });
  }, 30_000);

  it('fails a pull of an image tag that does not exist with docker\'s message', async () => {
    const result = await new EngineInstaller(box).install('vllm', '0.0.1', { mode: 'docker' });
    expect(result.ok).toBe(false);
    expect(result.message).toContain('manifest for vllm/vllm-openai:v0.0.1 not found: manifest unknown');
  }, 30_000);

  it('refuses to launch an image that is not pulled', async () => {
    await expect(launchServer(box, { engine: 'sglang', version: '0.5.3.post3', config: { model: 'Qwen/Qwen3-0.6B' }, mode: 'docker' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/image is not on this box; pull it first \(servelab engine install sglang 0.5.3.post3 --docker\)/),
    });
  });

  it('launches vLLM in a container until ready, then stops it: port closed, GPU memory back, container gone', async () => {
    const before = await gpuMemoryUsed(box);
    const states: string[] = [];
    let log = '';
    const server = await launchServer(box, {
      engine: 'vllm',
      version: '0.11.0',
      config: { model: 'meta-llama/Llama-3.1-8B-Instruct', gpuMemoryFraction: 0.5, env: { HF_TOKEN: { secretRef: 'hf' }, VLLM_LOGGING_LEVEL: 'INFO' } },
      gpus: ['1'],
      mode: 'docker',
      resolveSecret: async (ref) => (ref === 'hf' ? 'hf_secret_value_123' : null),
      onLog: (t) => (log += t),
      onState: (s) => states.push(s),
    });
    const container = `servelab-${server.serverId}`;
    try {
      await server.waitReady(30_000);
      expect(log).toContain('Application startup complete.');
      expect(server.record).toMatchObject({ mode: 'docker', container });
      // Run as the box user, with plain values off the argv too: `--env NAME` copies them from docker's environment.
      const uid = (await run(box, 'printf "%s:%s" "$(id -u)" "$(id -g)"')).trim().split('\n').pop() as string;
      expect(server.record.command).toMatch(
        new RegExp(`^VLLM_LOGGING_LEVEL=INFO docker run --rm --name servelab-srv-\\S+ --user ${uid} --gpus '"device=1"' --ipc=host -p 127\\.0\\.0\\.1:\\d+:\\d+ -v \\S+/\\.cache/huggingface:/servelab-hf --env HF_HOME=/servelab-hf --env HOME=/tmp --env USER=servelab --env LOGNAME=servelab -v (\\S+/hf-token):\\1:ro --env HF_TOKEN_PATH=\\1 --env VLLM_LOGGING_LEVEL vllm/vllm-openai:v0\\.11\\.0 --model meta-llama/Llama-3\\.1-8B-Instruct `),
      );
      // The token is no variable of the container (docker keeps those in its config for the docker group): a file
      // only the box user reads, named by HF_TOKEN_PATH, in the server's folder.
      expect(server.record.command).not.toMatch(/--env HF_TOKEN( |$)/);
      const tokenFile = `$HOME/.servelab/servers/${server.serverId}/hf-token`;
      expect((await run(box, `stat -c %a "${tokenFile}"`)).trim().split('\n').pop()).toBe('600');
      expect((await run(box, `cat "${tokenFile}"`)).trim().split('\n').pop()).toBe('hf_secret_value_123');
      expect(server.record.argv).not.toContain('VLLM_LOGGING_LEVEL=INFO');
      // The gated model loaded, so the token reached the container; its value is nowhere in the command or the record.
      expect(server.record.command).not.toContain('hf_secret_value_123');
      expect(await run(box, `cat "$HOME/.servelab/servers/${server.serverId}/server.json"`)).not.toContain('hf_secret_value_123');
      expect(await gpuMemoryUsed(box)).toBeGreaterThan(before);
      const apps = await run(box, 'nvidia-smi --query-compute-apps=pid,gpu_bus_id --format=csv,noheader');
      expect(apps).toMatch(/00000000:00:07\.0/);
      expect(await run(box, `docker ps --format '{{.Names}}'`)).toContain(container);

      const models = await box.httpRequest(server.port, { path: '/v1/models', timeoutMs: 5000 });
      expect(models.status).toBe(200);
      expect(JSON.parse(models.body).data[0].id).toBe('meta-llama/Llama-3.1-8B-Instruct');
    } catch (error) {
      await server.stop();
      throw error;
    }

    const report = await server.stop();
    expect(report).toMatchObject({ portClosed: true, gpuMemoryReleased: true, leftovers: [], signal: 'TERM' });
    expect(await gpuMemoryUsed(box)).toBe(before);
    expect(await run(box, `test -e "$HOME/.servelab/servers/${server.serverId}/hf-token" && echo kept || echo removed`)).toContain('removed');
    expect(await run(box, `docker ps -a --format '{{.Names}}'`)).not.toContain(container);
    expect(states).toEqual(['ready', 'stopping', 'stopped']);
  }, 60_000);

  it('stops a container from its record, and reports a container that outlived its stop', async () => {
    const server = await launchServer(box, { engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-0.6B' }, mode: 'docker' });
    await server.waitReady(30_000);
    const record = await readServerRecord(box, server.serverId);
    expect(record).toMatchObject({ mode: 'docker', container: `servelab-${server.serverId}` });
    const report = await stopRecordedServer(box, record);
    expect(report).toMatchObject({ portClosed: true, gpuMemoryReleased: true, leftovers: [] });

    // A container left behind under the same name (as after a daemon hiccup) is reported, never ignored.
    const port = Number((await run(box, `python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"`)).trim().split('\n').pop());
    const stale = await box.jobs().start({
      command: ['sh', '-lc', `exec docker run --name ${record.container} --gpus all -p 127.0.0.1:${port}:${port} vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-0.6B --host 0.0.0.0 --port ${port}`],
      label: 'stale container',
    });
    try {
      await expect.poll(async () => (await box.httpRequest(port, { path: '/health', timeoutMs: 2000 }).catch(() => ({ status: 0 }))).status, { timeout: 20_000 }).toBe(200);
      // `docker stop` ends it, but without --rm docker keeps listing it as exited.
      const leftover = await stopRecordedServer(box, { ...record, port });
      expect(leftover.portClosed).toBe(true);
      expect(leftover.leftovers).toEqual([expect.stringMatching(new RegExp(`^container ${record.container} is still listed by docker: Exited`))]);
    } finally {
      await run(box, `docker rm -f ${record.container} >/dev/null 2>&1 || :`);
      await stale.cancel({ graceSeconds: 1 }).catch(() => {});
    }
  }, 60_000);
});

describe('the demo lab', () => {
  it('refuses docker mode for installs and launches, since it has no docker of its own', async () => {
    const dataDir = join(scratch, 'demo-data');
    const core = await createCore({ dataDir, userKnownHostsFiles: [], env: { HOME: scratch, USER: 'tester' }, simboxBinDir: resolveSimboxBinDir() });
    try {
      for (const [name, input] of [
        ['engines:install', { hostId: DEMO_LAB_HOST_ID, engine: 'vllm', version: '0.11.0', mode: 'docker' }],
        ['servers:launch', { hostId: DEMO_LAB_HOST_ID, engine: 'vllm', version: '0.11.0', config: { model: 'Qwen/Qwen3-0.6B' }, mode: 'docker' }],
      ] as const) {
        const envelope = await core.dispatch(name, input);
        expect(envelope).toMatchObject({ ok: false, error: { code: 'BAD_INPUT', message: expect.stringMatching(/The demo lab has no docker/), issues: [{ path: 'mode' }] } });
      }
      // Its engine list shows no docker images, whatever docker the machine running it has.
      const listed = await core.dispatch('engines:list', { hostId: DEMO_LAB_HOST_ID });
      expect(listed).toMatchObject({ ok: true, data: [] });
    } finally {
      await core.close();
    }
  }, 60_000);

  it('is refused by `servelab engine … --demo --docker` too, and --docker applies to install and launch only', async () => {
    const env = { ...process.env, SERVELAB_DATA_DIR: join(scratch, 'cli-data') };
    const install = await runCaptured((io) => runEngine(['install', 'vllm', '0.11.0', '--demo', '--docker'], io), env, scratch);
    expect(install.code).toBe(1);
    expect(install.stderr).toMatch(/The demo lab has no docker/);
    const list = await runCaptured((io) => runEngine(['list', '--demo', '--docker'], io), env, scratch);
    expect(list.code).toBe(2);
    expect(list.stderr).toMatch(/--docker applies to install and launch only/);
  });
});
