import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core, type FileDialogs } from '../create-core';

let dir: string;
let core: Core;
let project: string;
let chosen: string | null;

async function start(dialogs?: FileDialogs): Promise<void> {
  core = await createCore({ dataDir: join(dir, 'data'), userKnownHostsFiles: [], examplesDir: join(process.cwd(), 'examples'), ...(dialogs ? { dialogs } : {}) });
  const made = await core.dispatch('studies:fromExample', { path: project, example: 'qwen3-8b-latency-h100.servelab' });
  expect(made.ok).toBe(true);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'servelab-export-'));
  mkdirSync(join(dir, 'projects'));
  mkdirSync(join(dir, 'home', '.ssh'), { recursive: true });
  project = join(dir, 'projects', 'study.servelab');
  chosen = null;
});

afterEach(async () => {
  await core.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('studies:export writes only where the user chose or inside the project folder', () => {
  it('refuses a path outside the project folder, such as ~/.ssh/authorized_keys, and leaves it untouched', async () => {
    await start();
    const victim = join(dir, 'home', '.ssh', 'authorized_keys');
    writeFileSync(victim, 'ssh-ed25519 AAAA owner\n');
    for (const out of [victim, join(dir, 'home', 'report.csv'), join(dir, 'projects', '..', 'home', 'report.csv')]) {
      const result = await core.dispatch('studies:export', { path: project, format: 'csv', out });
      expect(result).toMatchObject({ ok: false, error: { code: 'BAD_INPUT', message: expect.stringContaining('save dialog') } });
    }
    expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA owner\n');
    expect(existsSync(join(dir, 'home', 'report.csv'))).toBe(false);
  });

  it('refuses a file in the project folder without the format’s extension, and a symlinked folder leading out', async () => {
    await start();
    symlinkSync(join(dir, 'home'), join(dir, 'projects', 'link'));
    for (const out of [join(dir, 'projects', '.bashrc'), join(dir, 'projects', 'report.txt'), join(dir, 'projects', 'link', 'report.csv')]) {
      const result = await core.dispatch('studies:export', { path: project, format: 'csv', out });
      expect(result).toMatchObject({ ok: false, error: { code: 'BAD_INPUT' } });
    }
    expect(existsSync(join(dir, 'home', 'report.csv'))).toBe(false);
  });

  it('writes inside the project folder, and inside the data folder’s exports', async () => {
    await start();
    const inside = join(dir, 'projects', 'report.csv');
    expect(await core.dispatch('studies:export', { path: project, format: 'csv', out: inside })).toEqual({ ok: true, data: { path: inside } });
    expect(readFileSync(inside, 'utf8')).toContain('trial');
    const exportsFile = join(dir, 'data', 'exports', 'study.html');
    expect(await core.dispatch('studies:export', { path: project, format: 'html', out: exportsFile })).toEqual({ ok: true, data: { path: exportsFile } });
    expect(readFileSync(exportsFile, 'utf8')).toContain('<html');
    // The data folder's exports may be written again; a project's folder only gets new files.
    expect(await core.dispatch('studies:export', { path: project, format: 'html', out: exportsFile })).toEqual({ ok: true, data: { path: exportsFile } });
  });

  it('never replaces an existing file beside a project without the save dialog', async () => {
    await start();
    // A caller may name any folder as the project's (studies:create puts a project there): what is there stays.
    const page = join(dir, 'projects', 'index.html');
    writeFileSync(page, '<html>the user\'s page</html>');
    const result = await core.dispatch('studies:export', { path: project, format: 'html', out: page });
    expect(result).toMatchObject({ ok: false, error: { code: 'BAD_INPUT', message: expect.stringContaining('already exists; pick it in the save dialog') } });
    expect(readFileSync(page, 'utf8')).toBe("<html>the user's page</html>");
  });

  it('writes anywhere the user picked in the save dialog, through the dialog’s handle, once', async () => {
    const target = join(dir, 'home', 'Desktop-report.md');
    await start({ save: async () => chosen, open: async () => null });
    chosen = target;
    const picked = await core.dispatch('dialogs:saveFile', { title: 'Save', defaultName: 'r.md', extensions: ['md'] });
    expect(picked).toMatchObject({ ok: true, data: { path: target, saveHandle: expect.any(String) } });
    const saveHandle = (picked as { data: { saveHandle: string } }).data.saveHandle;
    expect(await core.dispatch('studies:export', { path: project, format: 'md', out: { saveHandle } })).toEqual({ ok: true, data: { path: target } });
    expect(readFileSync(target, 'utf8')).toContain('#');
    const again = await core.dispatch('studies:export', { path: project, format: 'md', out: { saveHandle } });
    expect(again).toMatchObject({ ok: false, error: { code: 'BAD_INPUT', message: expect.stringContaining('choose the file again') } });
    expect(await core.dispatch('studies:export', { path: project, format: 'md', out: { saveHandle: 'made-up' } })).toMatchObject({ ok: false });
  });
});
