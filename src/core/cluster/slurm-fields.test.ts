import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { slurmFixtureDir } from '../../../tests/helpers/repo';
import { parseGres, parseKeyValueLine, parseNameList, parseSlurmMinutes } from './slurm-fields';

const nodeLines = readFileSync(join(slurmFixtureDir, 'scontrol-show-node-down.txt'), 'utf8').trim().split('\n');

describe('parseKeyValueLine', () => {
  it('reads a captured `scontrol -o show node` record, free text included', () => {
    const gpu2 = parseKeyValueLine(nodeLines[1] as string);
    expect(gpu2.get('NodeName')).toBe('gpu2');
    expect(gpu2.get('CPUTot')).toBe('2');
    expect(gpu2.get('Gres')).toBe('gpu:fake:2');
    // Values with spaces: OS= (uname) and the Reason= printed last.
    expect(gpu2.get('OS')).toMatch(/^Linux \S+ #\d/);
    expect(gpu2.get('RealMemory')).toBe('4000');
    expect(gpu2.get('CfgTRES')).toBe('cpu=2,mem=4000M,billing=2,gres/gpu=2');
    expect(gpu2.get('Reason')).toMatch(/^cable swap \[root@\d{4}-\d\d-\d\dT[\d:]+\]$/);
  });

  it('keeps `=` and spaces inside a free-text Reason (edge case: node_info.c prints Reason, Comment, Extra last)', () => {
    const record = parseKeyValueLine('NodeName=n1 State=IDLE+DRAIN Reason=ecc errors=12 on gpu0 [ops@2026-01-02T03:04:05] Comment=rack B=7');
    expect(record.get('Reason')).toBe('ecc errors=12 on gpu0 [ops@2026-01-02T03:04:05]');
    expect(record.get('Comment')).toBe('rack B=7');
    expect(record.has('errors')).toBe(false);
  });
});

describe('parseSlurmMinutes', () => {
  it('reads the limits the test cluster printed', () => {
    expect(parseSlurmMinutes('UNLIMITED')).toBeNull();
    expect(parseSlurmMinutes('NONE')).toBeNull();
    expect(parseSlurmMinutes('00:10:00')).toBe(10);
    expect(parseSlurmMinutes('01:00:00')).toBe(60);
  });

  // secs2time_str (src/common/parse_time.c) prints days as `d-hh:mm:ss`; time_str2mins accepts the shorter forms.
  it.each([
    ['1-00:00:00', 1440],
    ['2-12:30:00', 3630],
    ['7-00', 10080],
    ['3-04:05', 4565],
    ['90', 90],
    ['5:30', 6],
    ['INFINITE', null],
  ])('%s', (text, expected) => {
    expect(parseSlurmMinutes(text)).toBe(expected);
  });

  it('names what it cannot read', () => {
    expect(() => parseSlurmMinutes('soon')).toThrow('"soon" is not a Slurm time limit');
  });
});

describe('parseGres', () => {
  it('reads the GRES the test cluster printed, and none', () => {
    expect(parseGres('gpu:fake:2')).toEqual([{ name: 'gpu', type: 'fake', count: 2 }]);
    expect(parseGres('(null)')).toEqual([]);
  });

  // Edge cases after gres_node_config / gres.conf(5): socket suffixes (22.05+), untyped, several, no_consume, K suffix.
  it.each([
    ['gpu:a100:4(S:0-1)', [{ name: 'gpu', type: 'a100', count: 4 }]],
    ['gpu:4', [{ name: 'gpu', type: null, count: 4 }]],
    ['gpu', [{ name: 'gpu', type: null, count: 1 }]],
    ['gpu:a100:2(S:0),gpu:v100:1(S:1),mps:200', [
      { name: 'gpu', type: 'a100', count: 2 },
      { name: 'gpu', type: 'v100', count: 1 },
      { name: 'mps', type: null, count: 200 },
    ]],
    ['gpu:h100:no_consume:8', [{ name: 'gpu', type: 'h100', count: 8 }]],
    ['shard:1K', [{ name: 'shard', type: null, count: 1024 }]],
  ])('%s', (text, expected) => {
    expect(parseGres(text)).toEqual(expected);
  });
});

describe('parseNameList', () => {
  it('reads lists and no restriction', () => {
    expect(parseNameList('debug,short')).toEqual(['debug', 'short']);
    expect(parseNameList('ALL')).toBeNull();
    expect(parseNameList('(null)')).toBeNull();
  });
});
