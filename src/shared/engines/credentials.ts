import { FLAG_TABLE_IDS, flagTableAt, tableVersions } from './flag-tables';

/**
 * Credentials on a command line are readable by every user of the box (`ps`, /proc/PID/cmdline) and end up in the
 * job's `command` file, server.json, project files and the reports people mail. Servelab therefore refuses them in
 * extra arguments and redacts them wherever a command is shown. The one list of which flags carry a credential is
 * here: every flag of the engines' generated flag tables whose name ends in token/api-key/secret/password/credential
 * and that takes a value (a switch such as vLLM's `--allow-credentials` carries none).
 */

/**
 * A name (without dashes, `_` read as `-`) that says its value is a credential. A bare "token" ending is not enough:
 * `--bucket-time-to-first-token` and `--kt-max-deferred-experts-per-token` are counts.
 */
const CREDENTIAL_NAME = /^(?:(?:.*-)?(?:hf|auth|access|api|bearer|refresh|session|id|github|gh)-)?token$|(?:^|-)(?:api-?key|access-key|secret-key|private-key|secret|password|passwd|credentials?)$/;

/** A flag word's name as compared here: lower case, no leading dashes, `_` as `-`, without `=value` or `.key`. */
function bareName(word: string): string {
  const eq = word.indexOf('=');
  const name = (eq > 0 ? word.slice(0, eq) : word).replace(/^-+/, '').toLowerCase().replace(/_/g, '-');
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

function tabledCredentialFlags(): Set<string> {
  const out = new Set<string>();
  for (const id of FLAG_TABLE_IDS) {
    for (const version of tableVersions(id)) {
      for (const spec of flagTableAt(id, version).flags) {
        if (spec.arity === 'none' || spec.arity === 'negatable') continue;
        for (const name of spec.names) if (name.startsWith('--') && CREDENTIAL_NAME.test(bareName(name))) out.add(bareName(name));
      }
    }
  }
  return out;
}

/** The credential-bearing flags of every tabled engine release, as bare names (`hf-token`, `api-key`, …). */
export const CREDENTIAL_FLAGS: ReadonlySet<string> = tabledCredentialFlags();

/** A flag word (`--hf-token`, `--hf_token=x`, `--api-key`) whose value is a credential. */
export function isCredentialFlag(word: string): boolean {
  if (!word.startsWith('--')) return false;
  const name = bareName(word);
  return CREDENTIAL_FLAGS.has(name) || (CREDENTIAL_NAME.test(name) && !name.startsWith('allow-'));
}

/**
 * What to do instead, per engine and flag: the engine's own environment variable given as a secret reference, which
 * the launch exports from the keychain without writing it anywhere.
 */
export function credentialFlagHint(engine: string | undefined, word: string): string {
  const name = bareName(word);
  const vllmKey = 'store the key in the keychain and set the env var VLLM_API_KEY to {"secretRef": "<its name>"}, which vLLM reads when --api-key is absent';
  if (name === 'hf-token') return 'store the token in the keychain and set the env var HF_TOKEN to {"secretRef": "<its name>"}, which the Hugging Face libraries read';
  if (engine === 'vllm' && name === 'api-key') return vllmKey;
  if (engine === undefined && name === 'api-key') return `for vLLM, ${vllmKey}; other engines read it only from their command line, so leave it out there`;
  return "the engine reads it only from its command line, where every user of the box could read it, so leave it out (the server listens on the box's 127.0.0.1 and Servelab reaches it through SSH)";
}

/** The message that refuses a credential flag in extra args. */
export function credentialFlagRefusal(engine: string | undefined, word: string): string {
  return `--${bareName(word)} would put a credential on the box's process list, in the job files, the project file and reports; remove it from the extra arguments: ${credentialFlagHint(engine, word)}`;
}

/** The message that refuses a token-shaped value given in plain text. */
export const TOKEN_VALUE_REFUSAL = 'looks like a token (hf_…, sk-…, ghp_…, github_pat_…): store it in the keychain and give it as an env var set to {"secretRef": "<its name>"}, never as plain text';

/**
 * Values shaped like well-known tokens: Hugging Face (`hf_…`), OpenAI-style keys (`sk-…`), GitHub (`ghp_…`, `gho_…`,
 * `github_pat_…`). Such a value is refused as a plain env value or an argument, whatever its name.
 */
const TOKEN_SHAPES: readonly RegExp[] = [
  /^hf_[A-Za-z0-9]{20,}$/,
  /^sk-[A-Za-z0-9_-]{20,}$/,
  /^gh[pousr]_[A-Za-z0-9]{20,}$/,
  /^github_pat_[A-Za-z0-9_]{20,}$/,
];

export function looksLikeToken(value: string): boolean {
  const v = value.trim();
  return TOKEN_SHAPES.some((re) => re.test(v));
}

/**
 * The index of each word in `args` that holds a credential: the value after a credential flag (all of them up to the
 * next flag word, since `--api-key` takes several), the word itself when the value is attached (`--hf-token=…`), and
 * any token-shaped word. A bare flag such as vLLM's `--hf-token` (use the box's stored login) holds none.
 */
export function credentialWordIndexes(args: readonly string[]): number[] {
  const out: number[] = [];
  let inValue = false;
  args.forEach((word, i) => {
    const isFlag = word.startsWith('-') && word !== '-' && !/^-\d/.test(word);
    if (isFlag) {
      inValue = false;
      if (isCredentialFlag(word)) {
        if (word.includes('=')) out.push(i);
        else inValue = true;
      } else if (word.includes('=') && looksLikeToken(word.slice(word.indexOf('=') + 1))) {
        out.push(i);
      }
      return;
    }
    if (inValue || looksLikeToken(word)) out.push(i);
  });
  return out;
}

export const REDACTED = '<redacted>';

/** `args` with every credential replaced (`--hf-token <redacted>`, `--api-key=<redacted>`), for display and files. */
export function redactCredentialArgs(args: readonly string[]): string[] {
  const hide = new Set(credentialWordIndexes(args));
  return args.map((word, i) => {
    if (!hide.has(i)) return word;
    const eq = word.indexOf('=');
    return word.startsWith('-') && eq > 0 ? `${word.slice(0, eq + 1)}${REDACTED}` : REDACTED;
  });
}

/**
 * Text that may hold a command (a report cell, a stored `command` string): the value after a credential flag and any
 * token-shaped word become `<redacted>`. For text only; argv is redacted word by word with `redactCredentialArgs`.
 */
export function redactCredentialText(text: string): string {
  let out = text.replace(/(^|[\s'"])(--?[A-Za-z0-9_-]+)([=\s]+)('[^']*'|"[^"]*"|[^\s'"]+)/g, (all, lead: string, flag: string, sep: string, value: string) =>
    isCredentialFlag(flag) && !(sep.trim() === '' && value.startsWith('-')) ? `${lead}${flag}${sep}${sep.includes('=') ? REDACTED : `'${REDACTED}'`}` : all,
  );
  for (const shape of TOKEN_SHAPES) out = out.replace(new RegExp(shape.source.replace(/^\^/, '(?<![A-Za-z0-9_-])').replace(/\$$/, '(?![A-Za-z0-9_-])'), 'g'), REDACTED);
  return out;
}
