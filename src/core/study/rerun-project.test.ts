import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallOutput } from '../../shared/contract';
import { createDispatcher, type CallHandlers } from '../dispatch/dispatcher';
import { EventBus } from '../dispatch/event-bus';
import { RecentProjects } from './recent-projects';
import { ProjectTrust } from './project-trust';
import { studyHandlers } from './study-handlers';
import { ProjectFileSchema, type ProjectFile } from '../../shared/study/study';
import { compareStudies } from '../../shared/study/study-diff';
import { EXAMPLES, exampleStudy } from '../../../tests/helpers/study-runs';
import { virtualProject } from '../../../tests/helpers/virtual-study';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-rerun-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// A finished study: the latency example run in virtual time (tests/helpers/virtual-study.ts), written as a project.
async function finishedProject(path: string): Promise<ProjectFile> {
  const file = virtualProject(exampleStudy(EXAMPLES.latency), { seed: 1 });
  await writeFile(path, `${JSON.stringify(file, null, 1)}\n`);
  return file;
}

function dispatcher() {
  const runner = () => ({ box: () => new Promise<never>(() => {}), isDemo: () => true, hostLabel: (id: string) => id });
  const recent = new RecentProjects(join(dir, 'recent.json'));
  const handlers = studyHandlers({ events: new EventBus(), runner, examplesDir: null, recent, trust: new ProjectTrust(join(dir, 'data')) });
  return { dispatch: createDispatcher(handlers as unknown as CallHandlers), recent };
}

describe('studies:rerun', () => {
  it('writes a valid new project at the new versions that points back at the original, which studies:rerunOriginal reads back', async () => {
    const original = join(dir, 'latency.servelab');
    const before = await finishedProject(original);
    const out = join(dir, 'latency-0.12.servelab');
    const { dispatch, recent } = dispatcher();
    const made = await dispatch('studies:rerun', { path: original, out, engineVersions: { vllm: '0.12.0' } });
    if (!made.ok) throw new Error(made.error.message);
    const data = made.data as CallOutput<'studies:rerun'>;
    expect(data).toMatchObject({ path: out, lost: [], untabled: [] });
    const written = ProjectFileSchema.parse(JSON.parse(await readFile(out, 'utf8')));
    expect(written).toEqual(data.project);
    expect(written.state).toEqual({ status: 'draft', trials: [], decisions: [] });
    expect(written.study.engines.map((e) => `${e.engine} ${e.version}`)).toEqual(['vllm 0.12.0', 'sglang 0.5.3.post3', 'trtllm 1.2.0rc1']);
    expect(written.study.rerunOf?.path).toBe(original);
    expect((await recent.list()).map((r) => r.path)).toContain(out);
    // The original is only read.
    expect(ProjectFileSchema.parse(JSON.parse(await readFile(original, 'utf8')))).toEqual(before);

    const back = await dispatch('studies:rerunOriginal', { path: out });
    if (!back.ok) throw new Error(back.error.message);
    const read = back.data as CallOutput<'studies:rerunOriginal'>;
    expect(read.path).toBe(original);
    expect(compareStudies(read.project, written).onlyOriginal.length).toBeGreaterThan(0);
  });

  it('refuses an existing file, an unknown engine version field, and a study that has not finished', async () => {
    const original = join(dir, 'latency.servelab');
    await finishedProject(original);
    const { dispatch } = dispatcher();
    const taken = join(dir, 'taken.servelab');
    await writeFile(taken, 'x');
    const overwrite = await dispatch('studies:rerun', { path: original, out: taken, engineVersions: { vllm: '0.12.0' } });
    expect(overwrite.ok ? null : overwrite.error.code).toBe('BAD_INPUT');
    expect(await readFile(taken, 'utf8')).toBe('x');

    const badEngine = await dispatch('studies:rerun', { path: original, out: join(dir, 'n.servelab'), engineVersions: { ollama: '1.0' } });
    expect(badEngine.ok ? null : badEngine.error.issues?.[0]?.path).toMatch(/^engineVersions/);

    const rerun = await dispatch('studies:rerun', { path: original, out: join(dir, 'r.servelab'), engineVersions: {} });
    if (!rerun.ok) throw new Error(rerun.error.message);
    const again = await dispatch('studies:rerun', { path: join(dir, 'r.servelab'), out: join(dir, 'rr.servelab'), engineVersions: {} });
    expect(again.ok ? null : again.error).toMatchObject({ code: 'BAD_INPUT', message: expect.stringContaining('Only a finished study can be re-run') });
  });

  it('says where the original was when it is gone', async () => {
    const original = join(dir, 'latency.servelab');
    await finishedProject(original);
    const { dispatch } = dispatcher();
    const out = join(dir, 'r.servelab');
    expect((await dispatch('studies:rerun', { path: original, out, engineVersions: {} })).ok).toBe(true);
    await rm(original);
    const back = await dispatch('studies:rerunOriginal', { path: out });
    expect(back.ok ? null : back.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(original) });
  });

  it('finds the original beside the re-run when both were moved together', async () => {
    const original = join(dir, 'latency.servelab');
    await finishedProject(original);
    const { dispatch } = dispatcher();
    expect((await dispatch('studies:rerun', { path: original, out: join(dir, 'r.servelab'), engineVersions: {} })).ok).toBe(true);
    const moved = join(dir, 'moved');
    await mkdir(moved);
    await rename(original, join(moved, 'latency.servelab'));
    await rename(join(dir, 'r.servelab'), join(moved, 'r.servelab'));
    const back = await dispatch('studies:rerunOriginal', { path: join(moved, 'r.servelab') });
    expect(back.ok ? (back.data as CallOutput<'studies:rerunOriginal'>).path : back.error.message).toBe(join(moved, 'latency.servelab'));
  });

  it('reads a relative rerunOf.path from the re-run\'s folder, and does not take another study at the recorded path', async () => {
    const original = join(dir, 'originals', 'latency.servelab');
    await mkdir(join(dir, 'originals'));
    await finishedProject(original);
    const { dispatch } = dispatcher();
    const out = join(dir, 'r.servelab');
    expect((await dispatch('studies:rerun', { path: original, out, engineVersions: {} })).ok).toBe(true);
    // Marked edge case: the provenance edited by hand to a path relative to the re-run.
    const written = JSON.parse(await readFile(out, 'utf8')) as ProjectFile;
    await writeFile(out, JSON.stringify({ ...written, study: { ...written.study, rerunOf: { ...written.study.rerunOf, path: join('originals', 'latency.servelab') } } }));
    const back = await dispatch('studies:rerunOriginal', { path: out });
    expect(back.ok ? (back.data as CallOutput<'studies:rerunOriginal'>).path : back.error.message).toBe(original);

    // Another study written over the original's name is not the original.
    const other = JSON.parse(await readFile(original, 'utf8')) as ProjectFile;
    await writeFile(original, JSON.stringify({ ...other, study: { ...other.study, name: 'Another study' } }));
    const refused = await dispatch('studies:rerunOriginal', { path: out });
    expect(refused.ok ? null : refused.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(`${original} holds "Another study"`) });
  });

  it('keeps the provenance when the re-run is edited before it runs (the wizard saves a definition without it)', async () => {
    const original = join(dir, 'latency.servelab');
    await finishedProject(original);
    const { dispatch } = dispatcher();
    const out = join(dir, 'r.servelab');
    const made = await dispatch('studies:rerun', { path: original, out, engineVersions: { vllm: '0.12.0' } });
    if (!made.ok) throw new Error(made.error.message);
    const { rerunOf, ...edited } = (made.data as CallOutput<'studies:rerun'>).project.study;
    const saved = await dispatch('studies:save', { path: out, study: { ...edited, repeats: 2 } });
    if (!saved.ok) throw new Error(saved.error.message);
    const written = ProjectFileSchema.parse(JSON.parse(await readFile(out, 'utf8')));
    expect(written.study.repeats).toBe(2);
    expect(written.study.rerunOf).toEqual(rerunOf);
  });
});

describe('studies:report and studies:export of a re-run', () => {
  it('compare it with the original they read, and say so in the report when the original is gone', async () => {
    const original = join(dir, 'latency.servelab');
    await finishedProject(original);
    const { dispatch } = dispatcher();
    const out = join(dir, 'latency-0.12.servelab');
    const made = await dispatch('studies:rerun', { path: original, out, engineVersions: { vllm: '0.12.0' } });
    if (!made.ok) throw new Error(made.error.message);
    // The re-run run to the end in virtual time, as the runner would record it.
    const study = (made.data as CallOutput<'studies:rerun'>).project.study;
    await writeFile(out, `${JSON.stringify(virtualProject(study, { seed: 2 }), null, 1)}\n`);

    const md = await dispatch('studies:report', { path: out, format: 'md', lang: 'tr' });
    if (!md.ok) throw new Error(md.error.message);
    const text = (md.data as CallOutput<'studies:report'>).text;
    expect(text).toContain('## Özgün çalışmaya göre');
    expect(text).toContain('- vLLM: 0.11.0 → 0.12.0');
    expect(text).toMatch(/\| Yapılandırma \| İş yükü \|/);

    const exported = join(dir, 'report.csv');
    expect(await dispatch('studies:export', { path: out, format: 'csv', out: exported })).toEqual({ ok: true, data: { path: exported } });
    expect((await readFile(exported, 'utf8')).split('\r\n')[0]).toMatch(/,verdict vs original$/);

    await rm(original);
    const gone = await dispatch('studies:report', { path: out, format: 'html' });
    if (!gone.ok) throw new Error(gone.error.message);
    expect((gone.data as CallOutput<'studies:report'>).text).toContain(`could not be read at <code>${original}</code>`);
  });
});
