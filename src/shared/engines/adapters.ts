import { checkArgs } from './flag-syntax';
import { sglangAdapter } from './sglang';
import { trtllmAdapter } from './trtllm';
import type { EngineAdapter, EngineId, ExtraArgIssue } from './types';
import { FLAG_TABLE_COMMAND, versionsWithFlag } from './flag-tables';
import { vllmAdapter } from './vllm';

export const ENGINE_ADAPTERS: Readonly<Record<EngineId, EngineAdapter>> = {
  vllm: vllmAdapter,
  sglang: sglangAdapter,
  trtllm: trtllmAdapter,
};

export function getAdapter(engine: EngineId): EngineAdapter {
  return ENGINE_ADAPTERS[engine];
}


export interface ExtraArgsCheck {
  /** True when nothing would make the engine's parser refuse the command. */
  ok: boolean;
  issues: ExtraArgIssue[];
  /** The version whose flag table was used (the nearest tabled one, for a version Servelab has no table for). */
  checkedAgainst: string;
}

/**
 * Checks the free-form argv tail before launch: a name the engine's CLI does not have at `version` is an error
 * ("unknown flag: --x"), so the UI can refuse the launch instead of spending a GPU start on it.
 */
export function validateExtraArgs(engine: EngineId, version: string, args: readonly string[]): ExtraArgsCheck {
  const adapter = getAdapter(engine);
  const table = adapter.flagTable(version);
  const issues = checkArgs(table, args, { program: FLAG_TABLE_COMMAND[engine], versionsWith: (name) => versionsWithFlag(engine, name) });
  if (table.version !== version && args.length > 0) {
    issues.unshift({
      index: -1,
      arg: '',
      severity: 'warning',
      message: `${adapter.displayName} ${version} is not a version Servelab has the flags of; they are checked against ${table.version}'s`,
    });
  }
  return { ok: !issues.some((i) => i.severity === 'error'), issues, checkedAgainst: table.version };
}
