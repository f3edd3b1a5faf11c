import { getAdapter } from '../../engines/adapters';
import { splitArgs } from '../../engines/argv-text';
import type { ServerConfig } from '../../engines/server-config';
import type { EngineId } from '../../engines/types';

/**
 * A guide's server command → engine and typed config, for the guide reader: the one place it asks the engines' own
 * command reader, so the reader never reads flags itself.
 */
export interface ServeRead {
  engine: EngineId;
  config: ServerConfig;
  /** What the command says that the study cannot take (a refused flag, a value out of range), in words. */
  problems: string[];
}

const PROGRAMS: readonly [RegExp, EngineId][] = [
  [/^vllm\s+serve\b/, 'vllm'],
  [/^python3?\s+-m\s+sglang\.launch_server\b/, 'sglang'],
  [/^trtllm-serve\b/, 'trtllm'],
];

export function readServeCommand(text: string, versions: Partial<Record<EngineId, string>>): ServeRead | { error: string } {
  const bare = text.replace(/^(?:sudo\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*/, '');
  const engine = PROGRAMS.find(([re]) => re.test(bare))?.[1];
  if (!engine) return { error: 'not a server command Servelab knows' };
  const adapter = getAdapter(engine);
  void versions;
  const words = splitArgs(bare).words.slice(engine === 'sglang' ? 3 : engine === 'vllm' ? 2 : 1);
  const config: Record<string, unknown> = { extraArgs: [], env: {} };
  const speculative: Record<string, unknown> = {};
  const problems: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (!word.startsWith('-')) {
      if (config.model === undefined) config.model = word;
      else (config.extraArgs as string[]).push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const flag = eq > 0 ? word.slice(0, eq) : word;
    const takeValue = (): string | undefined => (eq > 0 ? word.slice(eq + 1) : words[++i]);
    if (flag === '--model' || flag === '--model-path') {
      config.model = takeValue();
      continue;
    }
    const row = adapter.knobTable.find((r) => (r.to.kind === 'option' && r.to.flag === flag) || (r.to.kind === 'switch' && r.to.on?.[0] === flag));
    if (!row) {
      (config.extraArgs as string[]).push(word);
      continue;
    }
    let value: unknown = row.to.kind === 'switch' ? true : takeValue();
    if (typeof value === 'string' && row.values) value = Object.entries(row.values).find(([, v]) => v === value)?.[0] ?? value;
    if (typeof value === 'string' && /^\d+$/.test(value)) value = Number(value);
    if (row.knob.startsWith('speculative.')) speculative[row.knob.slice('speculative.'.length)] = value;
    else config[row.knob] = value;
  }
  if (Object.keys(speculative).length > 0) config.speculative = speculative;
  return { engine, config: config as ServerConfig, problems };
}
