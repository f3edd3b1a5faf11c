// The packaging check against real electron-builder runs with the stand-in Electron: the project's package passes
// every check, and packages made wrong on purpose fail, naming what is wrong.
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPackage, extractAll } from '@electron/asar';
import config, { electronFuses } from '../../electron-builder.config.mjs';
import { PROJECT_DIR, packageLinuxWithStandIn } from '../../scripts/package/package-with-standin.mjs';
import type { StandInPackage } from '../../scripts/package/package-with-standin.mjs';
import { formatResults, verifyPackage } from '../../scripts/package/verify-package.mjs';
import type { CheckResult } from '../../scripts/package/verify-package.mjs';
import { resolveSimboxBinDir } from '../../src/core/box/simbox-path';
import { resolveExamplesDir } from '../../src/core/study/examples-path';

const PACKAGING_TIMEOUT = 120_000;
let work: string;
let good: StandInPackage;

const REQUIRED_HARDENING = 'the fuse policy has the required hardening (RunAsNode, NODE_OPTIONS, --inspect off; ASAR integrity, only-load-from-ASAR, cookie encryption on)';
const failing = (results: CheckResult[]) => results.filter((r) => !r.ok).map((r) => r.name);

/** Rewrites the good package's app.asar from its original contents less `paths`. */
async function rewriteAsarWithout(paths: string[]): Promise<void> {
  const asarPath = join(good.appOutDir, 'resources', 'app.asar');
  const contents = join(work, 'asar-contents');
  if (!existsSync(contents)) extractAll(asarPath, contents);
  const copy = join(work, 'asar-copy');
  rmSync(copy, { recursive: true, force: true });
  cpSync(contents, copy, { recursive: true });
  for (const path of paths) rmSync(join(copy, path));
  await createPackage(copy, asarPath);
}

beforeAll(async () => {
  if (!existsSync(join(PROJECT_DIR, 'out', 'main', 'index.js'))) throw new Error('out/ is not built: run `npm run build` first');
  work = mkdtempSync(join(tmpdir(), 'servelab-package-'));
  good = await packageLinuxWithStandIn({ outDir: join(work, 'good') });
}, PACKAGING_TIMEOUT);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('packaging check', () => {
  it('passes the project’s package', async () => {
    const results = await verifyPackage(good, { policy: electronFuses });
    expect(failing(results), formatResults(results)).toEqual([]);
    expect(results.length).toBeGreaterThan(25);
  });

  it('ships the simbox and the examples where the app looks for them', () => {
    const resourcesPath = join(good.appOutDir, 'resources');
    expect(resolveSimboxBinDir({ resourcesPath })).toBe(join(resourcesPath, 'simbox', 'bin'));
    expect(resolveExamplesDir({ resourcesPath })).toBe(join(resourcesPath, 'examples'));
  });

  it('fails a package whose app.asar lost out/main/index.js, naming it', async () => {
    await rewriteAsarWithout(['out/main/index.js']);
    const results = await verifyPackage(good, { policy: electronFuses });
    expect(failing(results)).toEqual(['app.asar has out/main/index.js']);
  });

  it('fails a package whose ws lost the entry its exports give to import, naming the import', async () => {
    await rewriteAsarWithout(['node_modules/ws/wrapper.mjs']);
    const results = await verifyPackage(good, { policy: electronFuses });
    expect(failing(results)).toEqual(['every import in out/main and out/preload resolves inside app.asar']);
    expect(results.find((r) => !r.ok)?.detail).toMatch(/: ws \(entry node_modules\/ws\/wrapper\.mjs missing\)/);
  });

  it(
    'fails a package built without the preload, with a URL scheme and with ELECTRON_RUN_AS_NODE left on, naming each, also when the policy itself turns it on',
    async () => {
      const pkg = await packageLinuxWithStandIn({
        outDir: join(work, 'wrong'),
        configOverrides: {
          files: [...(config.files as string[]), '!out/preload/**'],
          protocols: [{ name: 'Servelab', schemes: ['servelab'] }],
          electronFuses: { ...electronFuses, runAsNode: true },
        },
      });
      const results = await verifyPackage(pkg, { policy: electronFuses });
      expect(failing(results)).toEqual([
        'app.asar has out/preload/index.cjs',
        'the configuration registers no URL protocol',
        'the deb desktop entry lists application/x-servelab-project and no URL scheme',
        'the AppImage desktop entry lists application/x-servelab-project and no URL scheme',
        'fuse runAsNode is off',
      ]);
      // Checked against the policy it was built with, the wire matches; the policy itself is refused.
      const againstOwnPolicy = await verifyPackage(pkg, { policy: { ...electronFuses, runAsNode: true } });
      expect(failing(againstOwnPolicy)).toEqual([
        'app.asar has out/preload/index.cjs',
        'the configuration registers no URL protocol',
        'the deb desktop entry lists application/x-servelab-project and no URL scheme',
        'the AppImage desktop entry lists application/x-servelab-project and no URL scheme',
        REQUIRED_HARDENING,
      ]);
      expect(againstOwnPolicy.find((r) => r.name === REQUIRED_HARDENING)?.detail).toBe('runAsNode (wanted off, the policy has on)');
    },
    PACKAGING_TIMEOUT,
  );
});
