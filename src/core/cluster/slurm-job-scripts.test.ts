import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { SlurmJobSpecSchema } from '../../shared/model/slurm-job';
import { batchScript, jobIdList, observeScript, sbatchOptions } from './slurm-job-scripts';

/** The words sh makes of a command line. */
function wordsOf(commandLine: string): string[] {
  const result = spawnSync('sh', ['-c', `HOME=/home/u; printf '%s\\n' ${commandLine}`], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split('\n').slice(0, -1);
}

describe('sbatchOptions', () => {
  it('gives sbatch each value as one word, whatever it holds; ~/ paths under HOME', () => {
    const spec = SlurmJobSpecSchema.parse({
      name: `it's "x" $(touch /tmp/no) ; y`,
      script: 'true',
      partition: 'gpu part',
      account: "a'b",
      qos: '$QOS',
      gpus: { type: 'h100', count: 2 },
      cpusPerTask: 8,
      memoryMiB: 64000,
      timeLimitMinutes: 90,
      outputPath: '~/runs/study 1/trial.out',
      workDir: '/scratch/it is',
    });
    expect(wordsOf(sbatchOptions(spec).join(' '))).toEqual([
      'sbatch',
      '--parsable',
      `--job-name=it's "x" $(touch /tmp/no) ; y`,
      '--partition=gpu part',
      "--account=a'b",
      '--qos=$QOS',
      '--gres=gpu:h100:2',
      '--cpus-per-task=8',
      '--mem=64000M',
      '--time=90',
      '--no-requeue',
      '--output=/home/u/runs/study 1/trial.out',
      '--error=/home/u/runs/study 1/trial.out',
      '--chdir=/scratch/it is',
    ]);
  });

  it('asks for GPUs without a type, and leaves out what is not given', () => {
    const spec = SlurmJobSpecSchema.parse({ name: 'n', script: 'true', gpus: { count: 1 }, timeLimitMinutes: 1, outputPath: '/o', errorPath: '/e', workDir: '/w', requeue: true });
    expect(wordsOf(sbatchOptions(spec).join(' '))).toEqual(['sbatch', '--parsable', '--job-name=n', '--gres=gpu:1', '--time=1', '--requeue', '--output=/o', '--error=/e', '--chdir=/w']);
  });
});

describe('SlurmJobSpecSchema', () => {
  it('refuses relative paths, Slurm file name patterns and bad environment names', () => {
    const base = { name: 'n', script: 'true', timeLimitMinutes: 1, outputPath: '/o', workDir: '/w' };
    expect(SlurmJobSpecSchema.safeParse({ ...base, outputPath: 'o' }).success).toBe(false);
    expect(SlurmJobSpecSchema.safeParse({ ...base, outputPath: '/o/%j.out' }).success).toBe(false);
    expect(SlurmJobSpecSchema.safeParse({ ...base, env: { 'A-B': '1' } }).success).toBe(false);
    expect(SlurmJobSpecSchema.safeParse({ ...base, timeLimitMinutes: 0 }).success).toBe(false);
  });
});

describe('batchScript', () => {
  it('adds #!/bin/sh and exports after the first line', () => {
    expect(batchScript({ script: 'echo "$A"', env: { A: "it's" } })).toBe(`#!/bin/sh\nexport A='it'\\''s'\necho "$A"\n`);
    expect(batchScript({ script: '#!/bin/bash\necho hi\n', env: { B: '1' } })).toBe('#!/bin/bash\nexport B=1\necho hi\n');
  });

  it('runs under sh with the exported value intact', () => {
    const value = `a'b "c" $(d) \\ e`;
    const result = spawnSync('sh', ['-s'], { input: batchScript({ script: 'printf %s "$V"', env: { V: value } }), encoding: 'utf8' });
    expect(result.stdout).toBe(value);
  });
});

describe('job ids', () => {
  it('only numbers reach a script', () => {
    expect(jobIdList(['1', '22'])).toBe('1,22');
    expect(() => observeScript(['1; rm -rf ~'])).toThrow(/not a Slurm job id/);
  });
});
