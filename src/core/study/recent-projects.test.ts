import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallOutput } from '../../shared/contract';
import { createDispatcher, type CallHandlers } from '../dispatch/dispatcher';
import { EventBus } from '../dispatch/event-bus';
import { RecentProjects } from './recent-projects';
import { ProjectTrust } from './project-trust';
import { studyHandlers } from './study-handlers';
import { EXAMPLES, exampleStudy } from '../../../tests/helpers/study-runs';
import { virtualProject } from '../../../tests/helpers/virtual-study';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-recent-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('recent projects', () => {
  it('keep the study’s translated names beside its name, so the list can name it in the app’s language', async () => {
    const file = virtualProject(exampleStudy(EXAMPLES.latency), { seed: 1 });
    const trName = file.study.translations?.tr?.name;
    expect(trName, 'the latency example names itself in Turkish').toBeTruthy();
    const path = join(dir, 'latency.servelab');
    await writeFile(path, `${JSON.stringify(file, null, 1)}\n`);
    const recent = new RecentProjects(join(dir, 'recent.json'));
    const runner = () => ({ box: () => new Promise<never>(() => {}), isDemo: () => true, hostLabel: (id: string) => id });
    const dispatch = createDispatcher(studyHandlers({ events: new EventBus(), runner, examplesDir: null, recent, trust: new ProjectTrust(join(dir, 'data')) }) as unknown as CallHandlers);

    const opened = await dispatch('studies:open', { path });
    if (!opened.ok) throw new Error(opened.error.message);
    const listed = await dispatch('studies:recent', {});
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.data as CallOutput<'studies:recent'>).toEqual([{ path, name: file.study.name, names: { tr: trName }, openedAt: expect.any(String) }]);
  });

  it('read a list written before names were kept', async () => {
    const list = join(dir, 'recent.json');
    await writeFile(list, JSON.stringify([{ path: '/a.servelab', name: 'A', openedAt: '2026-01-01T00:00:00.000Z' }]));
    expect(await new RecentProjects(list).list()).toEqual([{ path: '/a.servelab', name: 'A', openedAt: '2026-01-01T00:00:00.000Z' }]);
  });
});
