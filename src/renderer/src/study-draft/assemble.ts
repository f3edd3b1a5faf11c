import { arrivalFields, type Arrival, type ArrivalFields } from '../../../shared/bench/arrival';
import { WORKLOAD_PRESETS, describeWorkload, type Workload, type WorkloadInput } from '../../../shared/bench/workload';
import { ENGINE_ADAPTERS, validateExtraArgs } from '../../../shared/engines/adapters';
import { splitArgs } from '../../../shared/engines/argv-text';
import type { EngineId } from '../../../shared/engines/types';
import { ConfigPatchSchema, StudyDefinitionSchema, type ConfigPatch, type StudyDefinition, type StudyDefinitionInput } from '../../../shared/study/study';
import { translationsStillTrue } from '../../../shared/study/study-text';
import { say, type Messages } from '../i18n';
import { SCENARIO_PRESETS, boxGpuCount, sameJson, variantOf, type WizardDraft, type WizardStep, type WorkloadDraft } from './draft';
import { at, locateSchemaPath, workloadAt, workloadLabel, type Located, type WorkloadField } from './issue-location';
import { issueLine, issueMessage } from './issue-text';
import { fileRefsConfig, usedFiles } from './draft-files';
import { slurmField, type SlurmDraft, type SlurmField } from './slurm-draft';
import type { StudySlurm } from '../../../shared/study/study';

/**
 * The draft as a study definition: built field by field, checked by the shared schema, and every problem placed on
 * its step and field and said in the messages given (the caller's language).
 */

/** A problem with the draft, placed on the step and the field (a key the step's controls use) it belongs to. */
export interface WizardIssue {
  step: WizardStep;
  field: string;
  message: string;
}

class Builder {
  readonly issues: WizardIssue[] = [];

  constructor(readonly messages: Messages) {}

  /** `problem` is said in the messages' language already (`say()`, `issueMessage`). */
  add(at: Located, problem: string): void {
    this.issues.push({ step: at.step, field: at.field, message: issueLine(at.label, problem, this.messages) });
  }

  /** '' → undefined (or "is required"); not a number → an issue and undefined. */
  num(at: Located, text: string, required: boolean): number | undefined {
    const trimmed = text.trim();
    if (trimmed === '') {
      if (required) this.add(at, say(this.messages, 'wizard.issue.required'));
      return undefined;
    }
    const value = Number(trimmed);
    if (!Number.isFinite(value)) {
      this.add(at, say(this.messages, 'wizard.issue.notNumber'));
      return undefined;
    }
    return value;
  }

  /** Extra arguments as typed: split like a shell would (quotes kept together), then checked against the version's flags. */
  extraArgs(at: Located, engine: EngineId, version: string, text: string): string[] {
    if (text.trim() === '') return [];
    const split = splitArgs(text);
    if (split.unterminated) this.add(at, say(this.messages, 'wizard.issue.openQuote', { quote: split.unterminated }));
    if (version.trim() !== '') {
      for (const issue of validateExtraArgs(engine, version.trim(), split.words).issues) if (issue.severity === 'error') this.add(at, say(this.messages, 'wizard.issue.extraArgsRefused', { message: issue.message }));
    }
    return split.words;
  }

  /** A ConfigPatch typed as JSON; its own schema's issues name the setting. */
  patch(at: Located, text: string): ConfigPatch {
    const trimmed = text.trim();
    if (trimmed === '') return {};
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      this.add(at, say(this.messages, 'wizard.issue.notJson'));
      return {};
    }
    const parsed = ConfigPatchSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const where = issue.path.map(String).join('.');
        const label = where ? say(this.messages, 'wizard.issue.inSetting', { field: at.label, setting: where }) : say(this.messages, 'wizard.issue.inSettings', { field: at.label });
        this.add({ ...at, label }, issueMessage(issue, this.messages));
      }
      return {};
    }
    return value as ConfigPatch;
  }
}

/** A cluster host's Slurm settings; the plan needs the GPU and the GPUs per node, so both are required here. */
function buildSlurm(b: Builder, hostId: string, host: string, s: SlurmDraft): StudySlurm {
  const m = b.messages;
  const field = (name: SlurmField) => at('hardware', slurmField(hostId, name), say(m, `wizard.field.slurm.${name}`, { host }));
  const gpusPerNode = b.num(field('gpusPerNode'), s.gpusPerNode, true);
  if (!s.gpu) b.add(field('gpu'), say(m, 'wizard.issue.slurmGpuNeeded'));
  const timeLimitMinutes = s.timeLimit === 'minutes' ? b.num(field('timeLimitMinutes'), s.timeLimitMinutes, true) : undefined;
  const maxQueuedJobs = b.num(field('maxQueuedJobs'), s.maxQueuedJobs, true);
  return {
    ...(s.partition ? { partition: s.partition.trim() } : {}),
    ...(s.account.trim() ? { account: s.account.trim() } : {}),
    ...(s.qos.trim() ? { qos: s.qos.trim() } : {}),
    ...(s.gpuType ? { gpuType: s.gpuType } : {}),
    ...(s.gpu ? { gpu: s.gpu } : {}),
    ...(gpusPerNode !== undefined ? { gpusPerNode } : {}),
    ...(timeLimitMinutes !== undefined ? { timeLimitMinutes } : {}),
    maxQueuedJobs: maxQueuedJobs ?? 2,
  };
}

function buildWorkload(b: Builder, w: WorkloadDraft, locate: (field: WorkloadField) => Located): WorkloadInput {
  const numPrompts = b.num(locate('numPrompts'), w.numPrompts, true);
  const maxConcurrency = b.num(locate('maxConcurrency'), w.maxConcurrency, false);
  const arrival = buildArrival(b, w, locate);
  const seed = b.num(locate('seed'), w.seed, false);
  const outputLen = b.num(locate('outputLen'), w.outputLen, w.kind === 'random');
  const dataset =
    w.kind === 'random'
      ? { kind: 'random' as const, inputLen: b.num(locate('inputLen'), w.inputLen, true) as number, outputLen: outputLen as number }
      : w.kind === 'sharegpt'
        ? { kind: 'sharegpt' as const, ...(w.path.trim() ? { path: w.path.trim() } : {}), ...(outputLen !== undefined ? { outputLen } : {}) }
        : { kind: 'custom' as const, path: w.path.trim(), ...(outputLen !== undefined ? { outputLen } : {}) };
  const workload: Workload = {
    id: w.id.trim(),
    dataset,
    numPrompts: numPrompts as number,
    ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
    ...arrival,
    ...(seed !== undefined ? { seed } : {}),
    backend: 'openai-chat',
  };
  const preset = WORKLOAD_PRESETS.find((p) => p.id === w.presetId);
  const { label: presetLabel, ...presetRest } = preset ?? { label: undefined };
  // An untouched preset keeps its own label; a changed one is described as it now is.
  const label = w.label.trim() || (preset && sameJson(presetRest, workload) ? presetLabel : numPrompts !== undefined ? labelOf(workload) : undefined);
  const { id, ...rest } = workload;
  return { id, ...(label ? { label } : {}), ...rest };
}

/** The arrival kind's own fields, each checked; a missing one is an issue and the kind falls back to a burst. */
function buildArrival(b: Builder, w: WorkloadDraft, locate: (field: WorkloadField) => Located): ArrivalFields {
  const rate = () => b.num(locate('requestRate'), w.requestRate, true);
  let arrival: Arrival | undefined;
  switch (w.arrival) {
    case 'burst':
      arrival = { kind: 'burst' };
      break;
    case 'poisson':
    case 'constant': {
      const r = rate();
      arrival = r === undefined ? undefined : { kind: w.arrival, rate: r };
      break;
    }
    case 'gamma': {
      const r = rate();
      const burstiness = b.num(locate('burstiness'), w.burstiness, true);
      arrival = r === undefined || burstiness === undefined ? undefined : { kind: 'gamma', rate: r, burstiness };
      break;
    }
    case 'ramp': {
      const startRps = b.num(locate('rampStart'), w.rampStart, true);
      const endRps = b.num(locate('rampEnd'), w.rampEnd, true);
      // `inf` is the client's own word for constant gaps (Python's float('inf')).
      const burstiness = /^\+?inf(inity)?$/i.test(w.burstiness.trim()) ? ('inf' as const) : b.num(locate('burstiness'), w.burstiness, false);
      arrival =
        startRps === undefined || endRps === undefined ? undefined : { kind: 'ramp', strategy: w.rampStrategy, startRps, endRps, ...(burstiness !== undefined ? { burstiness } : {}) };
      break;
    }
  }
  return arrivalFields(arrival ?? { kind: 'burst' });
}

/** "Random 128 in / 4 out, 50 prompts, unbounded concurrency, seed 42": the presets' style for a changed one. */
function labelOf(w: Workload): string {
  const text = describeWorkload(w);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${w.seed !== undefined ? `, seed ${w.seed}` : ''}`;
}

export interface Assembled {
  definition: StudyDefinitionInput;
  /** The schema-checked definition, when the draft is valid as a whole. */
  parsed: StudyDefinition | null;
  issues: WizardIssue[];
}

/**
 * Builds the definition from the draft and checks it with the shared schema; every issue names its step and field,
 * and a host by `hostLabel` (its label on the Hosts page; the id until the host list arrived).
 */
export function assemble(d: WizardDraft, isDemoHost: (hostId: string) => boolean, messages: Messages, hostLabel: (hostId: string) => string = (id) => id): Assembled {
  const b = new Builder(messages);
  const engines = d.engines.filter((e) => e.enabled);
  const generalisationPresets = SCENARIO_PRESETS.filter((p) => d.generalisationPresets.includes(p.id));

  const slos = d.slos.map((s, i) => {
    const value = b.num(at('goal', `slos.${i}.value`, say(messages, 'wizard.field.sloValue', { n: i + 1 })), s.value, true);
    return { metric: s.metric, ...(value !== undefined ? { [s.bound]: value } : {}) };
  });
  const engineChoices = engines.map((e) => {
    const name = ENGINE_ADAPTERS[e.engine].displayName;
    const maxModelLen = b.num(at('engines', `engines.${e.engine}.maxModelLen`, say(messages, 'wizard.field.engineMaxModelLen', { engine: name })), e.maxModelLen, false);
    const settings = b.patch(at('engines', `engines.${e.engine}.settings`, say(messages, 'wizard.field.engineSettings', { engine: name })), e.settings);
    const extraArgs = b.extraArgs(at('engines', `engines.${e.engine}.extraArgs`, say(messages, 'wizard.field.engineExtraArgs', { engine: name })), e.engine, e.version, e.extraArgs);
    const allExtra = [...(settings.extraArgs ?? []), ...extraArgs];
    return {
      engine: e.engine,
      version: e.version,
      mode: e.mode,
      config: { ...settings, ...fileRefsConfig(e.files), ...(allExtra.length > 0 ? { extraArgs: allExtra } : {}), ...(maxModelLen !== undefined ? { maxModelLen } : {}) },
    };
  });
  const stages = d.stages.map((s, i) => ({
    id: s.id.trim(),
    label: s.label.trim(),
    ...(s.engines ? { engines: s.engines } : {}),
    candidates: s.candidates.map((c, j) => ({
      id: c.id.trim(),
      label: c.label.trim(),
      config: { ...b.patch(at('stages', `stages.${i}.candidates.${j}.config`, say(messages, 'wizard.field.candidateSettings', { n: i + 1, m: j + 1 })), c.config), ...fileRefsConfig(c.files) },
      ...(c.variant ? { variant: c.variant } : {}),
    })),
  }));
  const hasDemo = d.hosts.some((h) => isDemoHost(h.hostId));
  const demoCount = hasDemo ? b.num(at('hardware', 'demoCount', say(messages, 'wizard.field.demoCount')), d.demoCount, true) : undefined;
  const gpusPerTrial = b.num(at('hardware', 'gpusPerTrial', say(messages, 'wizard.field.gpusPerTrial')), d.gpusPerTrial, true);
  d.hosts.forEach((h) => {
    if (h.gpus !== null && h.gpus.length === 0) b.add(at('hardware', `hosts.${h.hostId}.gpus`, say(messages, 'wizard.field.hostGpus', { host: hostLabel(h.hostId) })), say(messages, 'wizard.issue.noGpuTicked'));
  });
  // A cluster's job holds one node: its GPUs per node are the most a trial may take there.
  const usable = d.hosts.map((h) =>
    h.slurm ? Number(h.slurm.gpusPerNode) || Infinity : isDemoHost(h.hostId) ? (h.gpus?.length ?? demoCount ?? 1) : (h.gpus?.length ?? Infinity),
  );
  if (gpusPerTrial !== undefined && usable.length > 0 && usable.every((n) => n < gpusPerTrial)) {
    b.add(at('hardware', 'gpusPerTrial', say(messages, 'wizard.field.gpusPerTrial')), say(messages, 'wizard.issue.moreGpusThanHosts', { n: Math.max(...usable) }));
  }
  if (engines.length > 0 && d.tuned.length === 0 && d.stages.length > 0) {
    // Stages without a tuned engine are still valid; nothing to report.
  }
  // Only a throughput goal takes a basis (the wizard offers none for latency); an empty budget is the box's GPUs.
  const basis = d.goal === 'throughput' ? d.basis : 'server';
  let gpuBudget: number | undefined;
  if (basis === 'gpu-budget') {
    const budgetAt = at('goal', 'gpuBudget', say(messages, 'wizard.field.gpuBudget'));
    const box = boxGpuCount(d, isDemoHost);
    if (d.gpuBudget.trim() !== '') gpuBudget = b.num(budgetAt, d.gpuBudget, true);
    else if (box !== null) gpuBudget = box;
    else b.add(budgetAt, say(messages, 'wizard.issue.budgetNeedsGpus'));
  }
  const ids = new Map<string, number>();
  [...generalisationPresets.map((p) => p.id), ...d.generalisationCustom.map((w) => w.id.trim())].forEach((id) => ids.set(id, (ids.get(id) ?? 0) + 1));
  d.generalisationCustom.forEach((w, i) => {
    if (w.id.trim() && (ids.get(w.id.trim()) ?? 0) > 1) b.add(at('workloads', `custom.${i}.id`, workloadLabel(say(messages, 'wizard.field.scenario', { n: i + 1 }), 'id', messages)), say(messages, 'wizard.issue.usedTwice', { id: w.id.trim() }));
  });

  const definition: StudyDefinitionInput = {
    name: d.name.trim(),
    ...(d.description.trim() ? { description: d.description.trim() } : {}),
    model: {
      id: d.modelId.trim(),
      ...(d.precision ? { precision: d.precision } : {}),
      variants: d.variants.map(variantOf),
    },
    hosts: d.hosts.map((h) => {
      // Without the host's full list (its inventory not read yet) a ticked list stands as a subset.
      const subset = h.gpus !== null && (h.allGpus === null || !(h.gpus.length === h.allGpus.length && h.allGpus.every((g) => h.gpus!.includes(g))));
      if (h.slurm) return { hostId: h.hostId, slurm: buildSlurm(b, h.hostId, hostLabel(h.hostId), h.slurm) };
      return { hostId: h.hostId, ...(subset ? { gpus: [...h.gpus!].sort((x, y) => Number(x) - Number(y)) } : {}) };
    }),
    ...(hasDemo ? { demoLab: { gpu: d.demoGpu, count: demoCount as number } } : {}),
    goal: { kind: d.goal, slos: slos as StudyDefinitionInput['goal']['slos'], marginPct: b.num(at('goal', 'marginPct', say(messages, 'wizard.field.margin')), d.marginPct, true) as number,
      repeatBudget: b.num(at('goal', 'repeatBudget', say(messages, 'wizard.field.repeatBudget')), d.repeatBudget, true) as number,
      ...(basis !== 'server' ? { basis } : {}),
      ...(gpuBudget !== undefined ? { gpuBudget } : {}),
    },
    engines: engineChoices,
    stages,
    workloads: {
      primary: buildWorkload(b, d.primary, workloadAt('primary', say(messages, 'wizard.field.primary'), messages)),
      generalisation: [
        ...generalisationPresets,
        ...d.generalisationCustom.map((w, i) => buildWorkload(b, w, workloadAt(`custom.${i}`, say(messages, 'wizard.field.scenario', { n: i + 1 }), messages))),
      ],
    },
    strategy: d.strategy,
    repeats: b.num(at('strategy', 'repeats', say(messages, 'wizard.field.repeats')), d.repeats, true) as number,
    gpusPerTrial: gpusPerTrial as number,
    ...(d.parallelism.trim() ? { parallelism: b.num(at('strategy', 'parallelism', say(messages, 'wizard.field.parallelism')), d.parallelism, false) as number } : {}),
    clientVersion: d.clientVersion,
    readinessTimeoutSeconds: b.num(at('strategy', 'readinessTimeout', say(messages, 'wizard.field.readinessTimeout')), d.readinessTimeout, true) as number,
  };
  const files = usedFiles(d.files, [...engineChoices.map((e) => e.config), ...stages.flatMap((s) => s.candidates.map((c) => c.config))]);
  if (files.length > 0) definition.files = files;
  const translations = d.translatedFrom ? translationsStillTrue(d.translatedFrom, definition) : undefined;
  if (translations) definition.translations = translations;

  const result = StudyDefinitionSchema.safeParse(definition);
  if (!result.success) {
    for (const issue of result.error.issues) {
      const located = locateSchemaPath(issue.path, d, engines, generalisationPresets.length, messages, hostLabel);
      // A field the wizard already reported (an empty number, bad JSON) is not reported twice.
      if (b.issues.some((i) => i.field === located.field)) continue;
      b.add(located, issueMessage(issue, messages));
    }
  }
  return { definition, parsed: result.success && b.issues.length === 0 ? result.data : null, issues: b.issues };
}
