import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { readFile } from 'node:fs/promises';
import type { CliIo } from '../cli-io';
import { UsageError } from '../command-line';
import { BOX_OPTIONS, BOX_OPTIONS_USAGE, openCliBox } from '../box-options';
import { ServelabError } from '../../shared/contract';
import type { ServerConfigInput } from '../../shared/engines';
import { configFileNameOf, configFileOf, type ConfigFile, type ConfigFileField } from '../../shared/engines/config-files';
import { EngineInstaller } from '../../core/engines/engine-installer';
import { launchServer, readServerRecord, stopRecordedServer, type StopReport } from '../../core/engines/server-launcher';
import type { ReleasableBox } from '../../core/engines/engine-handlers';
import { prefetchModel } from '../../core/engines/model-prefetch';
import { HF_TOKEN_REF } from '../../shared/model/model-prefetch';
import { FLAG_TABLE_COMMAND, FLAG_TABLE_IDS, printedFlags, tableSource, tableVersions, type FlagTableId } from '../../shared/engines/flag-tables';

export const ENGINE_USAGE = `Usage: servelab engine <install|list|remove|launch|stop|prefetch> … (--demo | --host [user@]host [options])
       servelab engine flags <vllm|vllm-bench|sglang|trtllm> <version> [--json]

  install <vllm|sglang|trtllm> <version> [--force] [--docker]
                         create ~/.servelab/engines/<engine>-<version>/ on the box (uv, else python3 -m venv + pip),
                         install the exact version and check that it imports; skipped when already verified;
                         --docker: docker pull the engine's official image instead
  list                   the engine environments installed on the box, and the engine images docker has
  remove <engine> <version>
                         delete that environment
  launch <engine> <version> --model M [--config FILE.json] [--server-port N] [--tp N] [--max-model-len N]
         [--gpu-memory-fraction F] [--gpus 0,1] [--timeout SECONDS] [--docker]
         [--chat-template FILE] [--options-file FILE] [-- EXTRA ENGINE ARGS…]
                         start a server from the environment, wait until it is ready, print its port and command,
                         then stream its log; Ctrl+C stops it and checks the port and GPU memory are free;
                         --chat-template / --options-file: a text file on this machine (at most 1 MiB), copied to
                         ~/.servelab/files/<sha256>/ on the box unless it is there, and passed with the engine's flag;
                         --server-port: the server's port on the box (default: a free one; -p is the SSH port);
                         --docker: docker run the pulled image (container servelab-<serverId>, port on 127.0.0.1)
  stop <serverId>        stop a server started by an earlier launch (its record is kept on the box)
  flags <table> <version>
                         the flags that version's own parser accepts (vllm: vllm serve, vllm-bench: vllm bench
                         serve, sglang: sglang.launch_server, trtllm: trtllm-serve), read from its source at the
                         release; --json prints [{"names", "arity", "choices"?}]; no box is needed
  prefetch <engine> <version> --model M [--revision R]
                         download the model into the box's Hugging Face cache with the environment's
                         huggingface_hub, so a timed launch reads it from disk; a path on the box is skipped.
                         A gated model needs HF_TOKEN in this command's environment (passed to the box as
                         environment only, never written or printed)

Where:
${BOX_OPTIONS_USAGE}
  --json                 machine-readable output (install, list, stop, prefetch)

Exit codes: 0 ok, 1 failure (or a stop that left something behind), 2 usage.`;

export interface EngineCommandOptions {
  /** Ends a running `launch` (Ctrl+C); default: SIGINT/SIGTERM of this process. */
  signal?: AbortSignal;
}

export async function runEngine(args: string[], io: CliIo, opts: EngineCommandOptions = {}): Promise<number> {
  const dashDash = args.indexOf('--');
  const own = dashDash >= 0 ? args.slice(0, dashDash) : args;
  const extraArgs = dashDash >= 0 ? args.slice(dashDash + 1) : [];
  let parsed;
  try {
    parsed = parseArgs({
      args: own,
      strict: true,
      allowPositionals: true,
      options: {
        ...BOX_OPTIONS,
        force: { type: 'boolean' },
        json: { type: 'boolean' },
        model: { type: 'string' },
        revision: { type: 'string' },
        config: { type: 'string' },
        'chat-template': { type: 'string' },
        'options-file': { type: 'string' },
        // The server's own port; -p/--port is the SSH port, as in every command that reaches a host.
        'server-port': { type: 'string' },
        tp: { type: 'string' },
        'max-model-len': { type: 'string' },
        'gpu-memory-fraction': { type: 'string' },
        gpus: { type: 'string' },
        timeout: { type: 'string' },
        docker: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.stderr(`servelab engine: ${(error as Error).message}\n\n${ENGINE_USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [action, ...rest] = positionals;
  if (values.help || action === undefined) {
    io.stdout(`${ENGINE_USAGE}\n`);
    return values.help ? 0 : 2;
  }

  if (action === 'flags') return printFlags(rest, values.json ?? false, io);

  let box: ReleasableBox | undefined;
  try {
    const need = (count: number, what: string) => {
      if (rest.length !== count) throw new UsageError(`${action} takes ${what}.`);
    };
    switch (action) {
      case 'install':
      case 'remove':
        need(2, '<engine> <version>');
        break;
      case 'list':
        need(0, 'no arguments');
        break;
      case 'launch':
        need(2, '<engine> <version>');
        if (values.model === undefined && values.config === undefined) throw new UsageError('launch needs --model or --config.');
        break;
      case 'stop':
        need(1, '<serverId>');
        break;
      case 'prefetch':
        need(2, '<engine> <version>');
        if (values.model === undefined) throw new UsageError('prefetch needs --model.');
        break;
      default:
        throw new UsageError(`unknown action "${action}".`);
    }
    if (extraArgs.length > 0 && action !== 'launch') throw new UsageError('only launch takes engine arguments after --.');
    if (values.docker && action !== 'install' && action !== 'launch') throw new UsageError('--docker applies to install and launch only.');
    if (values.docker && values.demo) {
      throw new ServelabError('BAD_INPUT', 'The demo lab has no docker: it simulates a box with Python environments only. Leave out --docker, or use --host with a box that has docker.');
    }
    const launching = action === 'launch' ? await launchConfig(values, extraArgs, io) : undefined;
    box = await openCliBox(values, io);

    if (action === 'list') {
      const envs = await new EngineInstaller(box).list();
      if (values.json) io.stdout(`${JSON.stringify(envs, null, 2)}\n`);
      else if (envs.length === 0) io.stdout('No engine installed on this box.\n');
      else for (const e of envs) io.stdout(`${e.engine} ${e.version}\t${e.mode}\tverified ${e.verifiedVersion}\t${e.tool}\t${e.installedAt}\t${e.dir}\n`);
      return 0;
    }
    const [first = '', second = ''] = rest;
    if (action === 'install') {
      const result = await new EngineInstaller(box).install(first, second, {
        force: values.force ?? false,
        mode: values.docker ? 'docker' : 'env',
        onLog: values.json ? undefined : (text) => io.stderr(text),
        onProgress: values.json ? undefined : (p) => io.stderr(`servelab: [${String(p.percent).padStart(3)}%] ${p.phase}\n`),
      });
      io.stdout(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${result.message}\n`);
      return result.ok ? 0 : 1;
    }
    if (action === 'remove') {
      const result = await new EngineInstaller(box).remove(first, second);
      io.stdout(result.removed ? `Removed ${result.dir}.\n` : `Nothing to remove: ${result.dir} does not exist.\n`);
      return 0;
    }
    if (action === 'stop') {
      const report = await stopRecordedServer(box, await readServerRecord(box, first));
      io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatStop(report));
      return report.leftovers.length === 0 ? 0 : 1;
    }
    if (action === 'prefetch') return await prefetch(box, first, second, values, io);
    return await launch(box, first, second, launching as LaunchInput, values, io, opts);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab engine: ${error.message}\n\n${ENGINE_USAGE}\n`);
      return 2;
    }
    io.stderr(`servelab engine: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof ServelabError && error.issues) for (const issue of error.issues) io.stderr(`  ${issue.path}: ${issue.message}\n`);
    return 1;
  } finally {
    box?.release();
  }
}

type Values = Record<string, string | boolean | undefined>;

async function launch(box: ReleasableBox, engine: string, version: string, { config, files }: LaunchInput, values: Values, io: CliIo, opts: EngineCommandOptions): Promise<number> {
  const gpus = typeof values.gpus === 'string' ? values.gpus.split(',').map((g) => g.trim()).filter(Boolean) : undefined;
  const timeoutSeconds = typeof values.timeout === 'string' ? positiveNumber(values.timeout, '--timeout') : undefined;
  const server = await launchServer(box, {
    engine,
    version,
    config,
    ...(gpus ? { gpus } : {}),
    mode: values.docker ? 'docker' : 'env',
    onLog: (text) => io.stdout(text),
    ...(files.length > 0 ? { files } : {}),
    onFilesPlaced: (placed) => {
      for (const f of placed) io.stderr(`servelab: ${f.name} (SHA-256 ${f.sha256.slice(0, 12)}…) ${f.uploaded ? 'uploaded to' : 'already at'} ${f.path}\n`);
    },
  });
  io.stderr(`servelab: server ${server.serverId} starting on port ${server.port} (stop it later with: servelab engine stop ${server.serverId} …)\n`);

  const stopper = new AbortController();
  const outer = opts.signal;
  const onSignal = () => stopper.abort();
  if (outer) outer.addEventListener('abort', onSignal, { once: true });
  else {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  try {
    const ready = server.waitReady(timeoutSeconds !== undefined ? timeoutSeconds * 1000 : undefined);
    const interrupted = new Promise<'interrupted'>((resolve) => stopper.signal.addEventListener('abort', () => resolve('interrupted'), { once: true }));
    const first = await Promise.race([ready.then(() => 'ready' as const), interrupted]);
    if (first === 'ready') {
      io.stderr(`servelab: READY on 127.0.0.1:${server.port} (on the box)\nservelab: command: ${server.record.command}\nservelab: Ctrl+C stops the server.\n`);
      const ended = await Promise.race([server.whenExited().then(() => 'exited' as const), interrupted]);
      if (ended === 'exited') {
        const verdict = server.classification;
        io.stderr(`servelab: the server ended on its own${verdict ? `: ${verdict.class} — ${verdict.evidence}\nservelab: ${verdict.hint}` : ''}\n`);
        io.stderr(formatStop(await server.stop()));
        return 1;
      }
    }
    io.stderr('servelab: stopping…\n');
    const report = await server.stop();
    io.stderr(formatStop(report));
    return report.leftovers.length === 0 ? 0 : 1;
  } catch (error) {
    // waitReady has classified the failure; the group is stopped so nothing keeps holding the GPU.
    io.stderr(`servelab engine: ${(error as Error).message}\n`);
    io.stderr(formatStop(await server.stop()));
    return 1;
  } finally {
    if (outer) outer.removeEventListener('abort', onSignal);
    else {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
  }
}

async function prefetch(box: ReleasableBox, engine: string, version: string, values: Values, io: CliIo): Promise<number> {
  // Headless runs have no keychain: the token comes from this process's environment and goes only to the job's.
  const token = io.env.HF_TOKEN || undefined;
  const result = await prefetchModel(box, {
    engine,
    version,
    model: String(values.model),
    ...(typeof values.revision === 'string' ? { revision: values.revision } : {}),
    ...(token ? { hfTokenRef: HF_TOKEN_REF, resolveSecret: async () => token } : {}),
    onLog: values.json ? undefined : (text) => io.stderr(text),
  });
  io.stdout(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${result.message}\n`);
  return 0;
}

function formatStop(report: StopReport): string {
  const lines = [
    `servelab: stopped (${report.signal === 'none' ? 'it had already ended' : `SIG${report.signal}`}); port ${report.portClosed ? 'closed' : 'STILL OPEN'}; GPU memory ${report.gpuMemoryReleased ? 'released' : 'STILL HELD'}.`,
    ...report.leftovers.map((l) => `servelab: LEFTOVER: ${l}`),
  ];
  return `${lines.join('\n')}\n`;
}

interface LaunchInput {
  config: ServerConfigInput;
  files: ConfigFile[];
}

async function launchConfig(values: Values, extraArgs: string[], io: CliIo): Promise<LaunchInput> {
  let config: Record<string, unknown> = {};
  if (typeof values.config === 'string') {
    try {
      config = JSON.parse(await readFile(resolve(io.cwd, values.config), 'utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new UsageError(`--config ${values.config}: ${(error as Error).message}`);
    }
  }
  if (typeof values.model === 'string') config.model = values.model;
  if (typeof values['server-port'] === 'string') config.port = positiveNumber(values['server-port'], '--server-port');
  if (typeof values.tp === 'string') config.tensorParallelSize = positiveNumber(values.tp, '--tp');
  if (typeof values['max-model-len'] === 'string') config.maxModelLen = positiveNumber(values['max-model-len'], '--max-model-len');
  if (typeof values['gpu-memory-fraction'] === 'string') config.gpuMemoryFraction = positiveNumber(values['gpu-memory-fraction'], '--gpu-memory-fraction');
  if (extraArgs.length > 0) config.extraArgs = [...(Array.isArray(config.extraArgs) ? (config.extraArgs as string[]) : []), ...extraArgs];
  const files: ConfigFile[] = [];
  for (const [option, field] of [['chat-template', 'chatTemplate'], ['options-file', 'optionsFile']] as const satisfies readonly (readonly [string, ConfigFileField])[]) {
    const path = values[option];
    if (typeof path !== 'string') continue;
    let text: string;
    try {
      text = await readFile(resolve(io.cwd, path), 'utf8');
    } catch (error) {
      throw new UsageError(`--${option} ${path}: ${(error as Error).message}`);
    }
    const file = configFileOf(configFileNameOf(path, field), text);
    if ('error' in file) throw new UsageError(`--${option} ${path}: ${file.error}`);
    if (files.some((f) => f.name === file.name)) throw new UsageError(`--${option} ${path}: another file of the launch is also named ${file.name}; rename one of them`);
    files.push(file);
    config[field] = { file: file.name };
  }
  return { config: config as ServerConfigInput, files };
}

function positiveNumber(text: string, option: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${option} ${text}: must be a positive number.`);
  return value;
}


/** `engine flags TABLE VERSION`: the generated flag table of one release, as its parser defines it. */
function printFlags(rest: string[], json: boolean, io: CliIo): number {
  const [id, version] = rest;
  if (rest.length !== 2 || !id || !version) {
    io.stderr(`servelab engine: flags takes <${FLAG_TABLE_IDS.join('|')}> <version>.\n\n${ENGINE_USAGE}\n`);
    return 2;
  }
  if (!(FLAG_TABLE_IDS as readonly string[]).includes(id)) {
    io.stderr(`servelab engine: no flag table for "${id}"; there are ${FLAG_TABLE_IDS.join(', ')}.\n`);
    return 2;
  }
  const table = id as FlagTableId;
  const source = tableSource(table, version);
  if (!source) {
    io.stderr(`servelab engine: ${FLAG_TABLE_COMMAND[table]} ${version} has no flag table; tabled releases: ${tableVersions(table).join(', ')}.\n`);
    return 1;
  }
  const flags = printedFlags(table, version);
  if (json) {
    io.stdout(`${JSON.stringify(flags, null, 2)}\n`);
    return 0;
  }
  io.stdout(`${FLAG_TABLE_COMMAND[table]} ${version}: ${flags.length} flags, read at ${source.commit.slice(0, 12)} (${source.ref})${source.exact ? '' : '; not the release tag itself'}\n`);
  for (const f of flags) {
    const values = f.choices ? ` {${f.choices.join(',')}}` : '';
    io.stdout(`  ${f.names.join(', ')}  ${f.arity}${f.count !== undefined ? ` ${f.count}` : ''}${values}\n`);
  }
  return 0;
}
