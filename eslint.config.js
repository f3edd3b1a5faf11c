// Lint, including the process layers: shared is platform-free, the renderer talks only to shared, the preload only
// to electron and shared; the headless core (src/core) imports no Electron and none of its front doors; the CLI
// (src/cli) may use the core but not Electron's main process (src/main), and main may use the core but not the CLI.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

// The folders of src/ that another layer may not import from, and why.
const FRONT_DOORS = 'The headless core never imports Electron or a front door (src/main, src/cli, src/renderer, src/preload).';
const CLI_LAYER = 'The CLI runs without Electron: it may use src/core and src/shared, never electron or src/main.';
const MAIN_LAYER = 'Electron\'s main process may use electron, src/core and src/shared, never the CLI, the renderer or the preload.';
const DEEPEST = 6;

/**
 * Blocks for one folder of src/ that may not import the sibling folders `banned` (nor the `paths`). ESLint sees only
 * the specifier, so the relative form is matched per depth: from a file d folders below src/, exactly d `../` lead
 * to a sibling folder, while fewer stay inside the layer, where a file may share a banned name (src/cli/main.ts).
 */
function layerBlocks(layer, { banned, message, paths = [] }) {
  const rule = (climb) => [
    'error',
    {
      paths: paths.map((name) => ({ name, message })),
      patterns: [
        { regex: `^${climb}(${banned.join('|')})(/|$)`, message },
        { regex: `(^|/)src/(${banned.join('|')})(/|$)`, message },
        ...(paths.length > 0 ? [{ regex: `^(${paths.join('|')})/`, message }] : []),
      ],
    },
  ];
  // Deeper than DEEPEST: any climb counts (never the case today, but a new deep folder stays covered).
  const blocks = [{ files: [`src/${layer}/**/*.{ts,tsx}`], rules: { 'no-restricted-imports': rule('(\\.\\./)+') } }];
  for (let depth = 1; depth <= DEEPEST; depth++) {
    blocks.push({ files: [`src/${layer}/${'*/'.repeat(depth - 1)}*.{ts,tsx}`], rules: { 'no-restricted-imports': rule(`(\\.\\./){${depth}}`) } });
  }
  return blocks;
}
// The renderer is a sandboxed page: no Electron, Node or SSH, and no process layer but src/shared.
const rendererImports = {
  paths: ['electron', 'ws', 'ssh2', ...nodeBuiltins].map((name) => ({
    name,
    message: 'The renderer is a sandboxed page: it talks to the core only through the contract in src/shared.',
  })),
  patterns: [
    { regex: '^(\\.\\./)+(core|cli|main|preload)(/|$)', message: 'The renderer may import only src/shared and its own files.' },
    { regex: '(^|/)src/(core|cli|main|preload)/', message: 'The renderer may import only src/shared and its own files.' },
  ],
};

const sharedGlobalsBanned = [
  'window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'location', 'fetch', 'WebSocket',
  'process', 'Buffer', 'require', '__dirname', '__filename', 'global',
].map((name) => ({ name, message: 'src/shared must run anywhere: no DOM or Node globals here.' }));

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', '.cache/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'artifacts/**', 'tests/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'shell', property: 'openExternal', message: 'Open links only through isSafeExternalUrl in src/main/index.ts.' },
      ],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-globals': ['error', ...sharedGlobalsBanned],
      'no-restricted-imports': [
        'error',
        {
          paths: ['electron', 'react', 'react-dom', 'ws', 'ssh2', 'zustand', 'echarts', ...nodeBuiltins].map((name) => ({
            name,
            message: 'src/shared imports nothing platform-specific (no Electron, Node, DOM or UI libraries).',
          })),
          patterns: [{ regex: '(^|/)(core|cli|main|renderer|preload)/', message: 'src/shared must not depend on a process layer.' }],
        },
      ],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': ['error', rendererImports],
    },
  },
  {
    // The store, and the study draft it is built on, stand below the features: a feature imports the store, never
    // the other way round. (Rule options replace the renderer's, so its restrictions are repeated.)
    files: ['src/renderer/src/store/**/*.{ts,tsx}', 'src/renderer/src/study-draft/**/*.{ts,tsx}'],
    ignores: ['src/renderer/src/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: rendererImports.paths,
          patterns: [...rendererImports.patterns, { regex: '(^|/)features(/|$)', message: 'The store and the study draft stand below the features: they may not import one.' }],
        },
      ],
    },
  },
  {
    // The UI bench page (npm run bench): a browser page built from the renderer's own components.
    files: ['perf/ui/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    files: ['src/preload/**/*.ts'],
    ignores: ['src/preload/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'A sandboxed preload cannot load Node modules.' })),
          patterns: [
            { regex: '^(?!electron$|\\.{1,2}/)', message: 'The preload may import only electron and src/shared.' },
            { regex: '^\\.\\./(core|cli|main|renderer)(/|$)', message: 'The preload may import only electron and src/shared.' },
          ],
        },
      ],
    },
  },
  ...layerBlocks('core', { banned: ['main', 'cli', 'renderer', 'preload'], paths: ['electron'], message: FRONT_DOORS }),
  ...layerBlocks('cli', { banned: ['main', 'renderer', 'preload'], paths: ['electron'], message: CLI_LAYER }),
  ...layerBlocks('main', { banned: ['cli', 'renderer', 'preload'], message: MAIN_LAYER }),
  {
    files: ['src/main/index.ts', 'src/main/electron/security.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
