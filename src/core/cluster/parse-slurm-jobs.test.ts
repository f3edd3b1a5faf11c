import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseExitCode, parseJobStateWord, parseNamedJobs, parseObserveOutput, parseScontrolJobLine, parseSubmitOutput } from './parse-slurm-jobs';

// Captured from the real test cluster: tests/fixtures/slurm/jobs/README.md.
const capture = (name: string) => readFileSync(join(__dirname, '../../../tests/fixtures/slurm/jobs', name), 'utf8');

describe('parseObserveOutput on captures', () => {
  it('one node without accounting: squeue for queued jobs, scontrol for ended ones, unknown for the rest', () => {
    const states = parseObserveOutput(capture('observe-one-node.out'), ['2', '3', '4', '5', '6', '7', '999999']);
    expect(states.map((s) => [s.jobId, s.state, s.phase, s.source, s.reason, s.nodeList, s.exitCode, s.signal])).toEqual([
      ['2', 'COMPLETED', 'ended', 'scontrol', null, 'node1', 0, 0],
      ['3', 'FAILED', 'ended', 'scontrol', 'NonZeroExitCode', 'node1', 3, 0],
      ['4', 'RUNNING', 'running', 'squeue', null, 'node1', null, null],
      ['5', 'PENDING', 'pending', 'squeue', 'Resources', null, null, null],
      ['6', 'PENDING', 'pending', 'squeue', 'Priority', null, null, null],
      ['7', 'CANCELLED', 'ended', 'scontrol', 'Priority', null, 0, 0],
      ['999999', 'UNKNOWN', 'unknown', 'none', null, null, null, null],
    ]);
    expect(states[0]).toMatchObject({ startTime: '2026-12-07T17:42:10', endTime: '2026-12-07T17:42:10' });
    expect(states[2]).toMatchObject({ startTime: '2026-12-07T17:42:16', endTime: null });
    // Pending: squeue's N/A; cancelled while pending: never started.
    expect(states[3]?.startTime).toBeNull();
    expect(states[5]).toMatchObject({ startTime: null, endTime: '2026-12-07T17:42:19' });
  });

  it('a job ended by its time limit', () => {
    expect(parseObserveOutput(capture('observe-one-node-timeout.out'), ['1'])).toEqual([
      { jobId: '1', state: 'TIMEOUT', phase: 'ended', source: 'scontrol', reason: 'TimeLimit', nodeList: 'node1', startTime: '2026-12-07T17:42:10', endTime: '2026-12-07T17:43:37', exitCode: 0, signal: 15 },
    ]);
  });

  it('a job on a node set DOWN (submitted with --no-requeue)', () => {
    expect(parseObserveOutput(capture('observe-two-nodes-node-fail.out'), ['1'])).toEqual([
      { jobId: '1', state: 'NODE_FAIL', phase: 'ended', source: 'scontrol', reason: 'NodeDown', nodeList: 'gpu1', startTime: '2026-12-07T17:52:33', endTime: '2026-12-07T17:52:33', exitCode: 0, signal: 15 },
    ]);
  });

  it('two nodes: two jobs on different nodes, the third waiting', () => {
    const states = parseObserveOutput(capture('observe-two-nodes-running.out'), ['1', '2', '3']);
    expect(states.map((s) => [s.state, s.nodeList, s.reason])).toEqual([
      ['RUNNING', 'gpu1', null],
      ['RUNNING', 'gpu2', null],
      ['PENDING', null, 'Resources'],
    ]);
  });

  it('with accounting, sacct answers for jobs slurmctld forgot', () => {
    const states = parseObserveOutput(capture('observe-two-nodes-sacct.out'), ['1', '2', '3', '4', '5', '999999']);
    expect(states.map((s) => [s.jobId, s.state, s.source, s.nodeList, s.startTime, s.exitCode])).toEqual([
      ['1', 'CANCELLED', 'sacct', 'gpu1', '2026-12-07T17:43:46', 0],
      ['2', 'CANCELLED', 'sacct', 'gpu2', '2026-12-07T17:43:46', 0],
      // Cancelled while pending: "None assigned", Start "None".
      ['3', 'CANCELLED', 'sacct', null, null, 0],
      ['4', 'COMPLETED', 'sacct', 'gpu2', '2026-12-07T17:43:46', 0],
      ['5', 'FAILED', 'sacct', 'gpu2', '2026-12-07T17:43:46', 3],
      ['999999', 'UNKNOWN', 'none', null, null, null],
    ]);
  });
});

describe('parseSubmitOutput', () => {
  it('reads the job id sbatch --parsable printed', () => {
    expect(parseSubmitOutput(capture('sbatch-one-node.out'))).toEqual({ jobId: '2', cluster: null });
  });

  it('reads id;cluster (marked edge case: the multi-cluster form of --parsable, src/sbatch/sbatch.c)', () => {
    expect(parseSubmitOutput('@@servelab:begin slurm-sbatch\n42;west\n@@servelab:end slurm-sbatch rc=0\n@@servelab:done\n')).toEqual({ jobId: '42', cluster: 'west' });
  });
});

describe('state words and exit codes', () => {
  it('reads sacct "CANCELLED by <uid>" and refuses a word Slurm 22.05 does not print', () => {
    expect(parseJobStateWord('CANCELLED by 0')).toBe('CANCELLED');
    expect(parseJobStateWord('OUT_OF_MEMORY')).toBe('OUT_OF_MEMORY');
    expect(() => parseJobStateWord('EXPLODED')).toThrow(/does not know: "EXPLODED"/);
    expect(() => parseJobStateWord('UNKNOWN')).toThrow();
  });

  it('splits ExitCode into status and signal', () => {
    expect(parseExitCode('0:15')).toEqual({ exitCode: 0, signal: 15 });
    expect(parseExitCode('')).toEqual({ exitCode: null, signal: null });
  });

  it('reads id|name lines, a name with | kept whole', () => {
    expect(parseNamedJobs('12|study-a|b\nnoise\n13|x')).toEqual([
      { jobId: '12', name: 'study-a|b' },
      { jobId: '13', name: 'x' },
    ]);
  });
});

describe('parseScontrolJobLine', () => {
  it('keeps a reason sentence and paths whole, and no job name poses as a field (marked edge case: hand-made line)', () => {
    const fields = parseScontrolJobLine(
      'JobId=9 JobName=x JobState=COMPLETED y UserId=root(0) JobState=PENDING Reason=launch failed requeued held Dependency=(null) ExitCode=0:0 WorkDir=/a b/c TRES=cpu=1,node=1',
    );
    expect(fields.get('JobState')).toBe('PENDING');
    expect(fields.get('Reason')).toBe('launch failed requeued held');
    expect(fields.get('WorkDir')).toBe('/a b/c');
    expect(fields.get('TRES')).toBe('cpu=1,node=1');
  });
});
