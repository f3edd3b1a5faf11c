import { createHash } from 'node:crypto';
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { StudyDefinition } from '../../shared/study/study';
import { writeFileAtomic } from '../util/atomic-write';

/**
 * A project file is executable configuration: it can turn on `trustRemoteCode` (the model repo's Python runs on
 * the box), set environment variables and extra engine arguments, and point benchmarks at files on the box. A project
 * opened from elsewhere therefore asks once, naming what it will run, before its first run. "Once" is remembered here,
 * in the data folder (never in the project file, which is what is being trusted): per project realpath, the hash of
 * what it runs, so an edit to those settings asks again. Projects this user creates or saves are trusted as written.
 */

/**
 * What a study runs beyond the model and the typed engine knobs, one line each, in the order of the definition. Values
 * come from a file someone else wrote, so each is shown JSON-quoted: a control character or line break in one cannot
 * redraw or fake lines of the list the user is asked to accept.
 */
export function whatItRuns(study: StudyDefinition): string[] {
  const lines: string[] = [];
  const models = new Set<string>([study.model.id, ...study.model.variants.map((v) => v.model)]);
  let remoteCode = false;
  const config = (
    where: string,
    c: { trustRemoteCode?: boolean | undefined; env?: Record<string, unknown> | undefined; extraArgs?: readonly string[] | undefined; speculative?: { draftModel?: string | undefined } | undefined } | undefined,
  ) => {
    if (!c) return;
    if (c.speculative?.draftModel !== undefined) models.add(c.speculative.draftModel);
    if (c.trustRemoteCode === true) {
      remoteCode = true;
      lines.push(`${where}: trust remote code (runs the model repository's own Python code on the box)`);
    }
    for (const [name, value] of Object.entries(c.env ?? {})) {
      lines.push(`${where}: env ${name}=${typeof value === 'string' ? JSON.stringify(value) : `(secret ${JSON.stringify((value as { secretRef?: string }).secretRef ?? '?')})`}`);
    }
    if (c.extraArgs && c.extraArgs.length > 0) lines.push(`${where}: extra arguments ${c.extraArgs.map((a) => JSON.stringify(a)).join(' ')}`);
  };
  for (const e of study.engines) config(`${e.engine} ${e.version}`, e.config);
  for (const s of study.stages) for (const c of s.candidates) config(`stage ${s.id}, candidate ${c.id}`, c.config);
  for (const w of [study.workloads.primary, ...study.workloads.generalisation]) {
    const path = 'path' in w.dataset ? w.dataset.path : undefined;
    if (path !== undefined) lines.push(`workload ${w.id}: dataset file ${JSON.stringify(path)} on the box`);
  }
  // Whose code trusting remote code runs: another repository here is another thing to accept.
  if (remoteCode) lines.push(`models whose code may run: ${[...models].map((m) => JSON.stringify(m)).join(', ')}`);
  return lines;
}

export function runsHash(lines: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(lines)).digest('hex');
}

export interface TrustCheck {
  /** Nothing to confirm, or confirmed before for exactly these settings. */
  trusted: boolean;
  /** What the project will run (empty when it sets none of it). */
  runs: string[];
  /** Names this confirmation: `trust(path, hash)` records it. */
  hash: string;
}

interface TrustFile {
  version: 1;
  /** Project realpath → hash of what it runs, as last confirmed or written by this user. */
  projects: Record<string, string>;
}

export class ProjectTrust {
  private readonly file: string;

  constructor(dataDir: string) {
    this.file = join(dataDir, 'trusted-projects.json');
  }

  private async read(): Promise<TrustFile> {
    try {
      const parsed = JSON.parse(await readFile(this.file, 'utf8')) as Partial<TrustFile>;
      if (parsed.version === 1 && parsed.projects && typeof parsed.projects === 'object') return { version: 1, projects: { ...parsed.projects } };
    } catch {
      // Missing or damaged: nothing is trusted, so the next run asks again.
    }
    return { version: 1, projects: {} };
  }

  private static async key(path: string): Promise<string> {
    return realpath(path).catch(() => path);
  }

  async check(path: string, study: StudyDefinition): Promise<TrustCheck> {
    const runs = whatItRuns(study);
    const hash = runsHash(runs);
    if (runs.length === 0) return { trusted: true, runs, hash };
    const file = await this.read();
    return { trusted: file.projects[await ProjectTrust.key(path)] === hash, runs, hash };
  }

  /** Records that the user accepts what the project at `path` runs (its current `hash`). */
  async trust(path: string, hash: string): Promise<void> {
    const file = await this.read();
    file.projects[await ProjectTrust.key(path)] = hash;
    await mkdir(dirname(this.file), { recursive: true });
    await writeFileAtomic(this.file, `${JSON.stringify(file, null, 1)}\n`, 0o600);
  }

  /** A project this user wrote (created, saved, copied): trusted as it now is. */
  async trustWritten(path: string, study: StudyDefinition): Promise<void> {
    const runs = whatItRuns(study);
    if (runs.length === 0) return;
    await this.trust(path, runsHash(runs));
  }
}

/** The refusal when a run would need the user's confirmation first: what it runs, and how to accept. */
export function untrustedMessage(check: TrustCheck, accept: string): string {
  return `This project was not written by you here, and it will run:\n${check.runs.map((l) => `  - ${l}`).join('\n')}\nCheck these settings, then ${accept}.`;
}
