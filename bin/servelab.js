#!/usr/bin/env node
// Launcher for the `servelab` command: runs the built CLI (out/main/cli.js), which `npm install` builds.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('servelab: the command is not built yet; run `npm run build` in the Servelab folder first.\n');
  process.exit(1);
}
process.env.SERVELAB_CLI_ENTRY = '1';
await import(pathToFileURL(cli).href);
