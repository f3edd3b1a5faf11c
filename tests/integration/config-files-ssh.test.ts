// A config's files over real SSH: launchServer puts the chat template on the box (through the SSH box transport, as
// on a real GPU host) at ~/.servelab/files/<sha256>/<name>, checked there with sha256sum, and the simulated vLLM
// serves with --chat-template naming that path; a second launch finds the file and does not send it again, and a
// damaged copy on the box is replaced rather than used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSimboxOverSsh, type SimboxOverSsh } from '../helpers/simbox-ssh';
import { EngineInstaller } from '../../src/core/engines/engine-installer';
import { launchServer, readServerRecord } from '../../src/core/engines/server-launcher';
import type { PlacedConfigFile } from '../../src/core/engines/config-file-upload';
import { configFileOf, type ConfigFile } from '../../src/shared/engines/config-files';

let lab: SimboxOverSsh;
beforeAll(async () => {
  lab = await startSimboxOverSsh({ timeScale: 0.002 });
  const install = await new EngineInstaller(lab.box).start('vllm', '0.11.0');
  expect((await install.done).ok).toBe(true);
}, 300_000);
afterAll(() => lab?.stop());

// Hand-written edge case: a template with a quote, a backslash, a dollar and non-ASCII text, which no shell step may alter.
const template = configFileOf('tool-chat.jinja', "{%- for m in messages %}{{ m['content'] }} \\n $HOME `x` ünïcode\n{%- endfor %}\n") as ConfigFile;

async function launchWithTemplate(): Promise<{ placed: PlacedConfigFile[]; argv: string[] }> {
  const placed: PlacedConfigFile[] = [];
  const server = await launchServer(lab.box, {
    engine: 'vllm',
    version: '0.11.0',
    config: { model: 'Qwen/Qwen3-8B', chatTemplate: { file: template.name } },
    files: [template],
    onFilesPlaced: (files) => placed.push(...files),
  });
  try {
    await server.waitReady(120_000);
    return { placed, argv: (await readServerRecord(lab.box, server.serverId)).argv ?? [] };
  } finally {
    await server.stop();
  }
}

describe('a chat template uploaded over SSH', () => {
  const onBox = () => join(lab.sshd.homeDir, '.servelab', 'files', template.sha256, template.name);

  it('reaches the box byte for byte under its checksum, and the server reads it from there', async () => {
    const { placed, argv } = await launchWithTemplate();
    const bytes = await readFile(onBox());
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(template.sha256);
    expect(bytes.toString('utf8')).toBe(template.content);
    expect(placed).toEqual([{ field: 'chatTemplate', name: template.name, sha256: template.sha256, size: template.size, path: onBox(), uploaded: true }]);
    expect(argv.slice(argv.indexOf('--chat-template'), argv.indexOf('--chat-template') + 2)).toEqual(['--chat-template', onBox()]);
    // Private to the box user, as everything under ~/.servelab.
    expect((await stat(join(lab.sshd.homeDir, '.servelab', 'files'))).mode & 0o077).toBe(0);
  }, 300_000);

  it('is not sent again when the box has it, and is replaced when the copy there is damaged', async () => {
    const before = (await stat(onBox())).mtimeMs;
    expect((await launchWithTemplate()).placed.map((p) => p.uploaded)).toEqual([false]);
    expect((await stat(onBox())).mtimeMs).toBe(before);
    await writeFile(onBox(), 'damaged');
    expect((await launchWithTemplate()).placed.map((p) => p.uploaded)).toEqual([true]);
    expect(await readFile(onBox(), 'utf8')).toBe(template.content);
  }, 300_000);
});
