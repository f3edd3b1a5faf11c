import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_SCHEMA_VERSION, ProjectFileSchema, StudyDefinitionSchema } from '../../shared/study/study';
import { runRun } from './run';

describe('servelab run of a project from elsewhere (L5)', () => {
  it('refuses without a terminal, naming what it runs and the flag that accepts it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servelab-run-trust-'));
    const study = StudyDefinitionSchema.parse({
      name: 's',
      model: { id: 'Qwen/Qwen3-8B' },
      hosts: [{ hostId: 'demo-lab' }],
      goal: { kind: 'latency' },
      engines: [{ engine: 'vllm', version: '0.11.0', config: { env: { NCCL_DEBUG: 'INFO' } } }],
      workloads: { primary: { id: 'w', dataset: { kind: 'sharegpt' }, numPrompts: 10, maxConcurrency: 1 } },
    });
    const path = join(dir, 'shared.servelab');
    await writeFile(path, JSON.stringify(ProjectFileSchema.parse({ schemaVersion: PROJECT_SCHEMA_VERSION, study, state: { status: 'draft', trials: [], decisions: [] } })));
    let stderr = '';
    const io = { stdout: () => {}, stderr: (t: string) => void (stderr += t), env: {}, cwd: dir };
    const code = await runRun([path, '--data-dir', join(dir, 'data')], io, { signal: new AbortController().signal });
    expect(code).toBe(1);
    expect(stderr).toContain('  - vllm 0.11.0: env NCCL_DEBUG="INFO"\n');
    expect(stderr).toContain('run again with --trust to accept them');
  });
});
