// Makes the packages' icons from resources/icon.svg: resources/icon.png (1024×1024), resources/icons/<N>x<N>.png (the
// sizes a Linux desktop picks from, installed under /usr/share/icons/hicolor by the deb), resources/icon.ico (Windows)
// and resources/icon.icns (macOS). The SVG is rendered by Debian's Chromium at each size (not scaled down from one
// bitmap, so small sizes stay sharp); the ICO and ICNS containers are written here, each entry a PNG:
// - ICO: a 6-byte header (reserved 0, type 1 = icon, count), one 16-byte directory entry per image (width and height,
//   0 meaning 256; colours 0; reserved 0; planes 1; 32 bits per pixel; byte length; offset), then the PNGs. Windows
//   Vista and later read PNG entries.
// - ICNS: 'icns' and the file's length (big-endian u32), then chunks of a 4-byte type, the chunk's length with its
//   8-byte header, and a PNG: ic07 128, ic08 256, ic09 512, ic10 1024 (512@2x), ic11 32 (16@2x), ic12 64 (32@2x),
//   ic13 256 (128@2x), ic14 512 (256@2x). Those types hold PNG data from macOS 10.7 on.
// The generated files are committed; run `node scripts/package/make-icons.mjs` after changing the SVG.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium-args.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const resources = join(root, 'resources');
const LINUX_SIZES = [16, 24, 32, 48, 64, 128, 256, 512];
const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];
const ICNS_TYPES = [['ic11', 32], ['ic12', 64], ['ic07', 128], ['ic13', 256], ['ic08', 256], ['ic14', 512], ['ic09', 512], ['ic10', 1024]];

async function renderSizes(svg, sizes) {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1 });
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    const pngs = new Map();
    for (const size of sizes) {
      await page.setViewportSize({ width: size, height: size });
      await page.setContent(`<html><body style="margin:0;background:transparent"><img id="i" src="${src}" width="${size}" height="${size}" style="display:block"></body></html>`);
      await page.waitForFunction(() => globalThis.document.getElementById('i').complete);
      pngs.set(size, await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
    }
    return pngs;
  } finally {
    await browser.close();
  }
}

export function icoOf(entries) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(entries.length, 4);
  const directory = Buffer.alloc(16 * entries.length);
  let offset = header.length + directory.length;
  entries.forEach(({ size, png }, i) => {
    const at = i * 16;
    directory.writeUInt8(size >= 256 ? 0 : size, at);
    directory.writeUInt8(size >= 256 ? 0 : size, at + 1);
    directory.writeUInt8(0, at + 2);
    directory.writeUInt8(0, at + 3);
    directory.writeUInt16LE(1, at + 4);
    directory.writeUInt16LE(32, at + 6);
    directory.writeUInt32LE(png.length, at + 8);
    directory.writeUInt32LE(offset, at + 12);
    offset += png.length;
  });
  return Buffer.concat([header, directory, ...entries.map((e) => e.png)]);
}

export function icnsOf(chunks) {
  const parts = chunks.map(({ type, png }) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'ascii');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'ascii');
  head.writeUInt32BE(body.length + 8, 4);
  return Buffer.concat([head, body]);
}

async function main() {
  const svg = readFileSync(join(resources, 'icon.svg'), 'utf8');
  const sizes = [...new Set([...LINUX_SIZES, ...ICO_SIZES, ...ICNS_TYPES.map(([, s]) => s), 1024])].sort((a, b) => a - b);
  const pngs = await renderSizes(svg, sizes);
  writeFileSync(join(resources, 'icon.png'), pngs.get(1024));
  mkdirSync(join(resources, 'icons'), { recursive: true });
  for (const size of LINUX_SIZES) writeFileSync(join(resources, 'icons', `${size}x${size}.png`), pngs.get(size));
  writeFileSync(join(resources, 'icon.ico'), icoOf(ICO_SIZES.map((size) => ({ size, png: pngs.get(size) }))));
  writeFileSync(join(resources, 'icon.icns'), icnsOf(ICNS_TYPES.map(([type, size]) => ({ type, png: pngs.get(size) }))));
  process.stdout.write(`Wrote resources/icon.png, icon.ico, icon.icns and icons/{${LINUX_SIZES.join(',')}}.png from resources/icon.svg\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
