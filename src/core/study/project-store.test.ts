import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectDataDir, StudyProject } from './project-store';
import { ProjectFileSchema } from '../../shared/study/study';
import { configFileOf, type ConfigFile } from '../../shared/engines/config-files';
import { SMALL_STUDY as study } from '../../../tests/helpers/study-projects';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-project-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));


describe('StudyProject', () => {
  it('creates a project, refuses to overwrite it, and reopens the same content', async () => {
    const path = join(dir, 'a.servelab');
    const created = await StudyProject.create(path, study);
    expect(created.file.state).toEqual({ status: 'draft', trials: [], decisions: [] });
    await expect(StudyProject.create(path, study)).rejects.toThrow(/already exists/);
    const reopened = await StudyProject.open(path);
    expect(reopened.file).toEqual(created.file);
    expect(projectDataDir(path)).toBe(join(dir, 'a.servelab-data'));
  });

  it('keeps the previous version as .bak on every save, and journals events line by line', async () => {
    const path = join(dir, 'b.servelab');
    const project = await StudyProject.create(path, study);
    const before = await readFile(path, 'utf8');
    await project.save({ ...project.file.state, status: 'running' });
    expect(await readFile(`${path}.bak`, 'utf8')).toBe(before);
    expect(ProjectFileSchema.parse(JSON.parse(await readFile(path, 'utf8'))).state.status).toBe('running');
    await project.journal({ event: 'trial', id: 't1' });
    await project.journal({ event: 'trial', id: 't2' });
    const lines = (await readFile(project.journalPath, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { id: string; at: string });
    expect(lines.map((l) => l.id)).toEqual(['t1', 't2']);
    expect(lines[0]!.at).toMatch(/^\d{4}-/);
    // Read back, past the half line a run killed while writing leaves.
    await appendFile(project.journalPath, '{"event":"trial","id":"t3"');
    expect((await project.readJournal()).map((e) => e.id)).toEqual(['t1', 't2']);
    expect(await (await StudyProject.create(join(dir, 'fresh.servelab'), study)).readJournal()).toEqual([]);
  });

  it('refuses a damaged file with the field named, and touches nothing', async () => {
    const path = join(dir, 'c.servelab');
    await StudyProject.create(path, study);
    const damaged = (await readFile(path, 'utf8')).replace('"kind": "latency"', '"kind": "fastest"');
    await writeFile(path, damaged);
    await expect(StudyProject.open(path)).rejects.toThrow(/is damaged: study\.goal\.kind/);
    expect(await readFile(path, 'utf8')).toBe(damaged);
    await writeFile(path, '{"schemaVersion": 1, "study": ');
    await expect(StudyProject.open(path)).rejects.toThrow(/is not valid JSON/);
  });

  it('refuses a project from a newer version, naming it', async () => {
    const path = join(dir, 'd.servelab');
    await writeFile(path, JSON.stringify({ schemaVersion: 7, study: {}, state: {} }));
    await expect(StudyProject.open(path)).rejects.toThrow(/newer Servelab \(schemaVersion 7\); this version reads up to 3/);
  });

  it('reads a version-1 project as the current version (no published references), keeping the old file as .v1.bak', async () => {
    const path = join(dir, 'v1.servelab');
    const v1 = `${JSON.stringify({ schemaVersion: 1, study: ProjectFileSchema.shape.study.parse(study), state: { status: 'draft', trials: [], decisions: [] } }, null, 1)}\n`;
    await writeFile(path, v1);
    const opened = await StudyProject.open(path);
    expect(opened.file.schemaVersion).toBe(3);
    expect(opened.file.state.references).toBeUndefined();
    expect(await readFile(`${path}.v1.bak`, 'utf8')).toBe(v1);
    expect(JSON.parse(await readFile(path, 'utf8')).schemaVersion).toBe(3);
  });

  it('reads a version-2 project unchanged as version 3, keeping the old file as .v2.bak', async () => {
    const path = join(dir, 'v2.servelab');
    const parsed = ProjectFileSchema.shape.study.parse(study);
    const v2 = `${JSON.stringify({ schemaVersion: 2, study: parsed, state: { status: 'draft', trials: [], decisions: [] } }, null, 1)}\n`;
    await writeFile(path, v2);
    const opened = await StudyProject.open(path);
    expect(opened.file).toEqual({ schemaVersion: 3, study: parsed, state: { status: 'draft', trials: [], decisions: [] } });
    expect(await readFile(`${path}.v2.bak`, 'utf8')).toBe(v2);
  });

  it('keeps published references and the guide reading, and refuses one that is not labelled published, naming the field', async () => {
    const path = join(dir, 'refs.servelab');
    const reference = {
      id: 'published-l114',
      kind: 'published' as const,
      source: { file: 'guide.txt', title: 'A guide', line: 114 },
      stageId: 'engine',
      candidateId: 'vllm-0.11.0',
      workloadId: 'sharegpt-c4',
      label: 'vLLM',
      status: 'ok' as const,
      result: { schemaVersion: 1 as const, metrics: { total_token_throughput: 1020.76 }, extra: {} },
    };
    const guide = { file: 'guide.txt', title: 'A guide', problems: [{ line: 262, kind: 'wrong' as const, message: 'serves another model' }] };
    await StudyProject.create(path, study, { references: [reference], guide });
    const reopened = await StudyProject.open(path);
    expect(reopened.file.state.references).toEqual([reference]);
    expect(reopened.file.state.guide).toEqual(guide);
    const text = (await readFile(path, 'utf8')).replace('"kind": "published"', '"kind": "measured"');
    await writeFile(path, text);
    await expect(StudyProject.open(path)).rejects.toThrow(/state\.references\.0\.kind/);
  });

  it('keeps a config file whole, and refuses one whose text no longer matches its checksum, naming the field', async () => {
    const path = join(dir, 'f.servelab');
    const template = configFileOf('tool-chat.jinja', '{{ messages }}\n') as ConfigFile;
    await StudyProject.create(path, { ...study, engines: [{ ...study.engines[0]!, config: { chatTemplate: { file: 'tool-chat.jinja' } } }], files: [template] });
    expect((await StudyProject.open(path)).file.study.files).toEqual([template]);
    const edited = (await readFile(path, 'utf8')).replace('{{ messages }}', '{{ messages | tojson }}');
    await writeFile(path, edited);
    await expect(StudyProject.open(path)).rejects.toThrow(/is damaged: study\.files\.0\.(size|sha256)/);
  });

  it('refuses an invalid definition at creation with the field named', async () => {
    await expect(StudyProject.create(join(dir, 'e.servelab'), { ...study, engines: [] })).rejects.toThrow(/engines/);
  });
});
