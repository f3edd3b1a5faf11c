import { mkdtemp, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StudyDefinitionSchema, type StudyDefinitionInput } from '../../shared/study/study';
import { EventBus } from '../dispatch/event-bus';
import { PROJECT_SCHEMA_VERSION, ProjectFileSchema } from '../../shared/study/study';
import { ProjectTrust, whatItRuns } from './project-trust';
import { RecentProjects } from './recent-projects';
import { studyHandlers } from './study-handlers';
import type { StudyRunnerDeps } from './study-runner';

const study = (extra: Partial<StudyDefinitionInput> = {}) =>
  StudyDefinitionSchema.parse({
    name: 's',
    model: { id: 'Qwen/Qwen3-8B' },
    hosts: [{ hostId: 'lab' }],
    goal: { kind: 'latency' },
    engines: [{ engine: 'vllm', version: '0.11.0' }],
    workloads: { primary: { id: 'w', dataset: { kind: 'sharegpt' }, numPrompts: 10, maxConcurrency: 1 } },
    ...extra,
  });

describe('project trust', () => {
  it('names what a project runs beyond the typed knobs: remote code, env, extra args, dataset files', () => {
    expect(whatItRuns(study())).toEqual([]);
    const s = study({
      engines: [{ engine: 'vllm', version: '0.11.0', config: { trustRemoteCode: true, env: { NCCL_DEBUG: 'INFO', HF_TOKEN: { secretRef: 'hf' } }, extraArgs: ['--enable-prefix-caching'] } }],
      workloads: { primary: { id: 'w', dataset: { kind: 'custom', path: '/data/p.jsonl' }, numPrompts: 10, maxConcurrency: 1 } },
    });
    expect(whatItRuns(s)).toEqual([
      "vllm 0.11.0: trust remote code (runs the model repository's own Python code on the box)",
      'vllm 0.11.0: env NCCL_DEBUG="INFO"',
      'vllm 0.11.0: env HF_TOKEN=(secret "hf")',
      'vllm 0.11.0: extra arguments "--enable-prefix-caching"',
      'workload w: dataset file "/data/p.jsonl" on the box',
      'models whose code may run: "Qwen/Qwen3-8B"',
    ]);
  });

  it('asks again when trusted remote code would come from another repository, and shows control characters escaped', () => {
    const remote = (model: string) => study({ model: { id: model }, engines: [{ engine: 'vllm', version: '0.11.0', config: { trustRemoteCode: true } }] });
    expect(whatItRuns(remote('Qwen/Qwen3-8B'))).not.toEqual(whatItRuns(remote('someone/lookalike')));
    const sneaky = study({ engines: [{ engine: 'vllm', version: '0.11.0', config: { env: { NCCL_DEBUG: 'INFO\u001b[1A\u001b[2K\n  - nothing else' } } }] });
    const [line] = whatItRuns(sneaky);
    expect(line).toBe('vllm 0.11.0: env NCCL_DEBUG="INFO\\u001b[1A\\u001b[2K\\n  - nothing else"');
    expect([...(line ?? '')].some((ch) => ch.charCodeAt(0) < 0x20)).toBe(false);
  });

  it('asks once per project realpath, again after those settings change, and is kept out of the project file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servelab-trust-'));
    const project = join(dir, 'p.servelab');
    await writeFile(project, '{}');
    const trust = new ProjectTrust(join(dir, 'data'));
    expect((await trust.check(project, study())).trusted).toBe(true);
    const risky = study({ engines: [{ engine: 'vllm', version: '0.11.0', config: { trustRemoteCode: true } }] });
    const first = await trust.check(project, risky);
    expect(first).toMatchObject({ trusted: false, runs: [expect.stringContaining('trust remote code'), expect.stringContaining('models whose code')] });
    await trust.trust(project, first.hash);
    expect((await trust.check(project, risky)).trusted).toBe(true);
    // The same file by another name is the same project.
    await symlink(project, join(dir, 'link.servelab'));
    expect((await trust.check(join(dir, 'link.servelab'), risky)).trusted).toBe(true);
    // An edit to what it runs asks again.
    const edited = study({ engines: [{ engine: 'vllm', version: '0.11.0', config: { trustRemoteCode: true, env: { NCCL_DEBUG: 'INFO' } } }] });
    expect((await trust.check(project, edited)).trusted).toBe(false);
    await trust.trustWritten(project, edited);
    expect((await trust.check(project, edited)).trusted).toBe(true);
    expect((await stat(join(dir, 'data', 'trusted-projects.json'))).mode & 0o777).toBe(0o600);
  });
});

describe('studies:run of a project from elsewhere', () => {
  it('refuses until the user confirms what it runs, then runs; a project this user saved runs at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servelab-trust-run-'));
    const never = new Promise<never>(() => {});
    const runner: StudyRunnerDeps = { box: () => never, isDemo: () => true, hostLabel: (id) => id };
    const calls = studyHandlers({ events: new EventBus(), runner: () => runner, examplesDir: null, recent: new RecentProjects(join(dir, 'recent.json')), trust: new ProjectTrust(join(dir, 'data')) });
    const risky = study({ engines: [{ engine: 'vllm', version: '0.11.0', config: { trustRemoteCode: true, extraArgs: ['--enable-prefix-caching'] } }] });
    // Received from someone else: written straight to disk, not through the app.
    const shared = join(dir, 'shared.servelab');
    await writeFile(shared, JSON.stringify(ProjectFileSchema.parse({ schemaVersion: PROJECT_SCHEMA_VERSION, study: risky, state: { status: 'draft', trials: [], decisions: [] } })));
    const check = await calls['studies:trustCheck']({ path: shared });
    expect(check).toMatchObject({ trusted: false, runs: [expect.stringContaining('trust remote code'), 'vllm 0.11.0: extra arguments "--enable-prefix-caching"', expect.stringContaining('models whose code')] });
    // Saving an edit of it here does not accept what it runs.
    await calls['studies:save']({ path: shared, study: { ...risky, name: 'renamed' } });
    expect((await calls['studies:trustCheck']({ path: shared })).trusted).toBe(false);
    await expect(calls['studies:run']({ path: shared })).rejects.toThrow(/will run:\n {2}- vllm 0\.11\.0: trust remote code.*\n {2}- vllm 0\.11\.0: extra arguments "--enable-prefix-caching"\n.*Check these settings, then confirm to run it/s);
    await expect(calls['studies:run']({ path: shared, trust: check.hash })).resolves.toEqual({ started: true });
    expect((await calls['studies:trustCheck']({ path: shared })).trusted).toBe(true);

    const mine = join(dir, 'mine.servelab');
    await calls['studies:create']({ path: mine, study: risky });
    expect((await calls['studies:trustCheck']({ path: mine })).trusted).toBe(true);
  });
});
