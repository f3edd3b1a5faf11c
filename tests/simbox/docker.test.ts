// The simulated docker: off unless the box says so, then pull / images / inspect / run / ps / top / stop / rm of the
// engines' official images, with the container's server listed by nvidia-smi like a real one.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, get, makeBox, simboxBin, type Box } from './helpers';

let box: Box;
afterEach(() => {
  // A container is its own session: end any a failed test left behind.
  const left = box?.run('docker', ['ps', '-q']);
  for (const c of left?.stdout.split('\n').filter(Boolean) ?? []) box.run('docker', ['rm', '-f', c]);
  box?.cleanup();
});

function computePids(b: Box): number[] {
  const r = b.run('nvidia-smi', ['--query-compute-apps=pid', '--format=csv,noheader']);
  return r.stdout
    .split('\n')
    .filter((l) => /^\d+$/.test(l.trim()))
    .map(Number);
}

describe('simbox docker', () => {
  it('is absent by default: `none` exits 127, `off` hands over to a real docker later on PATH', () => {
    box = makeBox();
    const none = box.run('docker', ['version'], { env: { SERVELAB_SIMBOX_DOCKER: 'none' } });
    expect(none.code).toBe(127);
    expect(none.stderr).toContain('docker: command not found');
    // A stand-in for the machine's docker, after the simbox on PATH.
    const realDir = mkdtempSync(join(tmpdir(), 'real-docker-'));
    writeFileSync(join(realDir, 'docker'), '#!/bin/sh\necho "real docker $*"\nexit 3\n', { mode: 0o755 });
    try {
      const off = box.run('docker', ['version'], { env: { PATH: `${simboxBin}:${realDir}:/usr/bin:/bin` } });
      expect(off).toMatchObject({ code: 3, stdout: 'real docker version\n' });
      const offNoReal = box.run('docker', ['version'], { env: { PATH: `${simboxBin}:/usr/bin:/bin` } });
      expect(offNoReal.code).toBe(127);
    } finally {
      rmSync(realDir, { recursive: true, force: true });
    }
  });

  it('is switched on by `simbox config --docker on`; pull prints docker progress, images and inspect find the image', () => {
    box = makeBox();
    expect(box.run('simbox', ['config', '--docker', 'on']).stdout).toMatch(/docker: simulated/);
    const version = box.run('docker', ['version', '--format', '{{.Server.Version}}']);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\nSERVELAB-SIMULATED/);

    const missing = box.run('docker', ['pull', 'vllm/vllm-openai:v9.9.9']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error response from daemon: manifest for vllm/vllm-openai:v9.9.9 not found: manifest unknown\n');
    expect(box.run('docker', ['image', 'inspect', 'vllm/vllm-openai:v0.11.0']).code).toBe(1);

    const pull = box.run('docker', ['pull', 'vllm/vllm-openai:v0.11.0']);
    expect(pull.code).toBe(0);
    const lines = pull.stdout.trim().split('\n');
    expect(lines[0]).toBe('v0.11.0: Pulling from vllm/vllm-openai');
    expect(lines.filter((l) => /^[0-9a-f]{12}: Pull complete$/.test(l))).toHaveLength(lines.filter((l) => /: Pulling fs layer$/.test(l)).length);
    expect(lines.slice(-3)).toEqual(['Status: Downloaded newer image for vllm/vllm-openai:v0.11.0', 'docker.io/vllm/vllm-openai:v0.11.0', expect.stringMatching(/^SERVELAB-SIMULATED/)]);
    expect(box.run('docker', ['pull', 'vllm/vllm-openai:v0.11.0']).stdout).toContain('Status: Image is up to date for vllm/vllm-openai:v0.11.0');

    expect(box.run('docker', ['images', '--format', '{{.Repository}}:{{.Tag}}']).stdout.split('\n')[0]).toBe('vllm/vllm-openai:v0.11.0');
    const inspect = box.run('docker', ['image', 'inspect', '--format', '{{.Id}}', 'vllm/vllm-openai:v0.11.0']);
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
  });

  it('runs the image as a container: GPUs from --gpus, the server on the published port, listed by nvidia-smi, top, then stop', async () => {
    box = makeBox({ count: 2 });
    box.run('simbox', ['config', '--docker', 'on']);
    expect(box.run('docker', ['pull', 'lmsysorg/sglang:v0.5.3.post3']).code).toBe(0);
    const port = await freePort();
    const run = box.start('docker', [
      'run', '--rm', '--name', 'servelab-t1', '--gpus', '"device=1"', '--shm-size', '32g', '--ipc=host', '-p', `127.0.0.1:${port}:${port}`,
      '--env', 'HF_TOKEN', 'lmsysorg/sglang:v0.5.3.post3',
      'python3', '-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--host', '0.0.0.0', '--port', String(port),
    ]);
    await run.waitFor('The server is fired up and ready to roll!');
    expect(run.output()).toContain('SERVELAB-SIMULATED');
    expect((await get(port, '/health')).status).toBe(200);

    const ps = box.run('docker', ['ps', '-a', '--filter', 'name=^/servelab-t1$', '--format', '{{.Names}}\t{{.Status}}']);
    expect(ps.stdout).toMatch(/^servelab-t1\tUp \d+ seconds?\n/);
    const top = box.run('docker', ['top', 'servelab-t1', '-eo', 'pid']);
    const containerPids = top.stdout.split('\n').filter((l) => /^\s*\d+$/.test(l)).map(Number);
    expect(containerPids.length).toBeGreaterThan(0);
    // The server holds memory on GPU 1 only (device=1), under a pid docker top reports.
    const apps = box.run('nvidia-smi', ['--query-compute-apps=pid,gpu_bus_id', '--format=csv,noheader']).stdout;
    expect(apps).toMatch(/00000000:00:07\.0/);
    expect(apps).not.toMatch(/00000000:00:06\.0/);
    expect(computePids(box).every((p) => containerPids.includes(p))).toBe(true);

    const stop = box.run('docker', ['stop', '-t', '5', 'servelab-t1']);
    expect(stop).toMatchObject({ code: 0, stdout: 'servelab-t1\n' });
    expect(await run.exited).toBe(0);
    expect(computePids(box)).toEqual([]);
    expect(box.run('docker', ['ps', '-a', '--filter', 'name=^/servelab-t1$', '--format', '{{.Names}}']).stdout).not.toContain('servelab-t1');
    expect((await get(port, '/health')).status).toBe(-1);
  });

  it('passes the vLLM image its arguments only, refuses other port mappings and name conflicts, and kills with rm -f', async () => {
    box = makeBox();
    box.run('simbox', ['config', '--docker', 'on']);
    const port = await freePort();
    const other = box.run('docker', ['run', '--rm', '-p', `127.0.0.1:${port + 1}:${port}`, 'vllm/vllm-openai:v0.11.0', '--model', 'Qwen/Qwen3-8B']);
    expect(other.code).toBe(125);
    expect(other.stderr).toMatch(/only same-port mappings/);

    // Not pulled yet: docker run pulls it first, as the real one does.
    const run = box.start('docker', ['run', '--name', 'keep', '--gpus', 'all', '-p', `${port}:${port}`, 'vllm/vllm-openai:v0.11.0', '--model', 'Qwen/Qwen3-8B', '--host', '0.0.0.0', '--port', String(port)]);
    await run.waitFor('Application startup complete.');
    expect(run.output()).toContain("Unable to find image 'vllm/vllm-openai:v0.11.0' locally");
    const again = box.run('docker', ['run', '--name', 'keep', 'vllm/vllm-openai:v0.11.0', '--model', 'Qwen/Qwen3-8B']);
    expect(again.code).toBe(125);
    expect(again.stderr).toMatch(/The container name "\/keep" is already in use/);
    expect(box.run('docker', ['rm', 'keep']).stderr).toMatch(/container is running: stop the container before removing or force remove/);
    expect(box.run('docker', ['rm', '-f', 'keep']).code).toBe(0);
    await run.exited;
    expect(computePids(box)).toEqual([]);
    expect(box.run('docker', ['ps', '-a', '--format', '{{.Names}}']).stdout).not.toContain('keep');

    const wrong = box.run('docker', ['run', '--rm', 'vllm/vllm-openai:v0.11.0', 'vllm', 'serve', 'Qwen/Qwen3-8B']);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout + wrong.stderr).toMatch(/unrecognized arguments/);
  });

  it('a container without --gpus sees no GPU, and a stopped one without --rm stays listed as exited', async () => {
    box = makeBox();
    box.run('simbox', ['config', '--docker', 'on']);
    box.run('docker', ['pull', 'nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc1']);
    const run = box.run('docker', ['run', '--name', 'nogpu', 'nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc1', 'trtllm-serve', 'Qwen/Qwen3-8B']);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toMatch(/No CUDA GPUs are available/);
    expect(box.run('docker', ['ps', '-a', '--format', '{{.Names}} {{.Status}}']).stdout).toMatch(/^nogpu Exited \(1\)/);
    expect(box.run('docker', ['ps', '--format', '{{.Names}}']).stdout).not.toContain('nogpu');
  });
});
