import { z } from 'zod';
import { fieldIssues, parseOrBadInput } from '../contract/errors';
import { HostAddressSchema, PortSchema } from '../model/host';
import { credentialFlagRefusal, isCredentialFlag, looksLikeToken, TOKEN_VALUE_REFUSAL } from './credentials';
import { CONFIG_FILE_REFS_SHAPE } from './config-files';

/**
 * One server launch, independent of the engine. Each adapter maps these knobs onto its own flags
 * (or reports the knob as unsupported); nothing here is an engine flag name.
 */

/** Speculative decoding families, in engine-neutral names; each adapter's table spells them its own way. */
export const SPECULATIVE_ALGORITHMS = ['eagle', 'eagle3', 'mtp', 'ngram', 'draft-model'] as const;
export type SpeculativeAlgorithm = (typeof SPECULATIVE_ALGORITHMS)[number];

/** Algorithms that run a separate draft model and cannot start without its path. */
const NEEDS_DRAFT_MODEL: ReadonlySet<SpeculativeAlgorithm> = new Set(['eagle', 'eagle3', 'draft-model']);

// Reaches the engine as one argv word: an option-looking or multi-line value would be read as something else.
const ArgWordSchema = z
  .string()
  .min(1, 'is required')
  .max(4096, 'is longer than 4096 characters')
  .refine((s) => !/[\0\r\n]/.test(s), 'must not contain NUL or line breaks')
  .refine((s) => !s.startsWith('-'), 'must not start with "-"');

/** A Hugging Face repo id (`org/name`) or a path on the box. */
export const ModelRefSchema = ArgWordSchema;

const positiveInt = (max: number) =>
  z.number().int('must be a whole number').min(1, 'must be at least 1').max(max, `must be at most ${max}`);

/** A value the core resolves from the OS keychain at launch; only the reference is ever stored. */
export const SecretRefSchema = z
  .object({
    secretRef: z
      .string()
      .min(1, 'is required')
      .max(200, 'is longer than 200 characters')
      .regex(/^[A-Za-z0-9_.:/@-]+$/, 'may only hold letters, digits and _ . : / @ -'),
  })
  .strict();
export type SecretRef = z.infer<typeof SecretRefSchema>;

export const EnvNameSchema = z
  .string()
  .min(1, 'is required')
  .max(128, 'is longer than 128 characters')
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be letters, digits and _, not starting with a digit');

/** Names whose values are credentials: these may only be given as a secret reference, never inline. */
export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  if (upper === 'HF_TOKEN' || upper === 'HUGGING_FACE_HUB_TOKEN') return true;
  return (
    /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)(?:_|$)/.test(upper) ||
    // OPENAI_KEY, PROXY_AUTH, GITHUB_PAT
    /_(?:KEY|AUTH|PAT)$/.test(upper)
  );
}

/**
 * Variables that change which code runs before or instead of the engine: the dynamic loader's (`LD_PRELOAD`,
 * `LD_LIBRARY_PATH`, `LD_AUDIT`, any `LD_*`), the shell's start-up files and word splitting (`BASH_ENV`, `ENV`, `IFS`),
 * the program search path, and the Python interpreter's start-up and import path (`PYTHONPATH`, `PYTHONHOME`,
 * `PYTHONSTARTUP`, `PYTHONUSERBASE`). A project file is shared configuration: it may tune the engine, not replace its
 * code. The engine's own environment is where extra Python packages belong.
 */
const LOADER_ENV = new Set(['PATH', 'BASH_ENV', 'ENV', 'IFS', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'CDPATH', 'HOME', 'PYTHONPATH', 'PYTHONHOME', 'PYTHONSTARTUP', 'PYTHONUSERBASE', 'PYTHONEXECUTABLE', 'PYTHONSAFEPATH', 'PERL5OPT', 'PERL5LIB', 'NODE_OPTIONS', 'GCONV_PATH']);

/** Why `name` may not be set in a server's environment, or undefined when it may. */
export function refusedEnvName(name: string): string | undefined {
  const upper = name.toUpperCase();
  if (upper.startsWith('LD_') || upper.startsWith('DYLD_')) return `${name} changes which libraries the dynamic loader runs into every process of the server; Servelab does not set it from a project (install what the engine needs into its environment instead)`;
  if (LOADER_ENV.has(upper)) return `${name} changes which program, shell start-up file or Python code runs instead of the engine's own; Servelab does not set it from a project (install extra packages into the engine's environment instead)`;
  return undefined;
}

const EnvValueSchema = z.union([
  z.string().max(32_768, 'is longer than 32768 characters').refine((s) => !s.includes('\0'), 'must not contain NUL'),
  SecretRefSchema,
]);
export type EnvValue = z.infer<typeof EnvValueSchema>;

export const EnvSchema = z.record(z.string(), EnvValueSchema).superRefine((env, ctx) => {
  for (const [name, value] of Object.entries(env)) {
    const check = EnvNameSchema.safeParse(name);
    const refused = check.success ? refusedEnvName(name) : undefined;
    if (!check.success) {
      ctx.addIssue({ code: 'custom', path: [name], message: `name ${check.error.issues[0]?.message ?? 'is not valid'}` });
    } else if (refused !== undefined) {
      ctx.addIssue({ code: 'custom', path: [name], message: refused });
    } else if (typeof value === 'string' && isSecretEnvName(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: 'holds a credential: give a secret reference ({"secretRef": …}), not the value' });
    } else if (typeof value === 'string' && looksLikeToken(value)) {
      ctx.addIssue({ code: 'custom', path: [name], message: TOKEN_VALUE_REFUSAL });
    }
  }
});

/**
 * Credentials in argv words: a credential flag given a value (`--hf-token hf_…`, `--api-key=…`), or a word shaped
 * like a token. A flag is matched by its spellings here; `validateExtraArgs` also resolves abbreviations per engine.
 */
export function credentialArgIssues(engine: string | undefined, args: readonly string[], canonical: (word: string) => string = (w) => w): { index: number; message: string }[] {
  const out: { index: number; message: string }[] = [];
  const isFlag = (w: string | undefined) => w !== undefined && w.startsWith('-') && w !== '-' && !/^-\d/.test(w);
  let valueOfRefused = false;
  args.forEach((word, i) => {
    if (!isFlag(word) && valueOfRefused) return;
    valueOfRefused = false;
    if (isFlag(word)) {
      const eq = word.indexOf('=');
      const name = canonical(eq > 0 ? word.slice(0, eq) : word);
      const next = args[i + 1];
      if (isCredentialFlag(name) && (eq > 0 || (next !== undefined && !isFlag(next)))) {
        out.push({ index: i, message: credentialFlagRefusal(engine, name) });
        valueOfRefused = true;
      }
      else if (eq > 0 && looksLikeToken(word.slice(eq + 1))) out.push({ index: i, message: `the value of ${word.slice(0, eq)} ${TOKEN_VALUE_REFUSAL}` });
    } else if (looksLikeToken(word)) {
      out.push({ index: i, message: `this argument ${TOKEN_VALUE_REFUSAL}` });
    }
  });
  return out;
}

export const SpeculativeConfigSchema = z
  .object({
    algorithm: z.enum(SPECULATIVE_ALGORITHMS, { error: `must be one of ${SPECULATIVE_ALGORITHMS.join(', ')}` }),
    draftModel: ModelRefSchema.optional(),
    numSteps: positiveInt(64).optional(),
    eagleTopK: positiveInt(64).optional(),
    numDraftTokens: positiveInt(1024).optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    if (NEEDS_DRAFT_MODEL.has(spec.algorithm) && spec.draftModel === undefined) {
      ctx.addIssue({ code: 'custom', path: ['draftModel'], message: `is required for ${spec.algorithm}` });
    }
  });
export type SpeculativeConfig = z.infer<typeof SpeculativeConfigSchema>;

// Engine-specific spellings (quantization method, attention backend, KV dtype) are checked by each adapter's table.
const ChoiceSchema = z
  .string()
  .min(1, 'is required')
  .max(64, 'is longer than 64 characters')
  .regex(/^[A-Za-z0-9_.-]+$/, 'may only hold letters, digits and _ . -');

export const ServerConfigSchema = z
  .object({
    model: ModelRefSchema,
    /** The name clients send in `model`; defaults to the model reference. */
    servedModelName: ArgWordSchema.optional(),
    tensorParallelSize: positiveInt(64).optional(),
    // Parallelism beyond tensor parallelism (parallelism.ts says how many GPUs each layout takes on each engine).
    /** Pipeline stages: the layers split into this many consecutive groups. */
    pipelineParallelSize: positiveInt(64).optional(),
    /** Data-parallel ranks: replicas of the attention (or of the whole engine) behind the one endpoint. */
    dataParallelSize: positiveInt(64).optional(),
    /** GPUs a mixture-of-experts layer spreads its experts over (instead of splitting every expert's weights). */
    expertParallelSize: positiveInt(64).optional(),
    /** Attention run data-parallel inside the tensor-parallel group (SGLang's DP attention). */
    dpAttention: z.boolean().optional(),
    /** Decode context parallelism: the KV cache split along the sequence within the tensor-parallel group. */
    decodeContextParallelSize: positiveInt(64).optional(),
    /** How MoE layers exchange tokens between expert-parallel ranks (engine-specific names, checked by each table). */
    moeAllToAllBackend: ChoiceSchema.optional(),
    host: HostAddressSchema.optional(),
    port: PortSchema.optional(),
    /** Longest request (prompt + output) the server accepts: vLLM max model len, SGLang context length, TRT-LLM max seq len. */
    maxModelLen: positiveInt(10_000_000).optional(),
    /** The engine's GPU memory fraction (each engine measures it differently; see the adapters' tables). */
    gpuMemoryFraction: z.number().gt(0, 'must be above 0').max(1, 'must be at most 1').optional(),
    quantization: ChoiceSchema.optional(),
    kvCacheDtype: ChoiceSchema.optional(),
    cudaGraphMaxBatchSize: positiveInt(65_536).optional(),
    attentionBackend: ChoiceSchema.optional(),
    torchCompile: z.boolean().optional(),
    chunkedPrefill: z.boolean().optional(),
    maxBatchedTokens: positiveInt(10_000_000).optional(),
    maxRunningRequests: positiveInt(1_000_000).optional(),
    speculative: SpeculativeConfigSchema.optional(),
    trustRemoteCode: z.boolean().optional(),
    /** Appended verbatim after the typed flags, one argv word each. */
    extraArgs: z
      .array(
        z
          .string()
          .max(32_768, 'is longer than 32768 characters')
          .refine((s) => !s.includes('\0'), 'must not contain NUL'),
        { error: 'must be a list of strings' },
      )
      .max(1000, 'has more than 1000 entries')
      .superRefine((args, ctx) => {
        for (const issue of credentialArgIssues(undefined, args)) ctx.addIssue({ code: 'custom', path: [issue.index], message: issue.message });
      })
      .default([]),
    env: EnvSchema.default({}),

    // Files the server reads (chat template, options file): references to the study's files, uploaded before launch.
    ...CONFIG_FILE_REFS_SHAPE,
  })
  .strict();

export type ServerConfig = z.infer<typeof ServerConfigSchema>;
/** What callers may pass: `extraArgs` and `env` default to empty. */
export type ServerConfigInput = z.input<typeof ServerConfigSchema>;

/** Parses a config, or throws BAD_INPUT whose issues name each wrong field by dotted path (e.g. `speculative.numSteps`). */
export function parseServerConfig(input: unknown): ServerConfig {
  return parseOrBadInput(ServerConfigSchema, input, 'server config', (error) =>
    fieldIssues(error).flatMap((issue, i) => {
      // zod reports unknown keys once, on the object; name each key instead so the field is clear.
      const raw = error.issues[i];
      if (raw?.code !== 'unrecognized_keys') return [issue];
      const base = raw.path.map(String).join('.');
      return raw.keys.map((key) => ({ path: base ? `${base}.${key}` : key, message: 'is not a known setting' }));
    }),
  );
}
