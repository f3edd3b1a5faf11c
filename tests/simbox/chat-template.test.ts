// The simulated engines check --chat-template as the real ones do before they serve: vLLM's validate_chat_template
// (vllm/entrypoints/chat_utils.py at each tag) refuses a path that does not exist before anything loads, SGLang's
// TemplateManager (python/sglang/srt/managers/template_manager.py@v0.5.5.post1) refuses it while the server starts.
// The expected messages are the engines' own f-strings, filled in (resources/simbox/lib/chat-template.mjs cites them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { envWith, freePort, makeBox, type Box } from './helpers';

let box: Box;
const bins: Record<string, string> = {};

beforeAll(() => {
  box = makeBox({ gpu: 'h100', timeScale: 0.0005 });
  bins['vllm-0.11.0'] = envWith(box, 'vllm-0.11.0', 'vllm==0.11.0');
  bins['vllm-0.13.0'] = envWith(box, 'vllm-0.13.0', 'vllm==0.13.0');
  bins.sglang = envWith(box, 'sglang', 'sglang==0.5.5.post1');
}, 120_000);
afterAll(() => box?.cleanup());

async function launch(cmd: string, args: string[], ready: string) {
  const port = await freePort();
  const server = box.start(cmd, [...args, '--port', String(port)]);
  const outcome = await Promise.race([server.waitFor(ready, 30_000).then(() => 'ready' as const), server.exited.then((code) => code)]);
  if (outcome === 'ready') {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  return { outcome, output: server.output() };
}

describe('vLLM --chat-template', () => {
  it('refuses a path that does not exist before the server starts, in the words of its release', async () => {
    const missing = join(box.home, '.servelab', 'files', 'abc', 'tool-chat.jinja');
    const old = await launch(join(bins['vllm-0.11.0'] as string, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--chat-template', missing], 'Application startup complete.');
    expect(old.outcome).toBe(1);
    expect(old.output).toContain('  File "/usr/lib/python3/dist-packages/vllm/entrypoints/cli/serve.py", line 60, in validate\n    validate_parsed_serve_args(args)\n');
    expect(old.output).toContain(`ValueError: The supplied chat template string (${missing}) appears path-like, but doesn't exist!\n`);
    // Nothing started: the check runs before the API server logs anything.
    expect(old.output).not.toContain('vLLM API server version');
    const newer = await launch(join(bins['vllm-0.13.0'] as string, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--chat-template', 'tool.jinja'], 'Application startup complete.');
    expect(newer.outcome).toBe(1);
    expect(newer.output).toContain(
      "ValueError: The supplied chat template string (tool.jinja) appears path-like, but doesn't exist! Tried: tool.jinja and /usr/lib/python3/dist-packages/vllm/transformers_utils/chat_templates/tool.jinja\n",
    );
  });

  it('serves with a template file that exists, a built-in one (0.13.0+), or the template text itself', async () => {
    const file = join(box.home, 'tool-chat.jinja');
    writeFileSync(file, '{{ messages }}\n');
    const vllm = join(bins['vllm-0.13.0'] as string, 'vllm');
    for (const value of [file, 'template_chatml.jinja', '{{ messages }}']) {
      expect((await launch(vllm, ['serve', 'Qwen/Qwen3-8B', '--chat-template', value], 'Application startup complete.')).outcome).toBe('ready');
    }
    expect((await launch(join(bins['vllm-0.11.0'] as string, 'vllm'), ['serve', 'Qwen/Qwen3-8B', '--chat-template', 'template_chatml.jinja'], 'Application startup complete.')).outcome).toBe(1);
  });
});

describe('SGLang --chat-template', () => {
  it('logs the template it loads and fails to start when the file does not exist', async () => {
    const python = join(bins.sglang as string, 'python3');
    const missing = join(box.home, 'missing.jinja');
    const failed = await launch(python, ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--chat-template', missing], 'The server is fired up and ready to roll!');
    expect(failed.outcome).toBe(1);
    expect(failed.output).toMatch(new RegExp(`\\] Loading chat template from argument: ${missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\n`));
    expect(failed.output).toContain(`RuntimeError: Chat template ${missing} is not a built-in template name or a valid chat template file path.\n`);
    const file = join(box.home, 'present.jinja');
    writeFileSync(file, '{{ messages }}\n');
    const served = await launch(python, ['-m', 'sglang.launch_server', '--model-path', 'Qwen/Qwen3-8B', '--chat-template', file], 'The server is fired up and ready to roll!');
    expect(served.outcome).toBe('ready');
  });
});
