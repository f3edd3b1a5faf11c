// The `servelab` command: the same core as the desktop app, without Electron.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { runInventory } from './commands/inventory';
import { runServe } from './commands/serve';
import { runClassifyLog } from './commands/classify-log';
import { runEngine } from './commands/engine';
import { runImport } from './commands/import';
import { runBench } from './commands/bench';
import { runRun } from './commands/run';
import { runReport } from './commands/report';
import { runStudyRerun } from './commands/study-rerun';
import { runSsh } from './commands/ssh';
import { runCommandParse } from './commands/command';
import { runStudy } from './commands/study';
import { terminalSafeIo, type CliIo } from './cli-io';
import { APP_NAME, APP_VERSION } from '../core/dispatch/app-identity';

export const USAGE = `${APP_NAME} ${APP_VERSION}: find the fastest way to serve an LLM on your own GPU boxes.

Usage: servelab <command> [options]

Commands:
  inventory <user@host | ssh-alias> [-p N] [-i FILE] [-J HOPS] [--known-hosts FILE] [--accept-new] [-v] [--json]
                     read a GPU box over SSH: GPUs, driver/CUDA, OS, Python, uv/pip/docker, disk
  classify-log <file|-> [--engine vllm|sglang|trtllm] [--json]
                     why an engine's server log failed (or that it became ready), and what to change
  engine install|list|remove|launch|stop|prefetch … (--demo | --host [user@]host [-p N] [-i FILE] [-J HOPS])
                     install engines side by side, prefetch models, launch a server until ready, stop it cleanly
  bench run|presets|datasets|fetch-sharegpt … (--demo | --host [user@]host [-p N] [-i FILE] [-J HOPS])
                     run a vllm bench serve workload against a launched server; results kept with provenance
  run <project.servelab> [--data-dir DIR] [--quiet]
                     run or resume a study: stages on every GPU of its hosts, decisions, a recommendation
  study from-guide <guide.md|.html|.txt> --out <study.servelab> [--host ID] [--json]
                     open a tuning guide as a study: its stages and candidates, its published results beside yours
  report <project.servelab> [--format md|html|csv] [--lang en|tr] [--out FILE]
                     the study report: recommendation, scenarios, stages, setup (Markdown, HTML or CSV)
  rerun <project.servelab> --out NEW.servelab [--engine ENGINE=VERSION]... [--host ID] [--name N]
  rerun --compare <rerun.servelab> [--fail-on-regression]
                     re-run a finished study at other engine versions or on another host; compare it with the original
  import <file|folder>... [--json | --jsonl]
                     read vllm bench serve / sglang bench_serving results (text or JSON) into normalized records
  ssh resolve <[user@]ssh-alias> [-F FILE] [-l USER] [-p N] [-i FILE] [-J HOPS] [--json] [--resolver auto|ssh|built-in]
                     how Servelab will reach a host, resolved as ssh resolves it (ssh -G where installed)
  command parse "<serve command>" [--engine-version V] [--json]
                     read the vllm serve / sglang.launch_server / trtllm-serve command you already run into
                     Servelab's typed settings, check every flag against that version, print the equivalent command
  serve [--port N] [--open]
                     run the core headless and serve the workbench UI on 127.0.0.1 (token-protected)

Run \`servelab <command> --help\` for a command's options.`;

export async function runCli(argv: string[], rawIo: CliIo, rendererDir: string): Promise<number> {
  const safe = terminalSafeIo(rawIo);
  try {
    return await runCommand(argv, safe.io, rendererDir);
  } finally {
    safe.end();
  }
}

async function runCommand(argv: string[], io: CliIo, rendererDir: string): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'inventory':
      return runInventory(rest, io);
    case 'serve':
      return runServe(rest, io, rendererDir);
    case 'classify-log':
      return runClassifyLog(rest, io);
    case 'engine':
      return runEngine(rest, io);
    case 'import':
      return runImport(rest, io);
    case 'bench':
      return runBench(rest, io);
    case 'report':
      return runReport(rest, io);
    case 'study':
      return runStudy(rest, io);
    case 'run':
      return runRun(rest, io);
    case 'rerun':
      return runStudyRerun(rest, io);
    case 'ssh':
      return runSsh(rest, io);
    case 'command':
      return runCommandParse(rest, io);
    case '--version':
    case '-v':
      io.stdout(`${APP_VERSION}\n`);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.stdout(`${USAGE}\n`);
      return 0;
    default:
      io.stderr(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

// Run only when this file is the program (out/main/cli.js), not when a test imports it.
const isEntry = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
const launchedByBin = process.env.SERVELAB_CLI_ENTRY === '1';
delete process.env.SERVELAB_CLI_ENTRY;
if (isEntry || launchedByBin) {
  const here = fileURLToPath(new URL('.', import.meta.url));
  // A reader that stops early (`servelab engine flags vllm 0.11.0 | head`) closes the pipe: that ends the output, quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    isTTY: { stdout: process.stdout.isTTY === true, stderr: process.stderr.isTTY === true },
  };
  runCli(process.argv.slice(2), io, join(here, '../renderer'))
    .then((code) => {
      process.exitCode = code;
    })
    .catch((error: unknown) => {
      process.stderr.write(`servelab: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    });
}
