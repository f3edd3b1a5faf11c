// Slurm node states as the client commands print them, in either of Slurm's two spellings (both from
// src/common/slurm_protocol_defs.c at slurm-22-05-8-1):
//   - node_state_string_complete, used by `scontrol show node`: the base state and each flag joined by `+`
//     (`IDLE`, `IDLE+DRAIN`, `DOWN+NOT_RESPONDING`, `MIXED+CLOUD+POWERED_DOWN`);
//   - node_state_string and node_state_string_compact, used by sinfo's %T and %t (in lower case there): one word,
//     possibly a summary (`DRAINED`, `DRNG`), with at most one suffix character for a flag (`idle*`, `mix~`, `alloc+`).
import type { SlurmNodeState } from '../../shared/model/cluster';
import { SLURM_NODE_BASE_STATES } from '../../shared/model/cluster';

type Base = (typeof SLURM_NODE_BASE_STATES)[number];

/** The suffix characters of node_state_string(_compact) and the flag each stands for. */
const SUFFIX_FLAGS: Record<string, string> = {
  '*': 'NOT_RESPONDING',
  '~': 'POWERED_DOWN',
  '#': 'POWERING_UP',
  '%': 'POWERING_DOWN',
  '!': 'POWER_DOWN',
  $: 'MAINTENANCE',
  '@': 'REBOOT_REQUESTED',
  '^': 'REBOOT_ISSUED',
  '-': 'PLANNED',
  '+': 'COMPLETING',
};

/** node_state_string's and node_state_string_compact's words (upper case) and what each says. */
const WORDS: Record<string, { base: Base | null; flags: string[] }> = {
  IDLE: { base: 'idle', flags: [] },
  ALLOC: { base: 'allocated', flags: [] },
  ALLOCATED: { base: 'allocated', flags: [] },
  MIX: { base: 'mixed', flags: [] },
  MIXED: { base: 'mixed', flags: [] },
  DOWN: { base: 'down', flags: [] },
  ERROR: { base: 'error', flags: [] },
  FUTR: { base: 'future', flags: [] },
  FUTURE: { base: 'future', flags: [] },
  UNK: { base: 'unknown', flags: [] },
  UNKNOWN: { base: 'unknown', flags: [] },
  // Summaries that hide the base state: drained (no job left), draining (jobs still running), …
  DRAIN: { base: null, flags: ['DRAIN'] },
  DRAINED: { base: null, flags: ['DRAIN'] },
  DRNG: { base: null, flags: ['DRAIN'] },
  DRAINING: { base: null, flags: ['DRAIN'] },
  COMP: { base: null, flags: ['COMPLETING'] },
  COMPLETING: { base: null, flags: ['COMPLETING'] },
  FAIL: { base: null, flags: ['FAIL'] },
  FAILG: { base: null, flags: ['FAIL'] },
  FAILING: { base: null, flags: ['FAIL'] },
  MAINT: { base: null, flags: ['MAINTENANCE'] },
  BOOT: { base: null, flags: ['REBOOT_REQUESTED'] },
  REBOOT: { base: null, flags: ['REBOOT_REQUESTED'] },
  REBOOT_ISSUED: { base: null, flags: ['REBOOT_ISSUED'] },
  INVAL: { base: null, flags: ['INVALID_REG'] },
  RESV: { base: 'idle', flags: ['RESERVED'] },
  RESERVED: { base: 'idle', flags: ['RESERVED'] },
  PLND: { base: 'idle', flags: ['PLANNED'] },
  PLANNED: { base: 'idle', flags: ['PLANNED'] },
  NPC: { base: 'idle', flags: ['PERFCTRS'] },
  PERFCTRS: { base: 'idle', flags: ['PERFCTRS'] },
  CLOUD: { base: null, flags: ['CLOUD'] },
  POW_DN: { base: null, flags: ['POWER_DOWN'] },
  POWER_DOWN: { base: null, flags: ['POWER_DOWN'] },
  POW_UP: { base: null, flags: ['POWER_UP'] },
  POWER_UP: { base: null, flags: ['POWER_UP'] },
  POWERED_DN: { base: null, flags: ['POWERED_DOWN'] },
  POWERED_DOWN: { base: null, flags: ['POWERED_DOWN'] },
  POWRING_DN: { base: null, flags: ['POWERING_DOWN'] },
  POWERING_DOWN: { base: null, flags: ['POWERING_DOWN'] },
  POWERING_UP: { base: null, flags: ['POWERING_UP'] },
  CANC_R: { base: null, flags: [] },
  CANCEL_REBOOT: { base: null, flags: [] },
  RESM: { base: null, flags: ['RESUME'] },
  RESUME: { base: null, flags: ['RESUME'] },
};

/** Flags under which the scheduler starts no new job on a node (a powered-down node it can still power up). */
const BLOCKING_FLAGS = new Set(['DRAIN', 'FAIL', 'NOT_RESPONDING', 'INVALID_REG', 'REBOOT_ISSUED', 'POWER_DOWN', 'POWERING_DOWN', 'MAINTENANCE']);
const SCHEDULABLE_BASES = new Set<Base | null>(['idle', 'mixed', 'allocated']);

function state(text: string, base: Base | null, flags: string[]): SlurmNodeState {
  return { text, base, flags, schedulable: SCHEDULABLE_BASES.has(base) && !flags.some((flag) => BLOCKING_FLAGS.has(flag)) };
}

/** Reads a node state in either spelling; a word Slurm does not print gives base null and no flags (not schedulable). */
export function parseNodeState(text: string): SlurmNodeState {
  const trimmed = text.trim();
  const upper = trimmed.toUpperCase();
  // Complete form: BASE+FLAG+FLAG. A lone trailing `+` is the short form's "completing" suffix instead (ALLOC+).
  const parts = upper.split('+');
  if (parts.length > 1 && parts.every((part) => /^[A-Z_]+$/.test(part))) {
    const [first, ...flags] = parts as [string, ...string[]];
    const base = (SLURM_NODE_BASE_STATES as readonly string[]).includes(first.toLowerCase()) ? (first.toLowerCase() as Base) : null;
    return state(trimmed, base, flags);
  }
  const suffix = upper.slice(-1);
  const flagOfSuffix = SUFFIX_FLAGS[suffix];
  const word = flagOfSuffix ? upper.slice(0, -1) : upper;
  const known = WORDS[word];
  if (!known) return state(trimmed, null, flagOfSuffix ? [flagOfSuffix] : []);
  return state(trimmed, known.base, [...known.flags, ...(flagOfSuffix ? [flagOfSuffix] : [])]);
}
