import { parseArgs } from 'node:util';
import type { CliIo } from '../cli-io';
import { UsageError } from '../command-line';
import { getAdapter } from '../../shared/engines/adapters';
import { joinArgs } from '../../shared/engines/argv-text';
import { commandOfParsed, parseServeCommand, type ParsedServeCommand } from '../../shared/engines/command-parse';
import { KNOB_NAMES, type KnobName } from '../../shared/engines/types';
import { isVersion } from '../../shared/engines/version';
import { knobValue } from '../../shared/engines/command-builder';
import { parallelLayoutLabel, serverGpuCount } from '../../shared/engines/parallelism';

export const COMMAND_USAGE = `Usage: servelab command parse "<command>" [--engine-version V] [--json]
       servelab command parse - [--engine-version V] [--json]          (the command on standard input)
       servelab command parse [--engine-version V] [--json] -- <command words…>

Reads the serve command you already run — vllm serve …, python3 -m sglang.launch_server …, trtllm-serve … — with
variables in front, inside docker run … IMAGE …, over several lines ending in \\, with TensorRT-LLM's
--extra_llm_api_options YAML from a here-document or <(echo '…'), and prints what Servelab reads from it: the engine
and version, the model and typed settings, the flags it keeps verbatim, and the equivalent command it would run.
Every flag is checked against that version's own flag table.

  --engine-version V  check against this engine version (default: the version a pip install in the snippet or the
                      image tag names, else the newest Servelab has the flags of)
  --json              print {"engine", "version", "versionFrom", "config", "refused", "warnings", "credentials"
                      (names of the variables and flags left out as credentials, never values), "docker"?,
                      "files"?, "command"} as JSON; its "config" is what servelab engine launch --config takes
  -h, --help          show this help

Exit codes: 0 the command is valid at that version, 1 a flag is refused (each named with the version) or no
serve command could be read, 2 usage.`;

/** Text the CLI reads for `-`; tests pass their own. */
export type CommandInput = AsyncIterable<Uint8Array | string>;

export async function runCommandParse(args: string[], io: CliIo, stdin: CommandInput = process.stdin): Promise<number> {
  let request: { text: string | '-'; engineVersion?: string; json: boolean } | 'help';
  try {
    request = parseRequest(args);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`servelab command: ${error.message}\n\n${COMMAND_USAGE}\n`);
      return 2;
    }
    throw error;
  }
  if (request === 'help') {
    io.stdout(`${COMMAND_USAGE}\n`);
    return 0;
  }
  const text = request.text === '-' ? await readAll(stdin) : request.text;
  const parsed = parseServeCommand(text, request.engineVersion !== undefined ? { engineVersion: request.engineVersion } : {});
  if ('error' in parsed) {
    if (request.json) io.stdout(`${JSON.stringify({ error: parsed.error }, null, 2)}\n`);
    io.stderr(`servelab command parse: ${parsed.error}\n`);
    return 1;
  }
  const command = commandOfParsed(parsed);
  if (request.json) {
    const { canonical: _canonical, ...rest } = parsed;
    io.stdout(`${JSON.stringify({ ...rest, command }, null, 2)}\n`);
  } else {
    io.stdout(formatParsed(parsed, command));
  }
  return parsed.refused.length > 0 ? 1 : 0;
}

function parseRequest(args: string[]): { text: string; engineVersion?: string; json: boolean } | 'help' {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h' || sub === undefined) return 'help';
  if (sub !== 'parse') throw new UsageError(`unknown subcommand "${sub}"; the only one is parse.`);
  const dashDash = rest.indexOf('--');
  const own = dashDash >= 0 ? rest.slice(0, dashDash) : rest;
  let values;
  let positionals;
  try {
    ({ values, positionals } = parseArgs({
      args: own,
      strict: true,
      allowPositionals: true,
      options: { 'engine-version': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return 'help';
  const words = dashDash >= 0 ? rest.slice(dashDash + 1) : [];
  if (dashDash >= 0 && positionals.length > 0) throw new UsageError('give the command either as one quoted argument or after --, not both.');
  if (dashDash < 0 && positionals.length !== 1) {
    throw new UsageError(positionals.length === 0 ? 'give the serve command as one quoted argument, - for standard input, or after --.' : `expected the command as one quoted argument, got ${positionals.length} arguments (quote it, or put it after --).`);
  }
  if (dashDash >= 0 && words.length === 0) throw new UsageError('no command after --.');
  const version = values['engine-version'];
  if (version !== undefined && !isVersion(version)) throw new UsageError(`--engine-version ${version}: not a version number (e.g. 0.11.0, 0.5.3.post3, 1.2.0rc1).`);
  return { text: dashDash >= 0 ? joinArgs(words) : (positionals[0] as string), ...(version !== undefined ? { engineVersion: version } : {}), json: values.json === true };
}

async function readAll(input: CommandInput): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for await (const chunk of input) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

const FROM: Record<ParsedServeCommand['versionFrom'], string> = {
  option: 'as given by --engine-version',
  command: 'named by the pip install in the command',
  image: 'named by the image tag',
  newest: 'the newest Servelab has the flags of; pass --engine-version to check another',
};

export function formatParsed(parsed: ParsedServeCommand, command: string): string {
  const lines = [
    `${getAdapter(parsed.engine).displayName} ${parsed.version} (${FROM[parsed.versionFrom]})`,
    `Model: ${parsed.config.model}`,
    `GPUs: ${serverGpuCount(parsed.engine, parsed.config)} (${parallelLayoutLabel(parsed.config)})`,
  ];
  const typed = KNOB_NAMES.map((knob: KnobName) => [knob, knobValue(parsed.config, knob)] as const).filter(([, v]) => v !== undefined);
  if (typed.length > 0) lines.push('Typed settings:', ...typed.map(([knob, value]) => `  ${knob}: ${String(value)}`));
  if (parsed.config.extraArgs.length > 0) lines.push(`Kept verbatim (Servelab does not model these): ${joinArgs(parsed.config.extraArgs)}`);
  const env = Object.entries(parsed.config.env);
  if (env.length > 0) lines.push(`Environment: ${env.map(([k, v]) => `${k}=${typeof v === 'string' ? joinArgs([v]) : `<secret ${v.secretRef}>`}`).join(' ')}`);
  if (parsed.docker) lines.push(`Docker image: ${parsed.docker.image}`);
  for (const file of parsed.files ?? []) lines.push(`Options file kept whole: ${file.path}`);
  if (parsed.credentials.length > 0) lines.push(`Left out as credentials (values kept nowhere): ${parsed.credentials.join(', ')}`);
  if (parsed.warnings.length > 0) lines.push('Warnings:', ...parsed.warnings.map((w) => `  - ${w}`));
  if (parsed.refused.length > 0) lines.push('Refused:', ...parsed.refused.map((r) => `  - ${r.message}`));
  lines.push('Equivalent command:', ...command.split('\n').map((l) => `  ${l}`));
  return `${lines.join('\n')}\n`;
}
