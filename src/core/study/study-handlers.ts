import { readdir, readFile, realpath } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ServelabError } from '../../shared/contract';
import type { CallHandlers } from '../dispatch/dispatcher';
import type { EventBus } from '../dispatch/event-bus';
import { ProjectFileSchema, type ProjectFile } from '../../shared/study/study';
import { renderCsv, renderHtml, renderMarkdown, type ReportInputs, type ReportLang } from '../../shared/study/report';
import { writeFileAtomic } from '../util/atomic-write';
import { readVersionedFile } from '../util/versioned-file';
import { PROJECT_FILE_SPEC, projectDataDir, StudyProject } from './project-store';
import { readTail, TrialLogFiles } from './trial-log-files';
import { readGpuMemorySamples } from './gpu-memory-file';
import { saveProjectAs } from './save-as';
import { reportInputs, rerunOriginal, rerunProject } from './rerun-project';
import { resolveExportTarget, type SaveGrants } from './export-target';
import { previewPlan, runStudy, type StudyRunnerDeps } from './study-runner';
import type { RecentProjects } from './recent-projects';
import { untrustedMessage, type ProjectTrust } from './project-trust';
import { openGuideAsStudy } from './guide-file';
import type { HeldLock } from '../util/lock-file';
import { translatedNames } from '../../shared/study/study-text';
import { PROJECT_SUFFIX } from '../../shared/project-document';

export interface StudyHandlerDeps {
  events: EventBus;
  runner: () => StudyRunnerDeps;
  examplesDir: string | null;
  recent: RecentProjects;
  /** Which project files' remote code, env, extra args and dataset files the user has accepted. */
  trust: ProjectTrust;
  /** Where `studies:export` may write besides the project's folder and a file picked in the save dialog. */
  exportsDir?: string;
  saveGrants?: SaveGrants;
}

type StudyCalls = Pick<
  CallHandlers,
  | 'studies:create'
  | 'studies:open'
  | 'studies:save'
  | 'studies:plan'
  | 'studies:run'
  | 'studies:trustCheck'
  | 'studies:cancel'
  | 'studies:report'
  | 'studies:export'
  | 'studies:examples'
  | 'studies:fromExample'
  | 'studies:fromGuide'
  | 'studies:recent'
  | 'studies:trialLogs'
  | 'studies:gpuMemory'
  | 'studies:saveAs'
  | 'studies:rerun'
  | 'studies:rerunOriginal'
>;

const RENDER: Record<'md' | 'html' | 'csv', (project: ProjectFile, lang: ReportLang, inputs: ReportInputs) => string> = {
  md: renderMarkdown,
  html: renderHtml,
  csv: (project, _lang, inputs) => renderCsv(project, inputs),
};

/**
 * Project files, plans, runs and reports. One run at a time per project: in this process by the project's real path
 * (a symlink names the same project), across processes by the project's run lock (`StudyProject.lockRun`).
 */
export function studyHandlers(deps: StudyHandlerDeps): StudyCalls {
  const running = new Map<string, AbortController>();
  const key = (path: string): Promise<string> => realpath(path).catch(() => path);

  async function opened(path: string): Promise<StudyProject> {
    const project = await StudyProject.open(path);
    await deps.recent.touch(path, project.file.study.name, translatedNames(project.file.study)).catch(() => {});
    return project;
  }

  return {
    'studies:create': async ({ path, study }) => {
      const project = await StudyProject.create(path, study);
      await deps.trust.trustWritten(path, project.file.study);
      await deps.recent.touch(path, study.name, translatedNames(study)).catch(() => {});
      return project.file;
    },

    'studies:open': async ({ path }) => (await opened(path)).file,

    'studies:save': async ({ path, study }) => {
      const project = await StudyProject.open(path);
      if (running.has(await key(path))) throw new ServelabError('BAD_INPUT', 'The study is running; cancel it before changing its definition.');
      await project.assertNotRunningElsewhere();
      if (project.file.state.trials.some((t) => t.status === 'done' || t.status === 'failed')) {
        throw new ServelabError('BAD_INPUT', 'This study has results: its definition can no longer change. Save it under a new name to run a changed study.');
      }
      // An edit saved here is the user's, but what the file ran before is only theirs if they had accepted it.
      const wasTrusted = (await deps.trust.check(path, project.file.study)).trusted;
      // The wizard edits what a study tries, not where it came from: a re-run edited before its run stays one.
      const rerunOf = study.rerunOf ?? project.file.study.rerunOf;
      const next = { ...project.file, study: rerunOf ? { ...study, rerunOf } : study };
      await writeFileAtomic(path, `${JSON.stringify(ProjectFileSchema.parse(next), null, 1)}\n`, 0o644);
      const saved = (await StudyProject.open(path)).file;
      if (wasTrusted) await deps.trust.trustWritten(path, saved.study);
      return saved;
    },

    'studies:saveAs': async ({ path, out }) => {
      // A running study is still writing its journal and runs: a copy now would catch it half-way.
      if (running.has(await key(path))) throw new ServelabError('BAD_INPUT', 'The study is running; wait for it to end or cancel it before saving a copy.');
      await (await StudyProject.open(path)).assertNotRunningElsewhere();
      const file = await saveProjectAs(path, out);
      // The copy runs what the original runs: trusted as far as the original was.
      if ((await deps.trust.check(path, file.study)).trusted) await deps.trust.trustWritten(out, file.study);
      await deps.recent.touch(out, file.study.name, translatedNames(file.study)).catch(() => {});
      return file;
    },

    'studies:rerun': async ({ path, out, engineVersions, hostId, name }) => {
      const made = await rerunProject(path, out, { engineVersions, ...(hostId !== undefined ? { hostId } : {}), ...(name !== undefined ? { name } : {}) }, deps.trust);
      await deps.recent.touch(out, made.project.study.name, translatedNames(made.project.study)).catch(() => {});
      return made;
    },

    'studies:rerunOriginal': async ({ path }) => rerunOriginal(path),

    'studies:plan': async ({ path }) => {
      const project = await opened(path);
      return previewPlan(project.file.study, deps.runner());
    },

    'studies:trustCheck': async ({ path }) => deps.trust.check(path, (await StudyProject.open(path)).file.study),

    'studies:run': async ({ path, trust }) => {
      const real = await key(path);
      if (running.has(real)) return { started: false };
      const controller = new AbortController();
      running.set(real, controller);
      let project: StudyProject;
      let runLock: HeldLock;
      try {
        project = await opened(real);
        const check = await deps.trust.check(real, project.file.study);
        if (!check.trusted) {
          if (trust !== check.hash) {
            throw new ServelabError('BAD_INPUT', untrustedMessage(check, 'confirm to run it'), { details: { untrusted: true, runs: check.runs, hash: check.hash } });
          }
          await deps.trust.trust(real, check.hash);
        }
        // Another process (servelab run, another window of the app) running it: refused, naming that process.
        runLock = await project.lockRun();
      } catch (error) {
        running.delete(real);
        throw error;
      }
      void runStudy(project, deps.runner(), {
        signal: controller.signal,
        runLock,
        onEvent: (event) => {
          if (event.kind === 'state') deps.events.emit('studies:state', { path, state: event.state });
          else if (event.kind === 'phase') deps.events.emit('studies:phase', { path, text: event.text });
          else if (event.kind === 'log') {
            deps.events.emit('studies:log', {
              path,
              text: event.text,
              source: event.source ?? 'study',
              ...(event.serverId !== undefined ? { serverId: event.serverId } : {}),
              ...(event.trialId !== undefined ? { trialId: event.trialId } : {}),
            });
          } else if (event.kind === 'gpu') deps.events.emit('studies:gpu', { path, ...event.sample });
          else if (event.kind === 'decision') deps.events.emit('studies:decision', { path, decision: event.decision });
        },
      })
        .catch((error: unknown) => deps.events.emit('studies:phase', { path, text: `The study stopped: ${(error as Error).message}` }))
        .finally(() => {
          running.delete(real);
          void runLock.release().catch(() => {
            // Left for the next run to take over: its holder (this process) is judged by pid and start time.
          });
        });
      return { started: true };
    },

    'studies:cancel': async ({ path }) => {
      const controller = running.get(await key(path));
      if (!controller) return { cancelled: false };
      controller.abort(new ServelabError('CANCELLED', 'Cancelled.'));
      return { cancelled: true };
    },

    'studies:report': async ({ path, format, lang }) => {
      const read = await readVersionedFile(path, PROJECT_FILE_SPEC);
      if (!read) throw new ServelabError('NOT_FOUND', `There is no project file ${path}.`);
      return { text: RENDER[format](read.data, lang ?? 'en', await reportInputs(path, read.data)) };
    },

    'studies:export': async ({ path, format, lang, out }) => {
      const target = await resolveExportTarget({ projectPath: path, format, out, exportsDir: deps.exportsDir ?? null, grants: deps.saveGrants ?? null });
      const read = await readVersionedFile(path, PROJECT_FILE_SPEC);
      if (!read) throw new ServelabError('NOT_FOUND', `There is no project file ${path}.`);
      await writeFileAtomic(target, RENDER[format](read.data, lang ?? 'en', await reportInputs(path, read.data)), 0o644);
      return { path: target };
    },

    'studies:examples': async () => {
      if (!deps.examplesDir) return [];
      const files = (await readdir(deps.examplesDir)).filter((f) => f.endsWith(PROJECT_SUFFIX)).sort();
      const out = [];
      for (const file of files) {
        const path = join(deps.examplesDir, file);
        try {
          const parsed = ProjectFileSchema.parse(JSON.parse(await readFile(path, 'utf8')));
          const translations = Object.fromEntries(
            Object.entries(parsed.study.translations ?? {}).map(([lang, text]) => [lang, { ...(text.name ? { name: text.name } : {}), ...(text.description ? { description: text.description } : {}) }]),
          );
          out.push({ name: parsed.study.name, path, description: parsed.study.description ?? '', translations });
        } catch {
          // A damaged example is not offered.
        }
      }
      return out;
    },

    'studies:fromExample': async ({ path, example }) => {
      if (!deps.examplesDir) throw new ServelabError('NOT_FOUND', 'This installation has no example studies.');
      const source = join(deps.examplesDir, basename(example));
      const read = await readVersionedFile(source, PROJECT_FILE_SPEC);
      if (!read) throw new ServelabError('NOT_FOUND', `There is no example ${basename(example)}.`);
      const project = await StudyProject.create(path, read.data.study);
      // The examples ship with the app: the user's copy is theirs.
      await deps.trust.trustWritten(path, project.file.study);
      await deps.recent.touch(path, read.data.study.name, translatedNames(read.data.study)).catch(() => {});
      return project.file;
    },

    'studies:fromGuide': async ({ path, guide, hostId }) => {
      // Not trusted as written: the guide is someone else's, so what it runs beyond the typed knobs is asked first.
      const opened = await openGuideAsStudy(guide, path, hostId ? { hostId } : {});
      await deps.recent.touch(path, opened.project.study.name, translatedNames(opened.project.study)).catch(() => {});
      return opened;
    },

    'studies:recent': async () => deps.recent.list(),

    'studies:trialLogs': async ({ path, trialId }) => {
      const read = await readVersionedFile(path, PROJECT_FILE_SPEC);
      if (!read) throw new ServelabError('NOT_FOUND', `There is no project file ${path}.`);
      const trial = read.data.state.trials.find((t) => t.id === trialId);
      if (!trial) throw new ServelabError('NOT_FOUND', `The study has no trial "${trialId}".`);
      const files = new TrialLogFiles(join(projectDataDir(path), 'logs'));
      const [server, bench] = await Promise.all([trial.serverId ? readTail(files.serverLogPath(trial.serverId)) : null, readTail(files.benchLogPath(trial.id))]);
      return { server: server?.text ?? null, bench: bench?.text ?? null, truncated: Boolean(server?.truncated || bench?.truncated) };
    },

    'studies:gpuMemory': async ({ path }) => readGpuMemorySamples(join(projectDataDir(path), 'gpu-memory.jsonl')),
  };
}
