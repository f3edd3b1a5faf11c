// `npm run package:check` (after `electron-vite build`): packages the unpacked Linux x64 app with a STAND-IN Electron
// (no download; see electron-standin.mjs) into dist/package-check/ and verifies it (verify-package.mjs), printing a
// pass/fail list. Exit status 1 when any check fails.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { electronFuses } from '../../electron-builder.config.mjs';
import { packageLinuxWithStandIn, PROJECT_DIR } from './package-with-standin.mjs';
import { formatResults, verifyPackage } from './verify-package.mjs';

const outDir = join(PROJECT_DIR, 'dist', 'package-check');
const started = Date.now();
rmSync(outDir, { recursive: true, force: true });
const pkg = await packageLinuxWithStandIn({ outDir, log: (line) => process.stdout.write(`${line}\n`) });
const packagedIn = Date.now() - started;
const results = await verifyPackage(pkg, { policy: electronFuses });
const failed = results.filter((r) => !r.ok);
process.stdout.write(`\nPackage check of ${pkg.appOutDir} (Electron is a STAND-IN: the fuses and layout are real, the binary is not)\n`);
process.stdout.write(`${formatResults(results)}\n`);
process.stdout.write(`\n${results.length - failed.length} passed, ${failed.length} failed; packaged in ${(packagedIn / 1000).toFixed(1)} s, checked in ${((Date.now() - started - packagedIn) / 1000).toFixed(1)} s\n`);
process.exit(failed.length === 0 ? 0 : 1);
