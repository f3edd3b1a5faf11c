// The stand-in Electron carries a fuse wire that @electron/fuses reads and flips exactly as in a real Electron binary.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FuseV1Options, FuseVersion, flipFuses, getCurrentFuseWire } from '@electron/fuses';
import { ELECTRON_DEFAULT_FUSES, FUSE_SENTINEL, writeStandInElectronDist } from '../../scripts/package/electron-standin.mjs';

const ON = 0x31;
const OFF = 0x30;
const dirs: string[] = [];
function standIn(): string {
  const dir = mkdtempSync(join(tmpdir(), 'servelab-standin-'));
  dirs.push(dir);
  writeStandInElectronDist(join(dir, 'dist'), { electronVersion: '45.5.0' });
  return join(dir, 'dist', 'electron');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('stand-in Electron executable', () => {
  it('carries Electron 45’s default fuse wire, read back by @electron/fuses', async () => {
    const wire = await getCurrentFuseWire(standIn());
    expect(wire.version).toBe(FuseVersion.V1);
    // Electron's build/fuses/fuses.json5 at v45.0.0-nightly.20260821: 1 0 1 1 0 0 0 1 1.
    expect(Array.from({ length: 9 }, (_, i) => String.fromCharCode(Number(wire[i as FuseV1Options])))).toEqual('101100011'.split(''));
    expect(Object.keys(wire).filter((k) => /^\d+$/.test(k))).toHaveLength(ELECTRON_DEFAULT_FUSES.length);
  });

  it('has its fuses flipped by @electron/fuses, leaving the ninth fuse at its default', async () => {
    const electron = standIn();
    const flipped = await flipFuses(electron, {
      version: FuseVersion.V1,
      [FuseV1Options.RunAsNode]: false,
      [FuseV1Options.EnableCookieEncryption]: true,
      [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
    });
    expect(flipped).toBe(1);
    const wire = await getCurrentFuseWire(electron);
    expect(wire[FuseV1Options.RunAsNode]).toBe(OFF);
    expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(ON);
    expect(wire[FuseV1Options.GrantFileProtocolExtraPrivileges]).toBe(OFF);
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(ON);
    expect(wire[8 as FuseV1Options]).toBe(ON);
    const bytes = readFileSync(electron);
    expect(bytes.indexOf(FUSE_SENTINEL)).toBe(bytes.lastIndexOf(FUSE_SENTINEL));
  });

  it('says it is a stand-in and fails when run', () => {
    const run = spawnSync(standIn(), [], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/stand-in for Electron 45\.5\.0/);
  });
});
