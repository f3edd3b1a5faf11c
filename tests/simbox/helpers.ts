// Runs the simulated box's commands as a user would: a temp HOME and state folder, PATH = simbox bin + real PATH.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { repoRoot } from '../helpers/repo';
import { freePort } from '../helpers/processes';

export const simboxBin = join(repoRoot, 'resources', 'simbox', 'bin');

export interface Box {
  home: string;
  env: NodeJS.ProcessEnv;
  run(cmd: string, args: string[], opts?: { env?: NodeJS.ProcessEnv; pathPrefix?: string; cwd?: string; input?: string }): { code: number; stdout: string; stderr: string };
  start(cmd: string, args: string[], opts?: { env?: NodeJS.ProcessEnv; pathPrefix?: string }): Started;
  cleanup(): void;
}

export interface Started {
  child: ChildProcess;
  output: () => string;
  /** Resolves when `pattern` shows up in stdout+stderr; rejects if the process exits first or after timeoutMs. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** A fresh simulated box. timeScale: real-GPU seconds → wall seconds. */
export function makeBox(opts: { gpu?: string; count?: number; timeScale?: number } = {}): Box {
  const home = mkdtempSync(join(tmpdir(), 'simbox-test-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: home,
    SERVELAB_SIMBOX_HOME: join(home, '.servelab-simbox'),
    SERVELAB_SIMBOX_GPU: opts.gpu ?? 'h100',
    SERVELAB_SIMBOX_GPU_COUNT: String(opts.count ?? 1),
    SERVELAB_SIMBOX_TIME_SCALE: String(opts.timeScale ?? 0.001),
    PATH: `${simboxBin}:${process.env.PATH ?? ''}`,
  };
  delete env.VIRTUAL_ENV;
  delete env.CUDA_VISIBLE_DEVICES;
  delete env.SERVELAB_SIMBOX_FAULTS;
  const children: ChildProcess[] = [];
  const envFor = (o: { env?: NodeJS.ProcessEnv; pathPrefix?: string } = {}) => {
    const e = { ...env, ...(o.env ?? {}) };
    if (o.pathPrefix) e.PATH = `${o.pathPrefix}:${e.PATH}`;
    return e;
  };
  return {
    home,
    env,
    run(cmd, args, o = {}) {
      const r = spawnSync(cmd, args, { env: envFor(o), cwd: o.cwd ?? home, encoding: 'utf8', input: o.input, timeout: 60_000 });
      if (r.error) throw r.error;
      return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
    },
    start(cmd, args, o = {}) {
      const child = spawn(cmd, args, { env: envFor(o), cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      const listeners = new Set<() => void>();
      const onData = (d: Buffer) => {
        out += d.toString();
        for (const l of listeners) l();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      return {
        child,
        output: () => out,
        exited,
        waitFor(pattern, timeoutMs = 20_000) {
          const test = () => (typeof pattern === 'string' ? out.includes(pattern) : pattern.test(out));
          return new Promise<void>((resolve, reject) => {
            if (test()) return resolve();
            const timer = setTimeout(() => {
              listeners.delete(check);
              reject(new Error(`timed out waiting for ${pattern}; output:\n${out.slice(-3000)}`));
            }, timeoutMs);
            const check = () => {
              if (test()) {
                clearTimeout(timer);
                listeners.delete(check);
                resolve();
              }
            };
            listeners.add(check);
            void exited.then((code) => {
              if (!test()) {
                clearTimeout(timer);
                listeners.delete(check);
                reject(new Error(`exited (${code}) before ${pattern}; output:\n${out.slice(-3000)}`));
              }
            });
          });
        },
      };
    },
    cleanup() {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
      rmSync(home, { recursive: true, force: true });
    },
  };
}

export { freePort };

/** GET on 127.0.0.1; status -1 when the connection fails (refused or reset). */
export function get(port: number, path: string): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', () => resolve({ status: -1, body: '', headers: {} }));
    req.on('timeout', () => req.destroy());
  });
}

export function post(port: number, path: string, body: unknown): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve) => {
    const data = JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', () => resolve({ status: -1, body: '', headers: {} }));
    req.end(data);
  });
}

/** Creates a venv with one engine installed (pip), returns its bin folder. */
export function envWith(box: Box, dir: string, spec: string): string {
  const path = join(box.home, dir);
  const v = box.run('python3', ['-m', 'venv', path]);
  if (v.code !== 0) throw new Error(`venv failed: ${v.stderr}`);
  const p = box.run(join(path, 'bin', 'pip'), ['install', spec]);
  if (p.code !== 0) throw new Error(`pip install ${spec} failed: ${p.stdout}${p.stderr}`);
  return join(path, 'bin');
}

/**
 * A simulated `vllm serve Qwen/Qwen3-8B` (vLLM 0.11.0, H100 box) for a test file: started before its tests, removed
 * after them. The fields are filled once the server is up.
 */
export function useSimulatedVllmServer(): { box: Box; bin: string; port: number } {
  const ctx = {} as { box: Box; bin: string; port: number };
  beforeAll(async () => {
    ctx.box = makeBox({ gpu: 'h100', timeScale: 0.002 });
    ctx.bin = envWith(ctx.box, 'vllm-env', 'vllm==0.11.0');
    ctx.port = await freePort();
    const server = ctx.box.start(join(ctx.bin, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(ctx.port)], { pathPrefix: ctx.bin });
    await server.waitFor('Application startup complete.');
  }, 60_000);
  afterAll(() => ctx.box?.cleanup());
  return ctx;
}
