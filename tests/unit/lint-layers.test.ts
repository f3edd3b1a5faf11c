// Proves the layer rules bite: each import below is linted as if it lived in the named file.
import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: repoRoot });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals')
    .map((m) => m.message);
}

describe('layer rules', () => {
  it.each([
    ['src/shared/x.ts', "import { app } from 'electron';\nexport const a = app;\n"],
    ['src/shared/x.ts', "import { readFile } from 'node:fs';\nexport const a = readFile;\n"],
    ['src/shared/x.ts', "import { x } from '../core/create-core';\nexport const a = x;\n"],
    ['src/shared/x.ts', 'export const a = window.location.href;\n'],
    ['src/shared/x.ts', 'export const a = process.env.HOME;\n'],
    ['src/renderer/src/x.ts', "import { ipcRenderer } from 'electron';\nexport const a = ipcRenderer;\n"],
    ['src/renderer/src/x.ts', "import { spawn } from 'node:child_process';\nexport const a = spawn;\n"],
    ['src/renderer/src/features/x.ts', "import { createCore } from '../../../core/create-core';\nexport const a = createCore;\n"],
    ['src/preload/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n"],
    ['src/preload/x.ts', "import { z } from 'zod';\nexport const a = z;\n"],
    ['src/preload/x.ts', "import { createCore } from '../core/create-core';\nexport const a = createCore;\n"],
    ['src/main/x.ts', "import { App } from '../renderer/src/App';\nexport const a = App;\n"],
    ['src/core/x.ts', "import { app } from 'electron';\nexport const a = app;\n"],
    ['src/core/box/x.ts', "import { ipcMain } from 'electron/main';\nexport const a = ipcMain;\n"],
    ['src/core/x.ts', "import { x } from '../main/electron/window';\nexport const a = x;\n"],
    ['src/core/ssh/x.ts', "import { x } from '../../main/electron/window';\nexport const a = x;\n"],
    ['src/core/engines/x.ts', "import { runCli } from '../../cli/main';\nexport const a = runCli;\n"],
    ['src/core/study/x.ts', "import { App } from '../../renderer/src/App';\nexport const a = App;\n"],
    ['src/core/x.ts', "import { buildBridge } from '../preload/build-bridge';\nexport const a = buildBridge;\n"],
    ['src/cli/x.ts', "import { app } from 'electron';\nexport const a = app;\n"],
    ['src/cli/x.ts', "import { x } from '../main/electron/menu';\nexport const a = x;\n"],
    ['src/cli/commands/x.ts', "import { x } from '../../main/electron/menu';\nexport const a = x;\n"],
    ['src/main/x.ts', "import { runCli } from '../cli/main';\nexport const a = runCli;\n"],
    ['src/main/electron/x.ts', "import { startWsHost } from '../../cli/serve/ws-host';\nexport const a = startWsHost;\n"],
  ])('%s: %s is a lint error', async (file, code) => {
    expect(await layerErrors(file, code)).not.toEqual([]);
  });

  it.each([
    ['src/shared/x.ts', "import { z } from 'zod';\nexport const a = z;\n"],
    ['src/renderer/src/x.ts', "import { CALLS } from '../../shared/contract';\nexport const a = CALLS;\n"],
    ['src/renderer/src/x.ts', "import { create } from 'zustand';\nimport { x } from './main';\nexport const a = [create, x];\n"],
    ['src/preload/x.ts', "import { contextBridge } from 'electron';\nimport { CALL_NAMES } from '../shared/contract/channels';\nexport const a = [contextBridge, CALL_NAMES];\n"],
    ['src/main/x.ts', "import { readFile } from 'node:fs';\nimport { CALLS } from '../shared/contract';\nexport const a = [readFile, CALLS];\n"],
    ['src/main/electron/x.ts', "import { app } from 'electron';\nimport { createCore } from '../../core/create-core';\nimport { CALLS } from '../../shared/contract';\nexport const a = [app, createCore, CALLS];\n"],
    ['src/core/box/x.ts', "import { Client } from 'ssh2';\nimport { x } from '../ssh/connect';\nimport { CALLS } from '../../shared/contract';\nexport const a = [Client, x, CALLS];\n"],
    ['src/cli/commands/x.ts', "import { runCli } from '../main';\nimport { createCore } from '../../core/create-core';\nexport const a = [runCli, createCore];\n"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});

describe('renderer layer rules', () => {
  it.each([
    ['src/renderer/src/store/x.ts', "import { StudyWizard } from '../features/wizard/StudyWizard';\nexport const a = StudyWizard;\n"],
    ['src/renderer/src/store/slices/x.ts', "import { COLUMNS } from '../../features/results/results-table';\nexport const a = COLUMNS;\n"],
    ['src/renderer/src/study-draft/x.ts', "import { WizardTextArea } from '../features/wizard/wizard-fields';\nexport const a = WizardTextArea;\n"],
    // The store's own rule keeps the renderer's restrictions.
    ['src/renderer/src/store/x.ts', "import { ipcRenderer } from 'electron';\nexport const a = ipcRenderer;\n"],
  ])('%s: %s is a lint error', async (file, code) => {
    expect(await layerErrors(file, code)).not.toEqual([]);
  });

  it.each([
    ['src/renderer/src/store/x.ts', "import { assemble } from '../study-draft/assemble';\nimport { t } from '../i18n';\nimport { CALLS } from '../../../shared/contract';\nexport const a = [assemble, t, CALLS];\n"],
    ['src/renderer/src/features/x.ts', "import { useAppStore } from '../store';\nexport const a = useAppStore;\n"],
  ])('%s: %s is allowed', async (file, code) => {
    expect(await layerErrors(file, code)).toEqual([]);
  });
});
