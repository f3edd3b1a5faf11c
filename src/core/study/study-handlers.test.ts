import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../dispatch/event-bus';
import { RecentProjects } from './recent-projects';
import { ProjectTrust } from './project-trust';
import { studyHandlers } from './study-handlers';
import type { StudyRunnerDeps } from './study-runner';
import { DEMO_LAB_HOST_ID } from '../../shared/model/host';
import { StudyDefinitionSchema } from '../../shared/study/study';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-study-handlers-'));
});
afterEach(async () => {
  // A cancelled run may still be writing its lock and journal for a moment.
  await rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
});

const study = StudyDefinitionSchema.parse({
  name: 'Once',
  model: { id: 'Qwen/Qwen3-8B' },
  hosts: [{ hostId: DEMO_LAB_HOST_ID }],
  demoLab: { gpu: 'h100', count: 1 },
  goal: { kind: 'latency' },
  engines: [{ engine: 'vllm', version: '0.11.0' }],
  stages: [],
  workloads: { primary: { id: 'w', dataset: { kind: 'random', inputLen: 256, outputLen: 64 }, numPrompts: 10, maxConcurrency: 1, seed: 1 } },
});

describe('studies:run', () => {
  it('runs a project once, whatever path (a symlink) names it', async () => {
    // A box that never answers keeps the first run in its host setup.
    const runner = (): StudyRunnerDeps => ({ box: () => new Promise(() => {}), isDemo: () => true, hostLabel: (id) => id });
    const handlers = studyHandlers({ events: new EventBus(), runner, examplesDir: null, recent: new RecentProjects(join(dir, 'recent.json')), trust: new ProjectTrust(join(dir, 'data')) });
    const path = join(dir, 'once.servelab');
    await handlers['studies:create']({ path, study });
    await symlink(path, join(dir, 'link.servelab'));
    expect(await handlers['studies:run']({ path })).toEqual({ started: true });
    expect(await handlers['studies:run']({ path: join(dir, 'link.servelab') })).toEqual({ started: false });
    await expect(handlers['studies:save']({ path: join(dir, 'link.servelab'), study })).rejects.toThrow(/The study is running/);
    expect(await handlers['studies:cancel']({ path: join(dir, 'link.servelab') })).toEqual({ cancelled: true });
  });
});

describe('studies:report', () => {
  it('renders in the language asked for (English when none is), the CSV alike in every language', async () => {
    const runner = (): StudyRunnerDeps => ({ box: () => new Promise(() => {}), isDemo: () => true, hostLabel: (id) => id });
    const handlers = studyHandlers({ events: new EventBus(), runner, examplesDir: null, recent: new RecentProjects(join(dir, 'recent.json')), trust: new ProjectTrust(join(dir, 'data')) });
    const path = join(dir, 'draft.servelab');
    await handlers['studies:create']({ path, study });
    expect((await handlers['studies:report']({ path, format: 'md' })).text).toContain('## Recommendation');
    const tr = (await handlers['studies:report']({ path, format: 'md', lang: 'tr' })).text;
    expect(tr).toContain('## Öneri');
    expect(tr).toContain('Bu çalışma henüz çalıştırılmadı');
    expect((await handlers['studies:report']({ path, format: 'csv', lang: 'tr' })).text).toBe((await handlers['studies:report']({ path, format: 'csv' })).text);
    // The export writes the file in the language asked for, English when none is.
    const out = join(dir, 'report.md');
    expect(await handlers['studies:export']({ path, format: 'md', lang: 'tr', out })).toEqual({ path: out });
    expect(await readFile(out, 'utf8')).toBe(tr);
    const english = join(dir, 'report-en.md');
    await handlers['studies:export']({ path, format: 'md', out: english });
    expect(await readFile(english, 'utf8')).toContain('## Recommendation');
  });
});
