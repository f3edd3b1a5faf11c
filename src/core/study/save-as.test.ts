// Save as through the studies handlers, on a real temporary folder: the project file and its data folder are copied,
// nothing existing is overwritten, a running study is refused, and the copy is a recent project.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '../dispatch/event-bus';
import { projectDataDir, StudyProject } from './project-store';
import { ProjectTrust } from './project-trust';
import { RecentProjects } from './recent-projects';
import { studyHandlers } from './study-handlers';
import type { StudyRunnerDeps } from './study-runner';
import { SMALL_STUDY as study } from '../../../tests/helpers/study-projects';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-save-as-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));


/** A runner whose hosts answer only when the test lets them (with a failure), so a run stays under way meanwhile. */
function heldRunner() {
  let release!: () => void;
  const held = new Promise<never>((_resolve, reject) => {
    release = () => reject(new Error('released by the test'));
  });
  held.catch(() => {});
  const deps: StudyRunnerDeps = { box: () => held, isDemo: () => true, hostLabel: (id) => id };
  return { deps, release };
}

function handlers(runner = heldRunner()) {
  const recent = new RecentProjects(join(dir, 'recent-projects.json'));
  const events = new EventBus();
  return { calls: studyHandlers({ events, runner: () => runner.deps, examplesDir: null, recent, trust: new ProjectTrust(join(dir, 'data')) }), recent, events, runner };
}

async function projectWithData(name: string): Promise<string> {
  const path = join(dir, `${name}.servelab`);
  const project = await StudyProject.create(path, study);
  await project.journal({ event: 'trial', id: 't1' });
  await mkdir(join(project.runsDir, 'run-1'), { recursive: true });
  await writeFile(join(project.runsDir, 'run-1', 'result.json'), '{"mean_e2el_ms": 812}\n');
  await mkdir(join(project.dataDir, 'logs'), { recursive: true });
  await writeFile(join(project.dataDir, 'logs', 'server.log'), 'ready\n');
  return path;
}

const exists = (path: string) => stat(path).then(() => true, () => false);

describe('studies:saveAs', () => {
  it('copies the project file and its data folder, adds the copy to recent projects, and leaves the original as it was', async () => {
    const { calls, recent } = handlers();
    const path = await projectWithData('a');
    const original = await readFile(path, 'utf8');
    const out = join(dir, 'copies', 'b.servelab');
    const file = await calls['studies:saveAs']({ path, out });
    expect(file.study.name).toBe(study.name);
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(JSON.parse(original));
    const copied = projectDataDir(out);
    expect(copied).toBe(join(dir, 'copies', 'b.servelab-data'));
    expect((await readdir(copied)).sort()).toEqual(['journal.jsonl', 'logs', 'runs']);
    expect(await readFile(join(copied, 'runs', 'run-1', 'result.json'), 'utf8')).toBe('{"mean_e2el_ms": 812}\n');
    expect(await readFile(join(copied, 'logs', 'server.log'), 'utf8')).toBe('ready\n');
    expect(await readFile(join(copied, 'journal.jsonl'), 'utf8')).toBe(await readFile(join(projectDataDir(path), 'journal.jsonl'), 'utf8'));
    expect(await readFile(path, 'utf8')).toBe(original);
    expect((await recent.list())[0]).toMatchObject({ path: out, name: study.name });
    // The copy is a project of its own: it opens, and no temporary file was left beside it.
    expect((await calls['studies:open']({ path: out })).study.name).toBe(study.name);
    expect((await readdir(join(dir, 'copies'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('copies a project that has no data folder yet', async () => {
    const { calls } = handlers();
    const path = join(dir, 'fresh.servelab');
    await StudyProject.create(path, study);
    const out = join(dir, 'fresh-copy.servelab');
    await calls['studies:saveAs']({ path, out });
    expect(await exists(out)).toBe(true);
    expect(await exists(projectDataDir(out))).toBe(false);
  });

  it('refuses to overwrite an existing file or data folder, and to copy onto itself', async () => {
    const { calls } = handlers();
    const path = await projectWithData('a');
    const taken = join(dir, 'taken.servelab');
    await writeFile(taken, 'mine');
    await expect(calls['studies:saveAs']({ path, out: taken })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/already exists/) });
    expect(await readFile(taken, 'utf8')).toBe('mine');
    await mkdir(join(dir, 'folder-only.servelab-data'));
    await expect(calls['studies:saveAs']({ path, out: join(dir, 'folder-only.servelab') })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(await exists(join(dir, 'folder-only.servelab'))).toBe(false);
    await expect(calls['studies:saveAs']({ path, out: path })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(calls['studies:saveAs']({ path: join(dir, 'missing.servelab'), out: join(dir, 'x.servelab') })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses to copy while the study runs, and copies once it ended', async () => {
    const runner = heldRunner();
    const { calls, events } = handlers(runner);
    const path = await projectWithData('a');
    const ended = new Promise<void>((resolve) =>
      events.subscribe((message) => {
        if (message.name === 'studies:phase' && message.payload.text.startsWith('The study stopped')) resolve();
        if (message.name === 'studies:state' && message.payload.state.status !== 'running') resolve();
      }),
    );
    expect(await calls['studies:run']({ path })).toEqual({ started: true });
    const out = join(dir, 'during.servelab');
    await expect(calls['studies:saveAs']({ path, out })).rejects.toMatchObject({ code: 'BAD_INPUT', message: expect.stringMatching(/running/) });
    expect(await exists(out)).toBe(false);
    runner.release();
    await ended;
    await expect.poll(async () => calls['studies:saveAs']({ path, out }).then(() => true, () => false)).toBe(true);
    expect(await exists(out)).toBe(true);
  });
});
