import { z } from 'zod';
import { sha256Hex, utf8Length } from '../sha256';
import type { ServerConfig } from './server-config';

/**
 * Files a server reads at start-up (a chat template, an options YAML), kept by the project and copied to the box
 * before a launch. A config names a file by reference (`chatTemplate: { file: 'tool-chat.jinja' }`); the study holds
 * the file itself (name, SHA-256, size, text). On the box each file lives at `~/.servelab/files/<sha256>/<name>`:
 * the checksum in the path makes a changed file a new path, so a launch never reads another launch's version, and a
 * file already there is not copied again.
 */

/** The config fields that name a file, in engine-neutral words; each adapter maps them to its own flag. */
export const CONFIG_FILE_FIELDS = ['chatTemplate', 'optionsFile'] as const;
export type ConfigFileField = (typeof CONFIG_FILE_FIELDS)[number];

/** A project keeps text files only (templates, YAML), each at most this many bytes as UTF-8. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;
/** How many files a study may keep. */
export const MAX_CONFIG_FILES = 32;

/** Where the files are kept on the box, relative to its HOME. */
export const BOX_FILES_ROOT = '.servelab/files';

// One path segment the engine, the shell and every file system read the same: no `/`, no leading dot or dash.
export const ConfigFileNameSchema = z
  .string()
  .min(1, 'is required')
  .max(128, 'is longer than 128 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, 'may only hold letters, digits and . _ + - (starting with a letter or digit)');

export const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'is not a SHA-256 checksum (64 lower-case hex digits)');

/** A config's reference to a file of the study; `sha256` pins the version (the planner sets it from the study's file). */
export const FileRefSchema = z
  .object({
    file: ConfigFileNameSchema,
    sha256: Sha256Schema.optional(),
  })
  .strict();
export type FileRef = z.infer<typeof FileRefSchema>;

/** The fields ServerConfig adds for the files it names (spread into its schema). */
export const CONFIG_FILE_REFS_SHAPE = {
  /** A Jinja chat template the server applies instead of the model's own. */
  chatTemplate: FileRefSchema.optional(),
  /** The engine's options file: vLLM's and SGLang's --config YAML of flags, TensorRT-LLM's --extra_llm_api_options YAML. */
  optionsFile: FileRefSchema.optional(),
} as const;

/** A file as the project keeps it. `size` and `sha256` are of the text's UTF-8 bytes, as `wc -c` and `sha256sum` read the file on the box. */
export const ConfigFileSchema = z
  .object({
    name: ConfigFileNameSchema,
    sha256: Sha256Schema,
    size: z.number().int().min(0),
    content: z.string().refine((s) => !s.includes('\0'), 'must be text (it holds a NUL byte)'),
  })
  .strict()
  .superRefine((file, ctx) => {
    const bytes = utf8Length(file.content);
    if (bytes > MAX_CONFIG_FILE_BYTES) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: tooLarge(file.name, bytes) });
      return;
    }
    if (bytes !== file.size) ctx.addIssue({ code: 'custom', path: ['size'], message: `is ${file.size}, but the content of ${file.name} is ${bytes} bytes` });
    const sha256 = sha256Hex(file.content);
    if (sha256 !== file.sha256) ctx.addIssue({ code: 'custom', path: ['sha256'], message: `does not match the content of ${file.name} (its SHA-256 is ${sha256})` });
  });
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

function tooLarge(name: string, bytes: number): string {
  return `${name} is ${(bytes / 1024 / 1024).toFixed(1)} MiB; a config file may be at most ${MAX_CONFIG_FILE_BYTES / 1024 / 1024} MiB (templates and option files are small text files)`;
}

/** Why a name and text cannot be a file of the project, as facts for the caller to word; undefined when they can. */
export type ConfigFileProblem = { problem: 'name'; message: string } | { problem: 'not-text' } | { problem: 'too-large'; bytes: number };

export function configFileProblem(name: string, content: string): ConfigFileProblem | undefined {
  const named = ConfigFileNameSchema.safeParse(name);
  if (!named.success) return { problem: 'name', message: named.error.issues[0]?.message ?? 'is not valid' };
  if (content.includes('\0')) return { problem: 'not-text' };
  const bytes = utf8Length(content);
  return bytes > MAX_CONFIG_FILE_BYTES ? { problem: 'too-large', bytes } : undefined;
}

/** A file for the project from its name and text: checksum and size computed; an error naming the file when it cannot be one. */
export function configFileOf(name: string, content: string): ConfigFile | { error: string } {
  const problem = configFileProblem(name, content);
  if (problem?.problem === 'name') return { error: `the file name "${name}" ${problem.message}` };
  if (problem?.problem === 'not-text') return { error: `${name} is not a text file (it holds a NUL byte)` };
  if (problem?.problem === 'too-large') return { error: tooLarge(name, problem.bytes) };
  return { name, sha256: sha256Hex(content), size: utf8Length(content), content };
}

/** What a file gets called when nothing names it (a `<( … )`, an inline template, pasted text). */
export const UNNAMED_CONFIG_FILE: Readonly<Record<ConfigFileField, string>> = { chatTemplate: 'chat-template.jinja', optionsFile: 'options.yaml' };

/** A path's last segment as a file name of the project: characters a name may not hold become `-`; the field's default name when none is left. */
export function configFileNameOf(path: string | undefined, field: ConfigFileField): string {
  const base = (path ?? '').split(/[\\/]/).filter(Boolean).pop() ?? '';
  const name = base.replace(/[^A-Za-z0-9._+-]/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 128);
  return name || UNNAMED_CONFIG_FILE[field];
}

/** `~/.servelab/files/<sha256>/<name>`: where the file is on the box (the launcher resolves `~` to the box's HOME). */
export function boxFilePath(file: { name: string; sha256: string }, home = '~'): string {
  return `${home.replace(/\/+$/, '')}/${BOX_FILES_ROOT}/${file.sha256}/${file.name}`;
}

/** A word that is exactly a box file path under `~`: shown unquoted, so a shell that reads the shown command expands `~` as the launch did. */
export const BOX_FILE_WORD = /^~\/\.servelab\/files\/[0-9a-f]{64}\/[A-Za-z0-9][A-Za-z0-9._+-]*$/;

/** Where a reference points for a command shown to people: the box path when it is pinned, else the file's name. */
export function displayFilePath(ref: FileRef): string {
  return ref.sha256 !== undefined ? boxFilePath({ name: ref.file, sha256: ref.sha256 }) : ref.file;
}

/** The files a config names, field by field. */
export function fileRefsOf(config: Partial<Pick<ServerConfig, ConfigFileField>>): { field: ConfigFileField; ref: FileRef }[] {
  const out: { field: ConfigFileField; ref: FileRef }[] = [];
  for (const field of CONFIG_FILE_FIELDS) {
    const ref = config[field];
    if (ref) out.push({ field, ref });
  }
  return out;
}

/** The config with every reference pinned to the checksum of the study's file of that name (left as is when there is none). */
export function pinFileRefs<C extends Partial<Pick<ServerConfig, ConfigFileField>>>(config: C, files: readonly ConfigFile[] | undefined): C {
  if (!files || files.length === 0) return config;
  let out = config;
  for (const { field, ref } of fileRefsOf(config)) {
    const file = files.find((f) => f.name === ref.file);
    if (file && ref.sha256 !== file.sha256) out = { ...out, [field]: { file: ref.file, sha256: file.sha256 } };
  }
  return out;
}

/** The study's file a reference names (its pinned version when the reference carries a checksum). */
export function fileOfRef(files: readonly ConfigFile[] | undefined, ref: FileRef): ConfigFile | undefined {
  return files?.find((f) => f.name === ref.file && (ref.sha256 === undefined || f.sha256 === ref.sha256));
}

/** Build options (`BuildOptions.fileText`) that read the files a config names from the study's; none without files. */
export function fileTextOptions(files: readonly ConfigFile[] | undefined): { fileText?: (ref: FileRef) => string | undefined } {
  return files ? { fileText: (ref) => fileOfRef(files, ref)?.content } : {};
}
