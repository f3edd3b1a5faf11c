// A STAND-IN for Electron's Linux distribution, so the packaging can be checked where no Electron binary can be
// downloaded (here and in CI). It is laid out like the top of electron-v<version>-linux-x64.zip as far as
// electron-builder's Linux packaging touches it (app-builder-lib/out/electron/ElectronFramework.js: `unpack` copies
// an unpacked distribution folder as it is, `retainElectronLicenseFiles` renames LICENSE to LICENSE.electron.txt,
// `beforeCopyExtraFiles` renames `electron` to the executable name, `removeUnusedLanguagesIfNeeded` reads
// locales/*.pak; platformPackager.js writes resources/app.asar):
//   electron                a small shell script, NOT Electron: it only prints that it is a stand-in, and carries
//                           Electron's fuse wire so that electron-builder flips the fuses in it and a check reads them
//   LICENSE, LICENSES.chromium.html, version, locales/en-US.pak, resources/
// and no resources/default_app.asar: electron-builder deletes it only from a downloaded zip (`cleanupAfterUnpack`),
// so from an unpacked distribution it would ship.
// The fuse wire is laid out as @electron/fuses 1.8.0 reads and writes it (node_modules/@electron/fuses/dist/index.js,
// `getCurrentFuseWire`/`setFuseWire`; constants.js): the sentinel `dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX`, one byte of
// wire version (1), one byte of wire length, then one byte per fuse, '0' (0x30) off, '1' (0x31) on, 'r' removed.
// That is how Electron's build writes kFuseWire (electron/electron build/fuses/build.py), with the defaults of
// build/fuses/fuses.json5 at tag v45.0.0-nightly.20260821 (commit 7ca7c501663134e2c612ad0831b2e7dc0e79b8a3), the
// nine fuses of Electron 45 in wire order.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
export const FUSE_WIRE_VERSION = 1;

/** Electron 45's fuses in wire order with their defaults (build/fuses/fuses.json5, cited above); 1 = on. */
export const ELECTRON_DEFAULT_FUSES = [
  ['run_as_node', 1],
  ['cookie_encryption', 0],
  ['node_options', 1],
  ['node_cli_inspect', 1],
  ['embedded_asar_integrity_validation', 0],
  ['only_load_app_from_asar', 0],
  ['load_browser_process_specific_v8_snapshot', 0],
  ['grant_file_protocol_extra_privileges', 1],
  ['wasm_trap_handlers', 1],
];

/** The bytes of a fuse wire: sentinel, version, length, then '0'/'1' per fuse. */
export function fuseWireBytes(fuses = ELECTRON_DEFAULT_FUSES) {
  return Buffer.concat([
    Buffer.from(FUSE_SENTINEL, 'ascii'),
    Buffer.from([FUSE_WIRE_VERSION, fuses.length]),
    Buffer.from(fuses.map(([, on]) => (on ? '1' : '0')).join(''), 'ascii'),
  ]);
}

/** The stand-in `electron` executable: a shell script whose last line, a comment, carries the fuse wire. */
export function standInExecutable(electronVersion) {
  const script = [
    '#!/bin/sh',
    `# STAND-IN for the Electron ${electronVersion} executable, made by scripts/package/electron-standin.mjs to check`,
    '# the packaging without downloading Electron. It is not Electron and cannot run the app.',
    `echo "This is a stand-in for Electron ${electronVersion} used by the packaging check, not Electron; it cannot run Servelab." >&2`,
    'exit 1',
    '# fuse wire: ',
  ].join('\n');
  return Buffer.concat([Buffer.from(script, 'ascii'), fuseWireBytes(), Buffer.from('\n', 'ascii')]);
}

/** Writes the stand-in distribution into `dir` (emptied first) and returns `dir`. */
export function writeStandInElectronDist(dir, { electronVersion }) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'locales'), { recursive: true });
  mkdirSync(join(dir, 'resources'), { recursive: true });
  writeFileSync(join(dir, 'electron'), standInExecutable(electronVersion));
  chmodSync(join(dir, 'electron'), 0o755);
  const note = `STAND-IN: not part of Electron ${electronVersion}; written by scripts/package/electron-standin.mjs for the packaging check.\n`;
  writeFileSync(join(dir, 'LICENSE'), note);
  writeFileSync(join(dir, 'LICENSES.chromium.html'), `<!-- ${note.trim()} -->\n`);
  writeFileSync(join(dir, 'version'), `${electronVersion}\n`);
  writeFileSync(join(dir, 'locales', 'en-US.pak'), note);
  return dir;
}
