import { say, type Messages, type PlainMessageKey } from '../i18n';

/**
 * The wizard's problems in the language of the messages given. The shared schemas speak English (the core and the CLI
 * use them too), so their messages, and zod's generic ones, are translated here: known messages by their exact English
 * text, zod's own wording by the issue's code and params. Anything else is shown as it came.
 */

/** What the wizard reads of a zod issue; a structural subset, so the renderer needs no zod import. */
export interface SchemaIssue {
  readonly code?: string;
  readonly message: string;
  readonly origin?: string;
  readonly maximum?: number | bigint;
  readonly minimum?: number | bigint;
  readonly inclusive?: boolean;
  readonly expected?: string;
  readonly keys?: readonly string[];
  readonly values?: readonly unknown[];
}

/** The schemas' fixed messages (src/shared/study, bench/workload, engines/server-config) and the wizard's own. */
const FIXED: Readonly<Record<string, PlainMessageKey>> = {
  'is required': 'wizard.issue.required',
  'must be a number': 'wizard.issue.notNumber',
  'must be a whole number': 'wizard.issue.wholeNumber',
  'is not valid JSON': 'wizard.issue.notJson',
  'needs at least one GPU ticked': 'wizard.issue.noGpuTicked',
  'needs at least one': 'wizard.issue.needsOne',
  'is not a known setting': 'wizard.issue.unknownSetting',
  'must be a sharegpt, random or custom dataset': 'wizard.issue.datasetKind',
  'may only hold lower-case letters, digits and . _ - (starting with a letter or digit)': 'wizard.issue.idChars',
  'may only hold letters, digits and _ . -': 'wizard.issue.nameChars',
  'may only hold letters, digits and _ . : / @ -': 'wizard.issue.modelChars',
  'must be letters, digits and _, not starting with a digit': 'wizard.issue.envNameChars',
  'is not valid': 'wizard.issue.notValid',
  'must not contain NUL or line breaks': 'wizard.issue.noLineBreaks',
  'must not contain NUL': 'wizard.issue.noNul',
  'must not start with "-"': 'wizard.issue.noLeadingDash',
  'must be a list of strings': 'wizard.issue.stringList',
  'is not a version number': 'wizard.issue.notVersion',
  'is not a metric name': 'wizard.issue.notMetric',
  'needs max or min': 'wizard.issue.needsBound',
  'is not a GPU index': 'wizard.issue.notGpuIndex',
  'is not a Slurm name': 'wizard.issue.notSlurmName',
  'is not a compute capability (e.g. 9.0)': 'wizard.issue.notComputeCapability',
  'needs at least one host': 'wizard.issue.needsHost',
  'needs at least one engine': 'wizard.issue.needsEngine',
  'needs at least one candidate': 'wizard.issue.needsCandidate',
  'is required with the basis "gpu-budget": the GPUs the replicas share': 'wizard.issue.budgetRequired',
  'is read only with the basis "gpu-budget"': 'wizard.issue.budgetUnused',
  'must be left out of a ramped workload (the ramp sets the rate)': 'wizard.issue.rateWithRamp',
  'must be at least the start rate (the client refuses a ramp down)': 'wizard.issue.rampDown',
  'must be a whole number (the client reads it with int())': 'wizard.issue.wholeRps',
  'must be a number above 0 or "inf"': 'wizard.issue.burstiness',
};

const SECRET_REFERENCE = '{"secretRef": …}';

/** The schemas' messages with a value in them, and zod's generic wording as text (when only the text is left). */
const PATTERNS: readonly [RegExp, (m: RegExpExecArray, messages: Messages) => string][] = [
  // The schemas' own.
  // src/shared/bench/arrival-support.ts arrivalRefusal: what the study's benchmark client version cannot send.
  [/^vllm bench serve (\S+) cannot send at a constant rate: --burstiness inf works from (\S+) on/, (m, messages) => say(messages, 'wizard.issue.constantRateClient', { version: m[1]!, since: m[2]! })],
  [/^vllm bench serve (\S+) has no .*: a ramped arrival needs benchmark client (\S+) or later\.$/, (m, messages) => say(messages, 'wizard.issue.rampClient', { version: m[1]!, since: m[2]! })],
  [/^must be at most (\S+)$/, (m, messages) => say(messages, 'wizard.issue.atMost', { max: m[1]! })],
  [/^must be below (\S+)$/, (m, messages) => say(messages, 'wizard.issue.below', { max: m[1]! })],
  [/^must be at least (\S+)$/, (m, messages) => say(messages, 'wizard.issue.atLeast', { min: m[1]! })],
  [/^must be above (\S+)$/, (m, messages) => say(messages, 'wizard.issue.above', { min: m[1]! })],
  [/^is longer than (\d+) characters$/, (m, messages) => say(messages, 'wizard.issue.tooLong', { max: m[1]! })],
  [/^has more than (\d+) entries$/, (m, messages) => say(messages, 'wizard.issue.tooMany', { max: m[1]! })],
  [/^must be one of (.+)$/, (m, messages) => say(messages, 'wizard.issue.oneOf', { options: m[1]! })],
  [/^has no setting (.+)$/, (m, messages) => say(messages, 'wizard.issue.unknownSettings', { keys: m[1]! })],
  [/^is required for (\S+)$/, (m, messages) => say(messages, 'wizard.issue.requiredFor', { algorithm: m[1]! })],
  [/^is more than any chosen host offers \((\d+)\)$/, (m, messages) => say(messages, 'wizard.issue.moreGpusThanHosts', { n: m[1]! })],
  [/^is less than gpusPerTrial \((\d+)\): no configuration fits in it$/, (m, messages) => say(messages, 'wizard.issue.budgetBelowTrial', { n: m[1]! })],
  [/^"(.+)" applies to a throughput goal only: /, (m, messages) => say(messages, 'wizard.issue.basisLatency', { basis: m[1]! })],
  [/^"(.*)" is used twice or reserved$/, (m, messages) => say(messages, 'wizard.issue.stageIdTaken', { id: m[1]! })],
  [/^"(.*)" is used twice in this stage$/, (m, messages) => say(messages, 'wizard.issue.candidateIdTaken', { id: m[1]! })],
  [/^"(.*)" is used twice$/, (m, messages) => say(messages, 'wizard.issue.usedTwice', { id: m[1]! })],
  [
    /^names no variant of the model \((.*)\)$/,
    (m, messages) => say(messages, 'wizard.issue.noSuchVariant', { variants: m[1] === 'none defined' ? say(messages, 'wizard.issue.noVariants') : m[1]! }),
  ],
  [/^names no file of the study \((.*)\)$/, (m, messages) => say(messages, 'wizard.issue.noSuchFile', { files: m[1] === 'it has none' ? say(messages, 'wizard.issue.noFiles') : m[1]! })],
  [/^is not the checksum of the study's (\S+) \(([0-9a-f]{64})\)$/, (m, messages) => say(messages, 'wizard.issue.fileChanged', { name: m[1]!, sha256: m[2]! })],
  [/^"(.*)" is used by two files$/, (m, messages) => say(messages, 'wizard.issue.fileNameTwice', { name: m[1]! })],
  [/^(\S+) (\S+) is listed twice$/, (m, messages) => say(messages, 'wizard.issue.engineTwice', { engine: m[1]!, version: m[2]! })],
  [/^name (.+)$/, (m, messages) => say(messages, 'wizard.issue.envName', { problem: plainMessage(m[1]!, messages) })],
  [
    /^holds a credential: give a secret reference \(\{"secretRef": …\}\), not the value$/,
    (_m, messages) => say(messages, 'wizard.issue.credential', { reference: SECRET_REFERENCE }),
  ],
  // zod's generic wording.
  [/^Too big: expected number to be <=(\S+)$/, (m, messages) => say(messages, 'wizard.issue.atMost', { max: m[1]! })],
  [/^Too big: expected number to be <(\S+)$/, (m, messages) => say(messages, 'wizard.issue.below', { max: m[1]! })],
  [/^Too small: expected number to be >=(\S+)$/, (m, messages) => say(messages, 'wizard.issue.atLeast', { min: m[1]! })],
  [/^Too small: expected number to be >(\S+)$/, (m, messages) => say(messages, 'wizard.issue.above', { min: m[1]! })],
  [/^Too small: expected string to have >=1 characters?$/, (_m, messages) => say(messages, 'wizard.issue.required')],
  [/^Too big: expected string to have <=(\d+) characters$/, (m, messages) => say(messages, 'wizard.issue.tooLong', { max: m[1]! })],
  [/^Too small: expected array to have >=1 items?$/, (_m, messages) => say(messages, 'wizard.issue.needsOne')],
  [/^Too big: expected array to have <=(\d+) items$/, (m, messages) => say(messages, 'wizard.issue.tooMany', { max: m[1]! })],
  [/^Invalid input: expected int, received number$/, (_m, messages) => say(messages, 'wizard.issue.wholeNumber')],
  [/^Invalid input: expected number, received (undefined|NaN)$/, (_m, messages) => say(messages, 'wizard.issue.required')],
  [/^Invalid input: expected string, received undefined$/, (_m, messages) => say(messages, 'wizard.issue.required')],
  [/^Unrecognized keys?: (.+)$/, (m, messages) => say(messages, 'wizard.issue.unknownSettings', { keys: m[1]! })],
  [/^Invalid option: expected one of (.+)$/, (m, messages) => say(messages, 'wizard.issue.oneOf', { options: m[1]! })],
];

/**
 * An English problem text ("must be at most 8", zod's "Too big: expected number to be <=8", a core's message) in the
 * current language; a text it does not know comes back unchanged.
 */
export function plainMessage(message: string, messages: Messages): string {
  const fixed = FIXED[message];
  if (fixed) return say(messages, fixed);
  for (const [pattern, sayMatch] of PATTERNS) {
    const match = pattern.exec(message);
    if (match) return sayMatch(match, messages);
  }
  return message;
}

/** zod's own messages start like this; a schema's custom message never does. */
const ZOD_WORDING = /^(Too big|Too small|Invalid input|Invalid option|Unrecognized key)/;

function quoted(values: readonly unknown[], separator: string): string {
  return values.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v))).join(separator);
}

/** zod's generic issue said from its code and params, or undefined when they say too little. */
function genericMessage(issue: SchemaIssue, messages: Messages): string | undefined {
  const numeric = issue.origin === 'number' || issue.origin === 'int' || issue.origin === 'bigint';
  switch (issue.code) {
    case 'too_big': {
      if (issue.maximum === undefined) return undefined;
      const max = String(issue.maximum);
      if (numeric) return issue.inclusive === false ? say(messages, 'wizard.issue.below', { max }) : say(messages, 'wizard.issue.atMost', { max });
      if (issue.origin === 'string') return say(messages, 'wizard.issue.tooLong', { max });
      if (issue.origin === 'array' || issue.origin === 'set') return say(messages, 'wizard.issue.tooMany', { max });
      return undefined;
    }
    case 'too_small': {
      if (issue.minimum === undefined) return undefined;
      const min = String(issue.minimum);
      if (numeric) return issue.inclusive === false ? say(messages, 'wizard.issue.above', { min }) : say(messages, 'wizard.issue.atLeast', { min });
      if (issue.origin === 'string' && min === '1') return say(messages, 'wizard.issue.required');
      if ((issue.origin === 'array' || issue.origin === 'set') && min === '1') return say(messages, 'wizard.issue.needsOne');
      return undefined;
    }
    case 'invalid_type':
      if (issue.expected === 'int') return say(messages, 'wizard.issue.wholeNumber');
      // zod names what it received only in the text; nothing there means the field was left empty.
      if (/received (undefined|NaN)$/.test(issue.message)) return say(messages, 'wizard.issue.required');
      return issue.expected ? say(messages, 'wizard.issue.wrongType', { expected: issue.expected }) : undefined;
    case 'unrecognized_keys':
      return issue.keys?.length ? say(messages, 'wizard.issue.unknownSettings', { keys: quoted(issue.keys, ', ') }) : undefined;
    case 'invalid_value':
      return issue.values?.length ? say(messages, 'wizard.issue.oneOf', { options: quoted(issue.values, '|') }) : undefined;
    default:
      return undefined;
  }
}

/** A zod issue's problem in the current language: a known schema message, else zod's by code, else its own text. */
export function issueMessage(issue: SchemaIssue, messages: Messages): string {
  if (ZOD_WORDING.test(issue.message)) return genericMessage(issue, messages) ?? plainMessage(issue.message, messages);
  return plainMessage(issue.message, messages);
}

/** "<field> <problem>", as the language orders it. */
export function issueLine(field: string, problem: string, messages: Messages): string {
  return say(messages, 'wizard.issue.line', { field, problem });
}
