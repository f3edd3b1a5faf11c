import { ENGINE_ADAPTERS } from '../../../shared/engines/adapters';
import { PARALLEL_LAYOUT_KNOBS, parallelLayoutLabel, serverGpuCount } from '../../../shared/engines/parallelism';
import { parseServerConfig } from '../../../shared/engines/server-config';
import type { EngineId } from '../../../shared/engines/types';
import { layoutRefusal } from '../../../shared/study/layout-checks';
import { knownModel } from '../../../shared/study/model-facts';
import type { ConfigPatch } from '../../../shared/study/study';
import type { Refusal } from '../../../shared/study/trial-problem';
import { rowKey, type CandidateDraft, type StageDraft, type WizardDraft } from './draft';

/**
 * A parallelism stage in the wizard: candidates that set only the parallel layout, typed field by field instead of as
 * JSON, each with the GPUs it takes on every chosen engine and what the pre-flight would refuse of it there.
 */

/** The settings a layout candidate may hold, in the order the editor shows them. */
export const LAYOUT_KNOBS = PARALLEL_LAYOUT_KNOBS satisfies readonly (keyof ConfigPatch)[];
export type LayoutKnob = (typeof LAYOUT_KNOBS)[number];
export type SizeKnob = Exclude<LayoutKnob, 'dpAttention' | 'moeAllToAllBackend'>;

/** A layout as typed: sizes as text (blank: the engine's default of 1), DP attention, the all-to-all backend's name. */
export interface LayoutFields {
  sizes: Record<SizeKnob, string>;
  dpAttention: boolean;
  moeAllToAllBackend: string;
}

const SIZE_KNOBS = LAYOUT_KNOBS.filter((k): k is SizeKnob => k !== 'dpAttention' && k !== 'moeAllToAllBackend');

function patchOf(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text.trim() === '' ? '{}' : text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The candidate's layout, or null when its settings hold anything else (it then stays a JSON candidate). */
export function layoutFieldsOf(candidate: Pick<CandidateDraft, 'config' | 'variant'>): LayoutFields | null {
  const patch = patchOf(candidate.config);
  if (!patch || candidate.variant || !Object.keys(patch).every((k) => (LAYOUT_KNOBS as readonly string[]).includes(k))) return null;
  const text = (v: unknown) => (v === undefined ? '' : String(v));
  return {
    sizes: Object.fromEntries(SIZE_KNOBS.map((k) => [k, text(patch[k])])) as Record<SizeKnob, string>,
    dpAttention: patch.dpAttention === true,
    moeAllToAllBackend: text(patch.moeAllToAllBackend),
  };
}

/** A stage is a parallelism stage when every candidate is a layout (and it has one). */
export function isLayoutStage(stage: Pick<StageDraft, 'candidates'>): boolean {
  return stage.candidates.length > 0 && stage.candidates.every((c) => layoutFieldsOf(c) !== null);
}

/** The fields as the candidate's settings: whole numbers as numbers, anything else as typed (the schema then names it). */
export function layoutPatch(fields: LayoutFields): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const knob of SIZE_KNOBS) {
    const typed = fields.sizes[knob].trim();
    if (typed !== '') patch[knob] = /^\d+$/.test(typed) ? Number(typed) : typed;
  }
  if (fields.dpAttention) patch.dpAttention = true;
  if (fields.moeAllToAllBackend.trim() !== '') patch.moeAllToAllBackend = fields.moeAllToAllBackend.trim();
  return patch;
}

/** The candidate with these fields: its settings, and its id and label following the layout unless the user named it. */
export function withLayout(candidate: CandidateDraft, fields: LayoutFields): CandidateDraft {
  const before = layoutFieldsOf(candidate);
  const patch = layoutPatch(fields);
  const label = layoutLabel(patch);
  const followed = before === null || candidate.label === layoutLabel(layoutPatch(before));
  return { ...candidate, config: JSON.stringify(patch), ...(followed && label ? { label, id: slugOfLabel(label) } : {}) };
}

function layoutLabel(patch: Record<string, unknown>): string | null {
  const sized = SIZE_KNOBS.every((k) => patch[k] === undefined || typeof patch[k] === 'number');
  return sized ? parallelLayoutLabel(patch as ConfigPatch) : null;
}

function slugOfLabel(label: string): string {
  return label.toLowerCase().replace(/×/g, 'x').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'layout';
}

/** A layout candidate of `tp` GPUs of tensor parallelism, named as studies name layouts ("TP4"). */
export function layoutCandidate(tp: number): CandidateDraft {
  const patch = { tensorParallelSize: tp };
  const label = parallelLayoutLabel(patch);
  return { key: rowKey(), id: slugOfLabel(label), label, config: JSON.stringify(patch), variant: '' };
}

/** A new parallelism stage: TP1 to start from, more layouts added by the user. */
export function layoutStage(label: string, existing: readonly StageDraft[]): StageDraft {
  const id = existing.some((s) => s.id === 'parallelism') ? `parallelism-${existing.length + 1}` : 'parallelism';
  return { key: rowKey(), id, label, engines: undefined, candidates: [layoutCandidate(1)] };
}

/** What one chosen engine makes of a layout candidate: the GPUs one server takes, and the pre-flight's refusal, if any. */
export interface LayoutOnEngine {
  engine: EngineId;
  version: string;
  gpus: number;
  refusal: Refusal | null;
}

/**
 * The candidate on every chosen engine, as the pre-flight will judge it before launch: settings the engine version
 * cannot express, then the layouts the engine refuses at start-up (against the model's shape when it is known).
 * Null when the settings are not a valid layout yet (the field errors say why).
 */
export function layoutOnEngines(draft: Pick<WizardDraft, 'engines' | 'modelId'>, fields: LayoutFields): LayoutOnEngine[] | null {
  let config;
  try {
    config = parseServerConfig({ model: draft.modelId.trim() || 'model', ...layoutPatch(fields) });
  } catch {
    return null;
  }
  const model = knownModel(draft.modelId.trim());
  return draft.engines
    .filter((e) => e.enabled && e.version.trim() !== '')
    .map((e) => {
      const version = e.version.trim();
      const built = ENGINE_ADAPTERS[e.engine].buildArgv(config, version);
      const refusal: Refusal | null =
        built.unsupported.length > 0
          ? { code: 'knobs-unsupported', engine: e.engine, version, knobs: built.unsupported.map((u) => ({ knob: u.knob, reason: u.reason })) }
          : layoutRefusal(e.engine, version, config, model);
      return { engine: e.engine, version, gpus: serverGpuCount(e.engine, config), refusal };
    });
}
