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
      rolldownOptions: {
        input: { index: resolve('src/renderer/index.html') },
        // The pages other than Hosts and echarts are loaded on demand (App.tsx, components/EChart.tsx); the libraries
        // every page shares are chunks of their own, each under the 500 kB warning, cached apart from the app's code.
        output: {
          codeSplitting: {
            groups: [
              { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/ },
              { name: 'zod', test: /node_modules[\\/]zod[\\/]/ },
              { name: 'zrender', test: /node_modules[\\/]zrender[\\/]/ },
              { name: 'echarts', test: /node_modules[\\/]echarts[\\/]/ },
              { name: 'messages', test: /src[\\/]renderer[\\/]src[\\/]i18n[\\/]/ },
              // One chunk per engine's flag table (SGLang's alone is some 340 kB).
              { name: (id) => /resources[\\/]engine-flags[\\/]([\w-]+)\.json$/.exec(id)?.[1]?.replace(/^/, 'flags-') ?? null },
            ],
          },
        },
      },
    },
  },
});
