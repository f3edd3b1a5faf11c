import {
  dockerImage,
  getAdapter,
  ServerConfigSchema,
  validateExtraArgs,
  type EngineId,
  type ExtraArgsCheck,
  type ServerConfig,
} from '../../../../shared/engines';
import { shellCommand } from '../../../../shared/shell-quote';
import { HF_TOKEN_REF } from '../../../../shared/model/model-prefetch';

export const DEFAULT_MODEL = 'Qwen/Qwen3-8B';

export type LaunchMode = 'env' | 'docker';

export interface LaunchForm {
  engine: EngineId;
  version: string;
  mode: LaunchMode;
  /** Gives the server HF_TOKEN from the keychain's `hf-token`. */
  passHfToken: boolean;
  model: string;
  port: string;
  tensorParallel: string;
  maxModelLen: string;
  gpuMemoryFraction: string;
  gpus: string;
  extraArgs: string;
}

export function emptyLaunchForm(engine: EngineId, version: string): LaunchForm {
  return { engine, version, mode: 'env', passHfToken: false, model: DEFAULT_MODEL, port: '', tensorParallel: '', maxModelLen: '', gpuMemoryFraction: '', gpus: '', extraArgs: '' };
}

export function splitWords(text: string): string[] {
  return text.split(/\s+/).filter((word) => word !== '');
}

/** A shell-readable rendering of argv, quoted exactly as the commands that run on a box. */
export const shellJoin = shellCommand;

export interface LaunchPlan {
  /** Field path → message, from the config schema and the number fields. */
  fieldErrors: Record<string, string>;
  extra: ExtraArgsCheck | null;
  config: ServerConfig | null;
  gpus: string[];
  command: string | null;
  warnings: string[];
  buildError: string | null;
  /** Docker mode: the official image the server runs in (the core builds the `docker run` around the command). */
  image: string | null;
  /** Variables the core fills from the keychain at launch: only their names are ever shown. */
  secretEnv: { name: string; secretRef: string }[];
}

function numberField(raw: string, key: string, errors: Record<string, string>, message: string): number | undefined {
  const text = raw.trim();
  if (text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) {
    errors[key] = message;
    return undefined;
  }
  return value;
}

/** Everything the launch panel shows about the form: field problems, the extra-args check and the exact command. */
export function planLaunch(form: LaunchForm, notANumber: string): LaunchPlan {
  const fieldErrors: Record<string, string> = {};
  const args = splitWords(form.extraArgs);
  const extra = form.version ? validateExtraArgs(form.engine, form.version, args) : null;
  const raw = {
    model: form.model.trim(),
    port: numberField(form.port, 'port', fieldErrors, notANumber),
    tensorParallelSize: numberField(form.tensorParallel, 'tensorParallelSize', fieldErrors, notANumber),
    maxModelLen: numberField(form.maxModelLen, 'maxModelLen', fieldErrors, notANumber),
    gpuMemoryFraction: numberField(form.gpuMemoryFraction, 'gpuMemoryFraction', fieldErrors, notANumber),
    extraArgs: args,
    env: form.passHfToken ? { HF_TOKEN: { secretRef: HF_TOKEN_REF } } : undefined,
  };
  const input = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined));
  const parsed = ServerConfigSchema.safeParse(input);
  let config: ServerConfig | null = null;
  if (parsed.success) {
    config = parsed.data;
  } else {
    for (const issue of parsed.error.issues) {
      const key = issue.path.map(String).join('.') || 'config';
      if (!(key in fieldErrors)) fieldErrors[key] = issue.message;
    }
  }
  const gpus = form.gpus.split(/[\s,]+/).filter((g) => g !== '');
  let command: string | null = null;
  let warnings: string[] = [];
  let buildError: string | null = null;
  let image: string | null = null;
  let secretEnv: { name: string; secretRef: string }[] = [];
  if (config && form.version) {
    try {
      const built = getAdapter(form.engine).buildArgv(config, form.version);
      const envPrefix = Object.entries(built.env).map(([name, value]) => `${name}=${shellJoin([value])}`);
      command = [...envPrefix, shellJoin(built.argv)].join(' ');
      warnings = [...built.warnings, ...built.unsupported.map((u) => `${u.knob}: ${u.reason}`)];
      secretEnv = built.secretEnv;
      if (form.mode === 'docker') image = dockerImage(form.engine, form.version);
    } catch (e) {
      buildError = e instanceof Error ? e.message : String(e);
    }
  }
  return { fieldErrors, extra, config, gpus, command, warnings, buildError, image, secretEnv };
}
