// A simulated server ends with its box: once the box's folder is removed (a test's temporary lab deleted, the demo
// lab reset) nothing can stop it any more, so it must not run on. Real processes, the simbox's own `vllm serve`.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BOX_WATCH_MS } from '../../resources/simbox/lib/box-watch.mjs';
import { envWith, freePort, get, makeBox, type Box } from './helpers';

let box: Box | undefined;
afterEach(() => box?.cleanup());

describe('a simulated server whose box is removed', () => {
  it('ends within a few seconds, and keeps running while its box is there', async () => {
    box = makeBox({ gpu: 'h100', timeScale: 0.001 });
    const bin = envWith(box, 'vllm-env', 'vllm==0.11.0');
    const port = await freePort();
    const server = box.start(join(bin, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--port', String(port)], { pathPrefix: bin });
    await server.waitFor('Application startup complete.', 30_000);
    // Several looks at the folder with the box in place: still serving.
    await new Promise((resolve) => setTimeout(resolve, 2.5 * BOX_WATCH_MS));
    expect(server.child.exitCode).toBeNull();
    expect((await get(port, '/health')).status).toBe(200);

    const removedAt = Date.now();
    rmSync(box.home, { recursive: true, force: true });
    // The server's own GPU record would make the state folder again: a new folder is not its box.
    mkdirSync(join(box.home, '.servelab-simbox'), { recursive: true });
    const code = await Promise.race([server.exited, new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 5 * BOX_WATCH_MS))]);
    expect(code, `still running ${Date.now() - removedAt} ms after its box was removed`).toBe(143);
    expect(server.output()).toContain('is gone; this simulated server ends with its box.');
    expect((await get(port, '/health')).status).toBe(-1);
  }, 90_000);
});
