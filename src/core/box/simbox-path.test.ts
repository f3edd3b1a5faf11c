import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveSimboxBinDir } from './simbox-path';

const repoBin = join(process.cwd(), 'resources', 'simbox', 'bin');

function fakeSimbox(root: string): string {
  const bin = join(root, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['simbox', 'nvidia-smi']) writeFileSync(join(bin, name), '#!/bin/sh\n', { mode: 0o755 });
  return bin;
}

describe('resolveSimboxBinDir', () => {
  it('finds resources/simbox/bin from the sources and from the built out/main files and chunks', () => {
    expect(resolveSimboxBinDir()).toBe(repoBin);
    expect(resolveSimboxBinDir({ from: pathToFileURL(join(process.cwd(), 'out', 'main', 'cli.js')).href })).toBe(repoBin);
    expect(resolveSimboxBinDir({ from: join(process.cwd(), 'out', 'main', 'chunks', 'core-abc.js') })).toBe(repoBin);
  });

  it('prefers the packaged app resources, and never a folder inside app.asar', () => {
    const resources = mkdtempSync(join(tmpdir(), 'servelab-resources-'));
    const packaged = fakeSimbox(join(resources, 'simbox'));
    expect(resolveSimboxBinDir({ resourcesPath: resources, from: join(resources, 'app.asar', 'out', 'main', 'index.js') })).toBe(packaged);
    const inAsar = mkdtempSync(join(tmpdir(), 'servelab-asar-'));
    fakeSimbox(join(inAsar, 'app.asar', 'resources', 'simbox'));
    expect(resolveSimboxBinDir({ from: join(inAsar, 'app.asar', 'out', 'main', 'index.js') })).toBeNull();
  });
});
