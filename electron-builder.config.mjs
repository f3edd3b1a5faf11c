// How Servelab is packaged (electron-builder 26): `npm run package` builds for the system it runs on, with the
// Electron that electron-builder downloads; `npm run package:check` packages the unpacked Linux app with a stand-in
// Electron and verifies the result (scripts/package/check.mjs). What ships where is in docs/ARCHITECTURE.md, "Packages".
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Arch } from 'electron-builder';
import { nodeRuntimeDir, prepareNodeRuntime } from './scripts/package/node-runtime.mjs';

const projectDir = fileURLToPath(new URL('.', import.meta.url));

// The project document's extension, type name and MIME type are defined once, for the app and for its packages.
const projectDocument = JSON.parse(readFileSync(new URL('./src/shared/project-document.json', import.meta.url), 'utf8'));

// A deb names a homepage and a maintainer with an email (app-builder-lib FpmTarget.computeFpmMetaInfoOptions), which
// come from package.json's "homepage" and "author". Until both are filled in, Linux gets the AppImage alone, with a
// note saying why, rather than a build that fails half way.
const packageJson = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const debMetadataMissing = [!packageJson.homepage && '"homepage"', !packageJson.author?.email && '"author" with an email'].filter(Boolean);
const linuxTargets = debMetadataMissing.length === 0 ? ['AppImage', 'deb'] : ['AppImage'];
// Said by `npm run package` (the electron-builder command) only: the packaging check supplies marked placeholders.
if (debMetadataMissing.length > 0 && process.platform === 'linux' && /electron-builder/.test(process.argv[1] ?? '')) {
  process.stderr.write(`Servelab: no deb this time: package.json needs ${debMetadataMissing.join(' and ')} for one (the AppImage is built).\n`);
}

/** Where a target's Node runtime is staged by `beforePack`, with electron-builder's `${arch}` left in for it to fill. */
const nodeRuntimeResource = (os) => ({ from: relative(projectDir, nodeRuntimeDir(os, '${arch}')), to: 'node' });

/**
 * The Electron fuses, flipped in the packaged executable before signing. Exported for the packaging check, which
 * reads them back from the packaged executable. Electron 45's wire has a ninth fuse, WasmTrapHandlers (index 8,
 * default on: V8's signal handlers catch out-of-bounds WebAssembly memory access), that @electron/fuses 1.8.0 has no
 * name for; it stays at its default, and the check makes sure it did.
 */
export const electronFuses = {
  // Off: nothing may start the app's binary as a plain Node (ELECTRON_RUN_AS_NODE) to run code with the app's
  // identity and permissions. The demo lab runs its simulated tools on the bundled Node instead (resources/node).
  runAsNode: false,
  // On: cookies are encrypted at rest with a key from the OS keychain. The app keeps no cookies that matter today,
  // and turning this on later would lose any that had been written in the clear.
  enableCookieEncryption: true,
  // Off: NODE_OPTIONS (e.g. --require of a foreign script) is not honoured by the app's main process.
  enableNodeOptionsEnvironmentVariable: false,
  // Off: --inspect and friends cannot attach a debugger to the packaged app's main process.
  enableNodeCliInspectArguments: false,
  // On: Electron checks app.asar against the hash electron-builder embeds (macOS Info.plist, Windows resource);
  // a modified app.asar does not load. (Linux has no embedded hash; the fuse is a no-op there.)
  enableEmbeddedAsarIntegrityValidation: true,
  // On: the app loads only from app.asar, never from a resources/app folder someone drops beside it.
  onlyLoadAppFromAsar: true,
  // On: file:// pages lose the extra privileges Electron gives them by default. The renderer is served from the
  // privileged app:// scheme (src/main/electron/app-protocol.ts) and needs nothing from file://.
  grantFileProtocolExtraPrivileges: false,
  // Off (Electron's default): the browser process uses the one V8 snapshot; the app ships no custom snapshot.
  loadBrowserProcessSpecificV8Snapshot: false,
  // After the fuses change the executable, the ad-hoc signature of an unsigned Apple silicon build no longer
  // matches and macOS refuses to start it; @electron/fuses re-signs it ad hoc (only for a path inside a .app).
  resetAdHocDarwinSignature: true,
};

/** @type {import('electron-builder').Configuration} */
const config = {
  appId: 'dev.servelab.app',
  // productName, version and description come from package.json.
  directories: { output: 'dist', buildResources: 'resources' },

  // app.asar holds the built app and the production dependencies (ssh2, ws, zod and theirs) only; electron-builder
  // adds those from package.json's "dependencies" and leaves devDependencies out (electron, vite, react, echarts:
  // the renderer is bundled into out/renderer).
  files: [
    'out/**/*',
    'package.json',
    '!**/*.map',
    // ssh2 runs on pure JavaScript. Its optional native crypto binding, built against Node's OpenSSL, is known to
    // crash inside Electron, which ships BoringSSL (mscdex/ssh2#1182: "undefined symbol: ERR_set_mark" from
    // sshcrypto.node in an Electron app); ssh2 1.17.0 loads the binding and cpu-features inside try/catch
    // (lib/protocol/crypto.js, lib/protocol/constants.js) and uses JavaScript when they are absent. cpu-features (a
    // native addon used only to order ciphers), buildcheck (its build helper) and nan (headers for building addons)
    // go too, and with them every native *.node file: the app needs none, so nothing must match Electron's ABI.
    '!**/node_modules/ssh2/lib/protocol/crypto/{build,src}/**',
    '!**/node_modules/ssh2/lib/protocol/crypto/binding.gyp',
    '!**/node_modules/{cpu-features,buildcheck}/**',
    '!**/node_modules/nan/**',
    '!**/*.node',
    // TypeScript sources and declarations that packages ship beside their JavaScript (zod ships its src/): nothing
    // reads them at run time.
    '!**/*.{ts,cts,mts,tsx}',
  ],
  // Nothing native is built, so nothing is rebuilt for Electron's Node ABI.
  npmRebuild: false,

  // Beside app.asar in the app's resources folder (process.resourcesPath), found there by
  // src/core/box/simbox-path.ts (<resources>/simbox/bin) and src/core/study/examples-path.ts (<resources>/examples).
  // The simbox commands keep their executable bits; their type declarations are left behind.
  extraResources: [
    { from: 'resources/simbox', to: 'simbox', filter: ['**/*', '!**/*.d.mts'] },
    { from: 'examples', to: 'examples', filter: ['*.servelab'] },
  ],

  // The Node runtime for the demo lab (scripts/package/node-runtime.mjs) is fetched for the target being packed,
  // so a dmg for x64 gets the x64 build; Windows ships none (the demo lab needs sh).
  beforePack: async (context) => {
    const os = context.packager.platform.buildConfigurationKey;
    if (os === 'win') return;
    prepareNodeRuntime(os, Arch[context.arch], { log: (line) => process.stdout.write(`  • node runtime: ${line}\n`) });
  },

  // The project document is registered with every system: double-clicking a .servelab file opens Servelab, which
  // edits it. On Linux, electron-builder puts the MIME type into the desktop entry's MimeType= (deb and AppImage) and
  // defines it in a shared-mime-info file (the deb installs /usr/share/mime/packages/servelab.xml and runs
  // update-mime-database; the AppImage carries it for desktop integration tools).
  fileAssociations: [
    {
      ext: projectDocument.extension,
      name: projectDocument.typeName,
      description: projectDocument.typeName,
      mimeType: projectDocument.mimeType,
      role: 'Editor',
    },
  ],
  // No URL scheme (`protocols`) is registered with the system: any web page could then make the app open a path
  // or run an action by linking to servelab://…, and the app has nothing that must be reached from a browser.

  electronFuses,

  linux: {
    target: linuxTargets,
    icon: 'resources/icons',
    category: 'Development',
    executableName: 'servelab',
    // The desktop file is servelab.desktop (package.json "desktopName"), which Electron also uses as the window's
    // app id, so the desktop links the running window to the entry.
    syncDesktopName: true,
    extraResources: [nodeRuntimeResource('linux')],
  },
  appImage: { artifactName: '${productName}-${version}-${arch}.${ext}' },
  mac: {
    target: [{ target: 'dmg', arch: ['arm64', 'x64'] }],
    icon: 'resources/icon.icns',
    category: 'public.app-category.developer-tools',
    extraResources: [nodeRuntimeResource('mac')],
  },
  dmg: { artifactName: '${productName}-${version}-${arch}.${ext}' },
  win: {
    target: [{ target: 'nsis', arch: ['x64'] }],
    icon: 'resources/icon.ico',
  },
  // The default one-click installer: installs for the current user (no administrator), adds Start menu and desktop
  // shortcuts, and registers an uninstaller under Settings → Apps.
  nsis: { artifactName: '${productName}-Setup-${version}.${ext}' },
};

export default config;
