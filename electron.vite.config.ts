import { resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };
const define = { __SERVELAB_VERSION__: JSON.stringify(pkg.version) };

export default defineConfig({
  main: {
    define,
    build: {
      rolldownOptions: {
        // The Electron app (src/main) and the headless CLI (src/cli) share the core (src/core); only src/main touches
        // Electron. Both land in out/main, where package.json's main and bin/servelab.js find them.
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/cli/main.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot load modules or ESM: one self-contained CommonJS file.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    plugins: [react()],
    build: {
      minify: true,
      rolldownOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
