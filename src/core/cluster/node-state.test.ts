import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { slurmFixtureDir } from '../../../tests/helpers/repo';
import { parseNodeState } from './node-state';

const fixture = (name: string) => readFileSync(join(slurmFixtureDir, name), 'utf8');

describe('parseNodeState', () => {
  it('reads the states scontrol printed on the test cluster (node_state_string_complete)', () => {
    const states = `${fixture('two-nodes-accounting.out')}\n${fixture('scontrol-show-node-down.txt')}`
      .split('\n')
      .filter((line) => line.startsWith('NodeName='))
      .map((line) => / State=(\S+)/.exec(line)?.[1]);
    expect(new Set(states)).toEqual(new Set(['MIXED', 'IDLE+DRAIN', 'DOWN+NOT_RESPONDING']));
    expect(parseNodeState('MIXED')).toEqual({ text: 'MIXED', base: 'mixed', flags: [], schedulable: true });
    expect(parseNodeState('IDLE+DRAIN')).toEqual({ text: 'IDLE+DRAIN', base: 'idle', flags: ['DRAIN'], schedulable: false });
    expect(parseNodeState('DOWN+NOT_RESPONDING')).toEqual({ text: 'DOWN+NOT_RESPONDING', base: 'down', flags: ['NOT_RESPONDING'], schedulable: false });
  });

  it("reads sinfo's short and long forms as the test cluster printed them (%t and %T)", () => {
    const rows = `${fixture('sinfo-states-drained.txt')}${fixture('sinfo-states-down.txt')}`
      .trim()
      .split('\n')
      .map((line) => line.split('|'));
    const read = Object.fromEntries(rows.flatMap(([, short, long]) => [short, long].map((text) => [text as string, parseNodeState(text as string)])));
    expect(Object.keys(read).sort()).toEqual(['down*', 'drain', 'drained', 'mix', 'mixed']);
    expect(read.mix).toMatchObject({ base: 'mixed', flags: [], schedulable: true });
    expect(read.mixed).toMatchObject({ base: 'mixed', flags: [], schedulable: true });
    expect(read.drain).toMatchObject({ base: null, flags: ['DRAIN'], schedulable: false });
    expect(read.drained).toMatchObject({ base: null, flags: ['DRAIN'], schedulable: false });
    expect(read['down*']).toMatchObject({ base: 'down', flags: ['NOT_RESPONDING'], schedulable: false });
  });

  // Edge cases written from slurm_protocol_defs.c (slurm-22-05-8-1), states the test cluster cannot reach (no power
  // saving, no cloud nodes): node_state_string_compact's suffixes and node_state_string_complete's flag lists.
  it.each([
    ['idle*', 'idle', ['NOT_RESPONDING'], false],
    ['IDLE~', 'idle', ['POWERED_DOWN'], true],
    ['mix~', 'mixed', ['POWERED_DOWN'], true],
    ['MIX-', 'mixed', ['PLANNED'], true],
    ['ALLOC+', 'allocated', ['COMPLETING'], true],
    ['alloc$', 'allocated', ['MAINTENANCE'], false],
    ['drng@', null, ['DRAIN', 'REBOOT_REQUESTED'], false],
    ['IDLE%', 'idle', ['POWERING_DOWN'], false],
    ['futr', 'future', [], false],
    ['MIXED+CLOUD+POWERED_DOWN', 'mixed', ['CLOUD', 'POWERED_DOWN'], true],
    ['IDLE+DRAIN+NOT_RESPONDING', 'idle', ['DRAIN', 'NOT_RESPONDING'], false],
    ['INVAL', null, ['INVALID_REG'], false],
    ['?', null, [], false],
    ['something-new', null, [], false],
  ] as const)('%s', (text, base, flags, schedulable) => {
    expect(parseNodeState(text)).toEqual({ text, base, flags: [...flags], schedulable });
  });
});
