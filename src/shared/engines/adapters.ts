import { checkArgs } from './flag-syntax';
import { sglangAdapter } from './sglang';
import { trtllmAdapter } from './trtllm';
import type { EngineAdapter, EngineId, ExtraArgIssue } from './types';
import { isVersion, nearestKnown } from './version';
import { vllmAdapter } from './vllm';

export const ENGINE_ADAPTERS: Readonly<Record<EngineId, EngineAdapter>> = {
  vllm: vllmAdapter,
  sglang: sglangAdapter,
  trtllm: trtllmAdapter,
};

export function getAdapter(engine: EngineId): EngineAdapter {
  return ENGINE_ADAPTERS[engine];
}

const PROGRAM: Record<EngineId, string> = { vllm: 'vllm serve', sglang: 'sglang.launch_server', trtllm: 'trtllm-serve' };

export interface ExtraArgsCheck {
  /** True when nothing would make the engine's parser refuse the command. */
  ok: boolean;
  issues: ExtraArgIssue[];
  /** The known version whose flag list was used (the nearest one, for a version Servelab has no list for). */
  checkedAgainst: string;
}

/**
 * Checks the free-form argv tail before launch: a name the engine's CLI does not have at `version` is an error
 * ("unknown flag: --x"), so the UI can refuse the launch instead of spending a GPU start on it.
 */
export function validateExtraArgs(engine: EngineId, version: string, args: readonly string[]): ExtraArgsCheck {
  const adapter = getAdapter(engine);
  const checkedAgainst = (isVersion(version) ? nearestKnown(version, adapter.knownVersions) : undefined) ?? (adapter.knownVersions[0] as string);
  const issues = checkArgs(adapter.flagTable(version), version, args, PROGRAM[engine]);
  if (checkedAgainst !== version && args.length > 0) {
    issues.unshift({
      index: -1,
      arg: '',
      severity: 'warning',
      message: `${adapter.displayName} ${version} is not a version Servelab knows; flags are checked against ${checkedAgainst}'s list`,
    });
  }
  return { ok: !issues.some((i) => i.severity === 'error'), issues, checkedAgainst };
}
