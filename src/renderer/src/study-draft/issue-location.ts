import { ENGINE_ADAPTERS } from '../../../shared/engines/adapters';
import { say, type Messages, type PlainMessageKey } from '../i18n';
import type { EngineDraft, WizardDraft, WizardStep } from './draft';
import { isSlurmField, slurmField } from './slurm-draft';

/**
 * Where a problem belongs: the wizard step and field a path of the study definition (the schema's issue path, or
 * the dotted one the core reports) points at, with the field's name in the messages' language as a problem names it.
 */

export interface Located {
  step: WizardStep;
  field: string;
  /** The field's name in the reader's language, as a problem's line starts with it. */
  label: string;
}

export const at = (step: WizardStep, field: string, label: string): Located => ({ step, field, label });

export type WorkloadField =
  | 'id'
  | 'label'
  | 'kind'
  | 'path'
  | 'numPrompts'
  | 'maxConcurrency'
  | 'arrival'
  | 'requestRate'
  | 'burstiness'
  | 'rampStrategy'
  | 'rampStart'
  | 'rampEnd'
  | 'seed'
  | 'inputLen'
  | 'outputLen';

const WORKLOAD_FIELD_LABELS: Record<WorkloadField, PlainMessageKey> = {
  id: 'wizard.field.workload.id',
  label: 'wizard.field.workload.label',
  kind: 'wizard.field.workload.kind',
  path: 'wizard.field.workload.path',
  numPrompts: 'wizard.field.workload.numPrompts',
  maxConcurrency: 'wizard.field.workload.maxConcurrency',
  arrival: 'wizard.field.workload.arrival',
  requestRate: 'wizard.field.workload.requestRate',
  burstiness: 'wizard.field.workload.burstiness',
  rampStrategy: 'wizard.field.workload.rampStrategy',
  rampStart: 'wizard.field.workload.rampStart',
  rampEnd: 'wizard.field.workload.rampEnd',
  seed: 'wizard.field.workload.seed',
  inputLen: 'wizard.field.workload.inputLen',
  outputLen: 'wizard.field.workload.outputLen',
};

function isWorkloadField(key: string): key is WorkloadField {
  return Object.hasOwn(WORKLOAD_FIELD_LABELS, key);
}

/** "Primary workload prompts": a workload's field named after the workload; a field it does not know keeps its key. */
export function workloadLabel(workload: string, field: string, messages: Messages): string {
  return say(messages, 'wizard.field.workloadPart', { workload, part: isWorkloadField(field) ? say(messages, WORKLOAD_FIELD_LABELS[field]) : field });
}

export function workloadAt(prefix: string, label: string, messages: Messages): (field: WorkloadField) => Located {
  return (field) => at('workloads', `${prefix}.${field}`, workloadLabel(label, field, messages));
}

/** A ramp's schema fields as the wizard's (`rampUp.startRps` → `rampStart`); the ramp as a whole is the arrival choice. */
const RAMP_FIELDS: Readonly<Record<string, WorkloadField>> = { strategy: 'rampStrategy', startRps: 'rampStart', endRps: 'rampEnd' };

function locateWorkload(rest: PropertyKey[], prefix: string, label: string, messages: Messages): Located {
  const field = String(rest[0] === 'dataset' ? (rest[1] ?? 'kind') : rest[0] === 'rampUp' ? (RAMP_FIELDS[String(rest[1])] ?? 'arrival') : (rest[0] ?? 'id'));
  return at('workloads', `${prefix}.${field}`, workloadLabel(label, field, messages));
}

/** The step and field a StudyDefinitionSchema issue path belongs to, with the field's name as a problem names it. */
export function locateSchemaPath(
  path: PropertyKey[],
  d: WizardDraft,
  engines: EngineDraft[],
  presetCount: number,
  messages: Messages,
  hostLabel: (hostId: string) => string = (id) => id,
): Located {
  const [head, a, b, c, e] = path;
  switch (head) {
    case 'name':
      return at('review', 'name', say(messages, 'wizard.field.name'));
    case 'description':
      return at('review', 'description', say(messages, 'wizard.field.description'));
    case 'model':
      if (a === 'variants' && typeof b === 'number') {
        const n = b + 1;
        if (c === 'model') return at('model', `variants.${b}.model`, say(messages, 'wizard.field.variantModel', { n }));
        if (c === 'label') return at('model', `variants.${b}.label`, say(messages, 'wizard.field.variantLabel', { n }));
        if (c === 'precision') return at('model', `variants.${b}.precision`, say(messages, 'wizard.field.variantPrecision', { n }));
        return at('model', `variants.${b}.id`, say(messages, 'wizard.field.variantId', { n }));
      }
      if (a === 'precision') return at('model', 'precision', say(messages, 'wizard.field.precision'));
      return at('model', 'modelId', say(messages, 'wizard.field.model'));
    case 'hosts':
      if (typeof a === 'number' && d.hosts[a] && b === 'slurm' && typeof c === 'string' && isSlurmField(c)) {
        return at('hardware', slurmField(d.hosts[a].hostId, c), say(messages, `wizard.field.slurm.${c}`, { host: hostLabel(d.hosts[a].hostId) }));
      }
      return typeof a === 'number' && d.hosts[a]
        ? at('hardware', `hosts.${d.hosts[a].hostId}.gpus`, say(messages, 'wizard.field.hostGpus', { host: hostLabel(d.hosts[a].hostId) }))
        : at('hardware', 'hosts', say(messages, 'wizard.field.hosts'));
    case 'demoLab':
      return a === 'gpu' ? at('hardware', 'demoGpu', say(messages, 'wizard.field.demoGpu')) : at('hardware', 'demoCount', say(messages, 'wizard.field.demoCount'));
    case 'gpusPerTrial':
      return at('hardware', 'gpusPerTrial', say(messages, 'wizard.field.gpusPerTrial'));
    case 'goal':
      if (a === 'slos' && typeof b === 'number') {
        return c === 'metric'
          ? at('goal', `slos.${b}.metric`, say(messages, 'wizard.field.sloMetric', { n: b + 1 }))
          : at('goal', `slos.${b}.value`, say(messages, 'wizard.field.sloValue', { n: b + 1 }));
      }
      if (a === 'marginPct') return at('goal', 'marginPct', say(messages, 'wizard.field.margin'));
      if (a === 'repeatBudget') return at('goal', 'repeatBudget', say(messages, 'wizard.field.repeatBudget'));
      if (a === 'basis') return at('goal', 'basis', say(messages, 'wizard.field.basis'));
      if (a === 'gpuBudget') return at('goal', 'gpuBudget', say(messages, 'wizard.field.gpuBudget'));
      return at('goal', 'goal', say(messages, 'wizard.field.goal'));
    case 'engines': {
      const engine = typeof a === 'number' ? engines[a] : undefined;
      if (!engine) return at('engines', 'engines', say(messages, 'wizard.field.engines'));
      const name = ENGINE_ADAPTERS[engine.engine].displayName;
      if (b === 'version') return at('engines', `engines.${engine.engine}.version`, say(messages, 'wizard.field.engineVersion', { engine: name }));
      if (b === 'config' && (c === 'chatTemplate' || c === 'optionsFile')) {
        return at('engines', `engines.${engine.engine}.files.${c}`, say(messages, c === 'chatTemplate' ? 'wizard.field.engineChatTemplate' : 'wizard.field.engineOptionsFile', { engine: name }));
      }
      if (b === 'config') {
        return c === 'maxModelLen'
          ? at('engines', `engines.${engine.engine}.maxModelLen`, say(messages, 'wizard.field.engineMaxModelLen', { engine: name }))
          : at('engines', `engines.${engine.engine}.settings`, say(messages, 'wizard.field.engineSettings', { engine: name }));
      }
      return at('engines', `engines.${engine.engine}.version`, name);
    }
    case 'stages': {
      if (typeof a !== 'number') return at('stages', 'stages', say(messages, 'wizard.field.stages'));
      const n = a + 1;
      if (b === 'candidates' && typeof c === 'number') {
        const where = `stages.${a}.candidates.${c}`;
        const m = c + 1;
        if (e === 'label') return at('stages', `${where}.label`, say(messages, 'wizard.field.candidateLabel', { n, m }));
        if (e === 'variant') return at('stages', `${where}.variant`, say(messages, 'wizard.field.candidateVariant', { n, m }));
        const f = path[5];
        if (e === 'config' && (f === 'chatTemplate' || f === 'optionsFile')) {
          return at('stages', `${where}.files.${f}`, say(messages, f === 'chatTemplate' ? 'wizard.field.candidateChatTemplate' : 'wizard.field.candidateOptionsFile', { n, m }));
        }
        if (e === 'config') return at('stages', `${where}.config`, say(messages, 'wizard.field.candidateSettings', { n, m }));
        return at('stages', `${where}.id`, say(messages, 'wizard.field.candidateId', { n, m }));
      }
      if (b === 'candidates') return at('stages', `stages.${a}.candidates`, say(messages, 'wizard.field.stage', { n }));
      return b === 'label' ? at('stages', `stages.${a}.label`, say(messages, 'wizard.field.stageLabel', { n })) : at('stages', `stages.${a}.id`, say(messages, 'wizard.field.stageId', { n }));
    }
    case 'workloads':
      if (a === 'primary') return locateWorkload(path.slice(2), 'primary', say(messages, 'wizard.field.primary'), messages);
      if (a === 'generalisation' && typeof b === 'number' && b >= presetCount) {
        return locateWorkload(path.slice(3), `custom.${b - presetCount}`, say(messages, 'wizard.field.scenario', { n: b - presetCount + 1 }), messages);
      }
      return at('workloads', 'generalisation', say(messages, 'wizard.field.scenarios'));
    case 'strategy':
      return at('strategy', 'strategy', say(messages, 'wizard.field.strategy'));
    case 'repeats':
      return at('strategy', 'repeats', say(messages, 'wizard.field.repeats'));
    case 'parallelism':
      return at('strategy', 'parallelism', say(messages, 'wizard.field.parallelism'));
    case 'clientVersion':
      return at('strategy', 'clientVersion', say(messages, 'wizard.field.clientVersion'));
    case 'readinessTimeoutSeconds':
      return at('strategy', 'readinessTimeout', say(messages, 'wizard.field.readinessTimeout'));
    case 'files':
      return at('engines', 'files', say(messages, 'wizard.field.files'));
    default:
      return at('review', 'definition', say(messages, 'wizard.field.study'));
  }
}

/** Places an issue path the core reported (`study.model.id`, dotted) on its step and field. */
export function locateCoreIssue(path: string, d: WizardDraft, presetCount: number, messages: Messages, hostLabel: (hostId: string) => string = (id) => id): Located {
  const parts: PropertyKey[] = path
    .split('.')
    .filter((p) => p !== 'study')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  if (parts[0] === 'path') return at('review', 'path', say(messages, 'wizard.field.file'));
  return locateSchemaPath(parts, d, d.engines.filter((e) => e.enabled), presetCount, messages, hostLabel);
}
