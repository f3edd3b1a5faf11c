import { joinArgs } from '../../../../shared/engines/argv-text';
import type { ParsedServeCommand } from '../../../../shared/engines/command-parse';
import type { WizardDraft } from '../../study-draft/draft';
import { attachFile } from '../../study-draft/draft-files';

/**
 * The draft with a pasted command's engine, version, model and configuration: that engine is enabled and put first,
 * so its configuration is what every trial of it starts from and the study's baseline (the first engine's). The
 * host and port stay Servelab's (it listens where readiness and the stop checks look), so they are not copied.
 */
export function draftFromCommand(d: WizardDraft, parsed: ParsedServeCommand): WizardDraft {
  const { model, host: _host, port: _port, extraArgs, env, maxModelLen, chatTemplate, optionsFile, ...settings } = parsed.config;
  const patch = { ...settings, ...(Object.keys(env).length > 0 ? { env } : {}) };
  // The files the command's text held become the draft's, named by the engine's base settings.
  let withFiles: WizardDraft = d;
  const target = { kind: 'engine', engine: parsed.engine } as const;
  for (const [field, ref] of [['chatTemplate', chatTemplate], ['optionsFile', optionsFile]] as const) {
    const file = ref ? parsed.configFiles?.find((f) => f.name === ref.file) : undefined;
    if (file) withFiles = attachFile(withFiles, target, field, file);
  }
  const refs = withFiles.engines.find((e) => e.engine === parsed.engine)?.files;
  const chosen = d.engines.find((e) => e.engine === parsed.engine);
  const others = d.engines.filter((e) => e.engine !== parsed.engine);
  const engine = {
    ...(chosen ?? { engine: parsed.engine, enabled: true, version: parsed.version, mode: 'env' as const, maxModelLen: '', settings: '', extraArgs: '' }),
    enabled: true,
    version: parsed.version,
    mode: parsed.docker ? ('docker' as const) : ('env' as const),
    maxModelLen: maxModelLen !== undefined ? String(maxModelLen) : '',
    settings: Object.keys(patch).length > 0 ? JSON.stringify(patch) : '',
    extraArgs: extraArgs.length > 0 ? joinArgs(extraArgs) : '',
  };
  const { files: _previous, ...withoutFiles } = engine;
  // As ticking the engine does: its reference stages are proposed, to see whether the command can be beaten.
  return { ...withFiles, modelId: model, engines: [refs ? { ...withoutFiles, files: refs } : withoutFiles, ...others], tuned: [...new Set([...d.tuned, parsed.engine])] };
}

/** What the host and port of the pasted command were, when it set them (Servelab sets its own). */
export function droppedAddress(parsed: ParsedServeCommand): string[] {
  return [...(parsed.config.host !== undefined ? [`host ${parsed.config.host}`] : []), ...(parsed.config.port !== undefined ? [`port ${parsed.config.port}`] : [])];
}

/** The `docker run` options and image of the pasted command, which the study does not use: it runs the engine's own image for the version with its own options. */
export function droppedDocker(parsed: ParsedServeCommand): string | undefined {
  return parsed.docker ? joinArgs([...parsed.docker.args, parsed.docker.image]) : undefined;
}
