// Packages the unpacked Linux x64 app with electron-builder, exactly as electron-builder.config.mjs says, except that
// Electron comes from a STAND-IN distribution (scripts/package/electron-standin.mjs) instead of a download, so it runs
// where no Electron binary can be fetched. The deb and AppImage targets run as far as the point where electron-builder
// hands their desktop entry (and for the deb, its MIME definition) to the external packaging tool: there a hook that
// electron-builder offers for exactly this (`effectiveOptionComputed`, used by its own tests) records them and stops
// the target, so no fpm or appimagetool is needed or downloaded. Nothing is published.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Arch, Packager, Platform, build } from 'app-builder-lib';
import { safeStringifyJson, serializeToYaml } from 'builder-util';
import baseConfig from '../../electron-builder.config.mjs';
import { writeStandInElectronDist } from './electron-standin.mjs';

export const PROJECT_DIR = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

/** The installed Electron's version: the stand-in claims it, and electron-builder is told it instead of finding it. */
export function installedElectronVersion() {
  return JSON.parse(readFileSync(require.resolve('electron/package.json', { paths: [PROJECT_DIR] }), 'utf8')).version;
}

/**
 * The deb needs a homepage and a maintainer (app-builder-lib FpmTarget.computeFpmMetaInfoOptions); package.json has
 * neither yet. Only for this check, and only while package.json lacks them, the deb target is given these marked
 * placeholders (the .invalid domain is reserved never to resolve, RFC 6761). A real deb needs package.json's
 * "homepage" and "author" (with an email).
 */
function debMetadataForCheck(packageJson) {
  const placeholders = {};
  if (!packageJson.homepage) placeholders.extraMetadata = { homepage: 'https://servelab.invalid/package-check-placeholder' };
  if (!packageJson.author?.email) placeholders.deb = { maintainer: 'package check placeholder <package-check@servelab.invalid>' };
  return placeholders;
}

/** A deep copy that keeps functions (the hooks): electron-builder normalises the configuration it gets in place. */
function copyConfig(value) {
  if (Array.isArray(value)) return value.map(copyConfig);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyConfig(v)]));
  return value;
}

/**
 * Runs the packaging into `outDir` and returns where things are and what electron-builder computed:
 * `{ outDir, appOutDir, effectiveConfig, effectiveConfigFile, desktopEntries: { deb, appImage }, debMimeXml }`.
 * `configOverrides` are merged over the project's configuration (a test uses it to break the package on purpose).
 */
export async function packageLinuxWithStandIn({ outDir, configOverrides = {}, log = () => {} }) {
  mkdirSync(outDir, { recursive: true });
  const electronVersion = installedElectronVersion();
  const electronDist = writeStandInElectronDist(join(outDir, 'electron-standin-dist'), { electronVersion });
  log(`STAND-IN Electron ${electronVersion} distribution (not Electron): ${electronDist}`);
  const packageJson = JSON.parse(readFileSync(join(PROJECT_DIR, 'package.json'), 'utf8'));
  const checkOnly = debMetadataForCheck(packageJson);
  if (Object.keys(checkOnly).length > 0) {
    log('NOTE: package.json has no "homepage" or no "author" with an email, which a real deb needs; this check gives the deb marked placeholders');
  }
  const base = copyConfig(baseConfig);
  const config = {
    ...base,
    ...checkOnly,
    deb: { ...base.deb, ...checkOnly.deb },
    directories: { ...base.directories, output: outDir },
    electronDist,
    electronVersion,
    ...copyConfig(configOverrides),
  };

  const captured = { desktopEntries: {}, debMimeXml: null };
  const packager = new Packager({
    projectDir: PROJECT_DIR,
    targets: Platform.LINUX.createTarget(['dir', 'deb', 'AppImage'], Arch.x64),
    config,
    publish: 'never',
    effectiveOptionComputed: async (computed) => {
      if (Array.isArray(computed) && Array.isArray(computed[0])) {
        // FpmTarget: [fpm arguments, desktop file path]; the MIME file is the argument mapped to /usr/share/mime.
        const [args, desktopFile] = computed;
        captured.desktopEntries.deb = readFileSync(desktopFile, 'utf8');
        const mimeArg = args.find((arg) => typeof arg === 'string' && arg.includes('=/usr/share/mime/packages/'));
        captured.debMimeInstallPath = mimeArg ? mimeArg.slice(mimeArg.indexOf('=') + 1) : null;
        captured.debMimeXml = mimeArg ? readFileSync(mimeArg.slice(0, mimeArg.indexOf('=')), 'utf8') : null;
        captured.debDesktopInstallPath = args.find((arg) => typeof arg === 'string' && arg.includes('=/usr/share/applications/'))?.split('=')[1] ?? null;
        return true;
      }
      if (computed && typeof computed.desktop === 'string') {
        captured.desktopEntries.appImage = computed.desktop;
        captured.appImageDesktopFileName = computed.desktopFileName;
        return true;
      }
      return false;
    },
  });
  await build({ publish: 'never' }, packager);

  // electron-builder writes builder-effective-config.yaml only on an interactive terminal outside CI
  // (app-builder-lib packager.js); the same serialisation of the same configuration is written here, always.
  const effectiveConfig = JSON.parse(safeStringifyJson(packager.config));
  const effectiveConfigFile = join(outDir, 'builder-effective-config.yaml');
  writeFileSync(effectiveConfigFile, serializeToYaml(effectiveConfig, true));
  const appOutDir = join(outDir, 'linux-unpacked');
  if (!existsSync(appOutDir)) throw new Error(`electron-builder did not produce ${appOutDir}`);
  return { outDir, appOutDir, electronVersion, effectiveConfig, effectiveConfigFile, ...captured };
}
