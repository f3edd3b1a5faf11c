// `servelab study from-guide` as a user runs it: the built bin, a real process, the two published guides
// (tests/fixtures/guides, verbatim) opened as project files that the app then opens and runs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { runBuiltCli } from '../helpers/cli';
import { StudyProject } from '../../src/core/study/project-store';
import { PROJECT_SCHEMA_VERSION } from '../../src/shared/study/study';

let dir: string;
const guide = (name: string) => join(repoRoot, 'tests', 'fixtures', 'guides', name);

function runCli(args: string[]) {
  return runBuiltCli(args, { cwd: dir, env: { ...process.env, HOME: dir, SERVELAB_DATA_DIR: join(dir, 'data') } });
}

beforeAll(() => {
  if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('The CLI is not built: run `npm run build` (npm test does it first).');
  dir = mkdtempSync(join(tmpdir(), 'servelab-from-guide-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const blockCount = (name: string) => (readFileSync(guide(name), 'utf8').match(/^=+ Serving Benchmark Result =+\s*$/gm) ?? []).length;

describe('servelab study from-guide', () => {
  it('opens the throughput guide as a study, listing the stage-3 model the guide gets wrong', async () => {
    const run = await runCli(['study', 'from-guide', guide('qwen3-32b-a100-throughput.tr.txt'), '--out', 'throughput.servelab']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Wrote throughput.servelab: NVIDIA A100 GPU üzerinde Qwen3-32B işlem hacmi optimizasyonu');
    expect(run.stdout).toContain('    quantization (TensorRT-LLM/vLLM için Quantization): fp8, awq');
    expect(run.stdout).toContain('    max-batched-tokens (TensorRT-LLM için Toplu işteki en fazla token sayısı): max-batched-tokens-16384, max-batched-tokens-32768');
    expect(run.stdout).toContain(`published results: ${blockCount('qwen3-32b-a100-throughput.tr.txt')} result blocks, 2 failed launches`);
    expect(run.stdout).toMatch(/line 262: the guide is wrong: this command serves Qwen\/Qwen3-14B, not the page's model Qwen\/Qwen3-32B/);

    // The file is a project the app opens: the current version, its references labelled published with the guide as source.
    const project = await StudyProject.open(join(dir, 'throughput.servelab'));
    expect(project.file.schemaVersion).toBe(PROJECT_SCHEMA_VERSION);
    expect(project.file.study.goal.kind).toBe('throughput');
    expect(project.file.state.references?.every((r) => r.kind === 'published' && r.source.file === 'qwen3-32b-a100-throughput.tr.txt')).toBe(true);
    expect(project.file.state.guide?.problems.some((p) => p.line === 262 && p.kind === 'wrong')).toBe(true);
  });

  it('prints the project and the problems as JSON with --json', async () => {
    const run = await runCli(['study', 'from-guide', guide('qwen3-8b-h100-latency.tr.txt'), '--out', 'latency.servelab', '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { project: { study: { stages: { id: string }[] }; state: { references: unknown[] } }; problems: { line: number; kind: string }[] };
    expect(out.project.study.stages.map((s) => s.id)).toEqual(['cuda-graph-max-batch-size', 'quantization', 'attention-backend', 'speculative', 'torch-compile']);
    expect(out.project.state.references).toHaveLength(blockCount('qwen3-8b-h100-latency.tr.txt'));
    expect(out.problems).toEqual([{ line: 1015, kind: 'wrong', message: expect.stringContaining('+66.2%') }]);
  });

  it('refuses to overwrite a project, a missing guide, and a call without --out', async () => {
    writeFileSync(join(dir, 'taken.servelab'), '{}');
    const taken = await runCli(['study', 'from-guide', guide('qwen3-8b-h100-latency.tr.txt'), '--out', 'taken.servelab']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/taken\.servelab already exists/);
    const missing = await runCli(['study', 'from-guide', 'nowhere.md', '--out', 'x.servelab']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/There is no guide .*nowhere\.md/);
    const usage = await runCli(['study', 'from-guide', guide('qwen3-8b-h100-latency.tr.txt')]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--out needs the project file/);
  });
});
