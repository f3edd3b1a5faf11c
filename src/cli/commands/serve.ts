import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createCore } from '../../core/create-core';
import { startWsHost, type WsHost } from '../serve/ws-host';
import { defaultDataDir } from '../../core/util/paths';
import { resolveSimboxBinDir } from '../../core/box/simbox-path';
import type { CliIo } from '../cli-io';
import { isProjectPath, PROJECT_SUFFIX } from '../../shared/project-document';

/** How long the code handed to the browser opener stays valid: long enough for a browser to start. */
export const OPEN_LINK_TTL_MS = 30_000;

export const SERVE_USAGE = `Usage: servelab serve [--port N] [--data-dir DIR] [--known-hosts FILE] [--no-user-known-hosts] [--ssh-config FILE] [--open] [PROJECT${PROJECT_SUFFIX}]

Runs the Servelab core headless and serves the workbench UI to a browser on 127.0.0.1 only; a project named
opens in the first page that signs in.
The printed address carries a sign-in code that signs in one browser tab, once; after each use a fresh
address is printed. Without one the core refuses to connect. Paste it into the browser: a link clicked in a
terminal goes through a command line that other users of this machine can read.

  --port N               port on 127.0.0.1 (default: a free one)
  --data-dir DIR         where hosts and accepted host keys are kept (default: ${'$'}SERVELAB_DATA_DIR or ~/.config/servelab)
  --known-hosts FILE     the known_hosts file that accepted keys are written to (default: DIR/known_hosts)
  --no-user-known-hosts  do not also trust ~/.ssh/known_hosts
  --ssh-config FILE      the OpenSSH client config that aliases and ProxyJump come from (default: ~/.ssh/config,
                         with ~ taken from ${'$'}HOME)
  --open                 open the page in the default browser (through a file only you can read, holding a
                         code that is single-use and expires after ${OPEN_LINK_TTL_MS / 1000} seconds)`;

/**
 * Opens `url` in the default browser without putting it on a command line, which every local user can read in
 * /proc: the opener is given a page in a folder only this user can read, which forwards the browser to the URL.
 * Returns a function that removes that page.
 */
export function openInBrowser(url: string): () => void {
  const folder = mkdtempSync(join(tmpdir(), 'servelab-open-'));
  const page = join(folder, 'open.html');
  const escaped = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  writeFileSync(page, `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escaped}"><title>Servelab</title><a href="${escaped}">Open Servelab</a>\n`, { mode: 0o600 });
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(command, [pathToFileURL(page).href], { stdio: 'ignore', detached: true });
  child.on('error', () => {});
  child.unref();
  return () => rmSync(folder, { recursive: true, force: true });
}

/** Starts the core and the loopback host; resolves when the process is asked to stop (SIGINT/SIGTERM). */
export async function runServe(args: string[], io: CliIo, rendererDir: string, stopSignal?: AbortSignal): Promise<number> {
  let values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        'known-hosts': { type: 'string' },
        'no-user-known-hosts': { type: 'boolean' },
        'ssh-config': { type: 'string' },
        open: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: true,
    }));
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${SERVE_USAGE}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(`${SERVE_USAGE}\n`);
    return 0;
  }
  const notProjects = positionals.filter((p) => !isProjectPath(p));
  if (notProjects.length > 0) {
    io.stderr(`Not a project file (a project's name ends with ${PROJECT_SUFFIX}): ${notProjects.join(', ')}\n\n${SERVE_USAGE}\n`);
    return 2;
  }
  const projects = positionals.map((p) => resolve(io.cwd, p));
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr(`--port must be a whole number from 0 to 65535, not "${values.port}"\n`);
    return 2;
  }
  if (!existsSync(join(rendererDir, 'index.html'))) {
    io.stderr(`The workbench UI is not built (${rendererDir} has no index.html): run \`npm run build\` first.\n`);
    return 1;
  }
  const dataDir = values['data-dir'] ?? defaultDataDir(io.env);
  const log = (line: string) => io.stderr(`[servelab] ${line}\n`);
  const simboxBinDir = resolveSimboxBinDir();
  if (!simboxBinDir) log('the simulated GPU box (resources/simbox) was not found: no demo lab');
  const core = await createCore({
    dataDir,
    log,
    env: io.env,
    simboxBinDir,
    ...(values['ssh-config'] ? { sshConfigPath: values['ssh-config'] } : {}),
    ...(values['known-hosts'] ? { appKnownHostsFile: values['known-hosts'] } : {}),
    ...(values['no-user-known-hosts'] ? { userKnownHostsFiles: [] } : {}),
  });
  core.requestOpen(projects);
  // The printed link is spent by the tab that uses it; the next tab or browser needs the next one.
  const host: WsHost = await startWsHost(core, { port, rendererDir, log, onSignIn: () => printLink() });
  function printLink(): void {
    io.stdout(`Servelab UI: ${host.signInUrl()}\n`);
  }
  printLink();
  io.stdout(`Data folder: ${dataDir}\nPress Ctrl+C to stop.\n`);
  // The opener's page gets its own code, which dies within seconds; the page goes with it.
  let removeOpenPage = (): void => {};
  let openPageTimer: NodeJS.Timeout | undefined;
  if (values.open) {
    removeOpenPage = openInBrowser(host.signInUrl(OPEN_LINK_TTL_MS));
    openPageTimer = setTimeout(removeOpenPage, OPEN_LINK_TTL_MS);
    openPageTimer.unref();
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    stopSignal?.addEventListener('abort', stop, { once: true });
  });
  clearTimeout(openPageTimer);
  removeOpenPage();
  await host.close();
  await core.close();
  return 0;
}
