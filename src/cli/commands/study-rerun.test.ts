import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../cli-io';
import { comparisonText, runStudyRerun, RERUN_USAGE } from './study-rerun';
import type { DiffSide, StudyDiff } from '../../shared/study/study-diff';
import { runCli, USAGE } from '../main';
import { ProjectTrust } from '../../core/study/project-trust';
import { ProjectFileSchema, type ProjectFile } from '../../shared/study/study';
import { EXAMPLES, exampleStudy } from '../../../tests/helpers/study-runs';
import { virtualProject } from '../../../tests/helpers/virtual-study';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-cli-rerun-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function io(): CliIo & { out: string; err: string } {
  const sink = { out: '', err: '' };
  return Object.assign(sink, { stdout: (t: string) => void (sink.out += t), stderr: (t: string) => void (sink.err += t), env: {}, cwd: dir });
}

// The latency example run in virtual time (tests/helpers/virtual-study.ts) as the finished original.
async function finished(): Promise<ProjectFile> {
  const file = virtualProject(exampleStudy(EXAMPLES.latency), { seed: 1 });
  await writeFile(join(dir, 'latency.servelab'), JSON.stringify(file));
  return file;
}

describe('servelab rerun', () => {
  it('writes the re-run, and compares it with the original once it ran, exiting 3 on a regression when asked', async () => {
    await finished();
    const made = io();
    expect(await runStudyRerun(['latency.servelab', '--out', 'new.servelab', '--engine', 'vllm=0.12.0'], made)).toBe(0);
    expect(made.out).toContain('Wrote new.servelab: "Qwen3-8B, lowest latency on one H100 (re-run)" (vllm 0.12.0, sglang 0.5.3.post3, trtllm 1.2.0rc1)');
    const rerun = ProjectFileSchema.parse(JSON.parse(await readFile(join(dir, 'new.servelab'), 'utf8')));
    expect(rerun.study.rerunOf?.path).toBe(join(dir, 'latency.servelab'));
    const draft = io();
    expect(await runStudyRerun(['--compare', 'new.servelab', '--fail-on-regression'], draft)).toBe(0);
    expect(draft.out).toContain('Nothing to compare yet');
    expect(draft.out).toContain('No regression.');

    // Marked edge case: the re-run measured on a slower GPU (the demo lab's A100) so that it regresses.
    const slower = { ...rerun.study, demoLab: { gpu: 'a100' as const, count: 1 } };
    await writeFile(join(dir, 'new.servelab'), JSON.stringify(virtualProject(slower, { seed: 2 })));
    const compared = io();
    expect(await runStudyRerun(['--compare', 'new.servelab', '--fail-on-regression'], compared)).toBe(3);
    expect(compared.out).toMatch(/^Against "Qwen3-8B, lowest latency on one H100" \(mean_latency_s; margin ±3%\):/);
    expect(compared.out).toMatch(/engine\/vllm-0\.12\.0\/sharegpt-c4 {2}vLLM 0\.12\.0: \+\d+\.\d% \[\+\d+\.\d, \+\d+\.\d\] worse \(REGRESSION\)/);
    expect(compared.out).toMatch(/Regressions \(\d+\):/);
    expect(await runStudyRerun(['--compare', 'new.servelab'], io())).toBe(0);
  });

  it('refuses bad usage with exit 2 and a study it cannot re-run with exit 1', async () => {
    await finished();
    const usage = io();
    expect(await runStudyRerun(['latency.servelab', '--out', 'n.servelab', '--engine', 'ollama=1'], usage)).toBe(2);
    expect(usage.err).toContain('--engine takes ENGINE=VERSION');
    expect(await runStudyRerun(['latency.servelab'], io())).toBe(2);
    const bad = io();
    expect(await runStudyRerun(['latency.servelab', '--out', 'n.servelab', '--engine', 'vllm=not a version'], bad)).toBe(1);
    expect(bad.err).toContain('engines.0.version');
  });

  it('trusts the re-run as far as the original was trusted here', async () => {
    const file = await finished();
    // Marked edge case: an environment variable on the first engine makes the project one that asks before it runs.
    const engines = file.study.engines.map((e, i) => (i === 0 ? { ...e, config: { ...e.config, env: { VLLM_LOGGING_LEVEL: 'DEBUG' } } } : e));
    const withEnv = { ...file, study: { ...file.study, engines } };
    await writeFile(join(dir, 'latency.servelab'), JSON.stringify(withEnv));
    const dataDir = join(dir, 'data');
    const trust = new ProjectTrust(dataDir);
    expect(await runStudyRerun(['latency.servelab', '--out', 'before.servelab', '--data-dir', 'data'], io())).toBe(0);
    const before = ProjectFileSchema.parse(JSON.parse(await readFile(join(dir, 'before.servelab'), 'utf8')));
    expect((await trust.check(join(dir, 'before.servelab'), before.study)).trusted).toBe(false);

    await trust.trustWritten(join(dir, 'latency.servelab'), withEnv.study);
    expect(await runStudyRerun(['latency.servelab', '--out', 'after.servelab', '--engine', 'vllm=0.12.0', '--data-dir', 'data'], io())).toBe(0);
    const after = ProjectFileSchema.parse(JSON.parse(await readFile(join(dir, 'after.servelab'), 'utf8')));
    expect((await trust.check(join(dir, 'after.servelab'), after.study)).trusted).toBe(true);
  });

  it('prints a configuration the re-run no longer measures as a regression', () => {
    // Marked edge case: a hand-made comparison with one configuration measured in the original and failed in the re-run.
    const side: DiffSide = { label: 'FP8 checkpoint', engine: 'vllm', version: '0.12.0', outcome: 'failed', runs: 0 };
    const at = { key: 'quantization/fp8/c4', stageId: 'quantization', workloadId: 'c4' };
    const diff: StudyDiff = {
      marginPct: 3,
      metrics: ['mean_latency_s'],
      rows: [{ ...at, candidateId: 'fp8', original: { ...side, version: '0.11.0', outcome: 'measured', runs: 2 }, rerun: side, sameConfig: true, metrics: [] }],
      regressions: [{ ...at, label: 'FP8 checkpoint', kind: 'lost', outcome: 'failed' }],
      onlyOriginal: [],
      onlyRerun: [],
    };
    const text = comparisonText(diff, 'Latency');
    expect(text).toContain('  quantization/fp8/c4  FP8 checkpoint: original measured, re-run failed (REGRESSION)\n');
    expect(text).toContain('Regressions (1):\n  quantization/fp8/c4: measured in the original, failed in the re-run\n');
  });

  it('is the `servelab rerun` command', async () => {
    const help = io();
    expect(await runCli(['rerun', '--help'], help, '')).toBe(0);
    expect(help.out).toContain(RERUN_USAGE.split('\n')[0]);
    expect(USAGE).toContain('rerun <project.servelab>');
  });
});
