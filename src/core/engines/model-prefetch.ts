import { ServelabError } from '../../shared/contract';
import { classifyLog, getAdapter } from '../../shared/engines';
import { HF_REPO_ID, ModelRevisionSchema, isBoxPath } from '../../shared/model/model-prefetch';
import { shellQuote } from '../../shared/shell-quote';
import { TextTail } from '../../shared/text-tail';
import { boxFacts, checkEngineVersion, inLoginEnv, MARKER_FILE, type EngineBox } from './engine-box';
import { EngineInstaller } from './engine-installer';

export interface PrefetchRequest {
  engine: string;
  version: string;
  /** A Hugging Face repo id, or a path on the box (then nothing is downloaded). */
  model: string;
  /** Branch, tag or commit; default: the repo's default branch. */
  revision?: string;
  /** Keychain reference of the Hugging Face token; without it the download is anonymous. */
  hfTokenRef?: string;
  resolveSecret?: (secretRef: string) => Promise<string | null>;
  onLog?: (text: string) => void;
  onProgress?: (progress: PrefetchProgress) => void;
  /** Called once the remote job runs, with its id. */
  onJob?: (jobId: string) => void;
}

export interface PrefetchProgress {
  done: number;
  total: number;
  line?: string;
}

export interface PrefetchResult {
  ok: true;
  /** True when nothing had to be fetched: a path on the box, or every file already in the cache. */
  skipped: boolean;
  /** The snapshot folder (or the given path) the engine will read. */
  localPath: string;
  /** The commit the files belong to; null for a path on the box. */
  revision: string | null;
  files: number;
  downloaded: number;
  message: string;
}

/** How much of the end of a prefetch job's log is kept to explain a failure. */
export const PREFETCH_LOG_TAIL_CHARS = 256 * 1024;
const MAX_LINE_CHARS = 64 * 1024;

/** Marks the script for readers of the command (and for the simulated box, which recognises it by this line). */
export const PREFETCH_SCRIPT_MARKER = '# servelab-prefetch';
const PROGRESS_LINE = /^SERVELAB_PREFETCH (\d+)\/(\d+)(?: (.*))?$/;
const DONE_LINE = /^SERVELAB_PREFETCH_DONE (\{.*\})$/m;

/**
 * The Python run by the engine environment's interpreter. The repo id and revision arrive as argv (never spliced
 * into the code); the token, when there is one, only as HF_TOKEN in the environment, which huggingface_hub reads.
 * Files are fetched one by one so each can be reported; those already cached are not fetched again. Downloads name
 * the requested revision (not the commit) so the cache also records the branch, which an offline launch resolves.
 */
export function prefetchScript(): string {
  return `${PREFETCH_SCRIPT_MARKER}
import json, sys
from huggingface_hub import HfApi, hf_hub_download, try_to_load_from_cache
repo = sys.argv[1]
rev = sys.argv[2] if len(sys.argv) > 2 else None
info = HfApi().model_info(repo, revision=rev)
sha = info.sha
files = sorted(s.rfilename for s in (info.siblings or []))
total = len(files)
print("SERVELAB_PREFETCH 0/%d %s@%s" % (total, repo, sha), flush=True)
root = None
fetched = 0
for i, name in enumerate(files, 1):
    cached = try_to_load_from_cache(repo, name, revision=sha)
    hit = isinstance(cached, str)
    path = cached if hit else hf_hub_download(repo, name, revision=rev)
    fetched += 0 if hit else 1
    root = path[: len(path) - len(name)].rstrip("/")
    print("SERVELAB_PREFETCH %d/%d %s%s" % (i, total, name, " (cached)" if hit else ""), flush=True)
print("SERVELAB_PREFETCH_DONE " + json.dumps({"path": root, "revision": sha, "files": total, "downloaded": fetched}), flush=True)
`;
}

/** argv after the interpreter: `-c <script> <repo> [<revision>]`. */
export function prefetchArgv(python: string, model: string, revision?: string): string[] {
  return [python, '-c', prefetchScript(), model, ...(revision !== undefined ? [revision] : [])];
}

/** Reads one `SERVELAB_PREFETCH i/n file` line; null for anything else. */
export function parseProgressLine(line: string): PrefetchProgress | null {
  const m = PROGRESS_LINE.exec(line.trim());
  if (!m) return null;
  return { done: Number(m[1]), total: Number(m[2]), ...(m[3] ? { line: m[3] } : {}) };
}

export function parseDoneLine(log: string): { path: string | null; revision: string; files: number; downloaded: number } | null {
  const m = DONE_LINE.exec(log);
  if (!m?.[1]) return null;
  try {
    const parsed = JSON.parse(m[1]) as { path?: unknown; revision?: unknown; files?: unknown; downloaded?: unknown };
    if (typeof parsed.revision !== 'string' || typeof parsed.files !== 'number' || typeof parsed.downloaded !== 'number') return null;
    return { path: typeof parsed.path === 'string' ? parsed.path : null, revision: parsed.revision, files: parsed.files, downloaded: parsed.downloaded };
  } catch {
    return null;
  }
}

/**
 * Downloads `model` into the box's Hugging Face cache with the engine environment's own huggingface_hub, as a
 * detached job, so a later timed launch reads weights from disk. A path on the box is checked and skipped.
 * Throws a classified REMOTE_COMMAND_FAILED (gated model, unknown repo, …) when the download fails.
 */
export async function prefetchModel(box: EngineBox, request: PrefetchRequest): Promise<PrefetchResult> {
  const engine = checkEngineVersion(request.engine, request.version);
  const { model } = request;
  if (model.length === 0 || model.length > 4096 || /[\0\r\n]/.test(model) || model.startsWith('-')) {
    throw new ServelabError('BAD_INPUT', 'The model must be a Hugging Face repo id or a path on the box.', { issues: [{ path: 'model', message: 'is not a model id or path' }] });
  }
  const facts = await boxFacts(box);

  if (isBoxPath(model)) {
    const path = model.startsWith('~/') ? `${facts.home.replace(/\/+$/, '')}/${model.slice(2)}` : model;
    const found = await box.run(`test -e ${shellQuote(path)} && echo present\n`, { timeoutSeconds: 30 });
    if (!/^present$/m.test(found.stdout)) throw new ServelabError('NOT_FOUND', `${model} does not exist on the box: give an existing folder or a Hugging Face repo id.`);
    return { ok: true, skipped: true, localPath: path, revision: null, files: 0, downloaded: 0, message: `${model} is a path on the box; nothing to download.` };
  }
  if (!HF_REPO_ID.test(model)) {
    throw new ServelabError('BAD_INPUT', `"${model}" is not a Hugging Face repo id (org/name) or a path on the box (/…, ~/…, ./…).`, {
      issues: [{ path: 'model', message: 'is not a repo id or a path' }],
    });
  }
  if (request.revision !== undefined) {
    const check = ModelRevisionSchema.safeParse(request.revision);
    if (!check.success) throw new ServelabError('BAD_INPUT', `Revision "${request.revision}" ${check.error.issues[0]?.message ?? 'is not valid'}.`, { issues: [{ path: 'revision', message: 'is not valid' }] });
  }

  const secretEnv: Record<string, string> = {};
  if (request.hfTokenRef !== undefined) {
    const token = request.resolveSecret ? await request.resolveSecret(request.hfTokenRef) : null;
    if (token === null) throw new ServelabError('NOT_FOUND', `The secret "${request.hfTokenRef}" is not in the keychain: store your Hugging Face token under that name first.`);
    secretEnv.HF_TOKEN = token;
  }

  const envDir = await new EngineInstaller(box).envDir(engine, request.version);
  const marker = await box.run(`test -f ${shellQuote(`${envDir}/${MARKER_FILE}`)} && echo present\n`, { timeoutSeconds: 30 });
  if (!/^present$/m.test(marker.stdout)) {
    throw new ServelabError('NOT_FOUND', `${getAdapter(engine).displayName} ${request.version} is not installed on this box (no ${envDir}); install it first.`);
  }

  const handle = await box.jobs().start({
    command: inLoginEnv(facts, prefetchArgv(`${envDir}/bin/python`, model, request.revision)),
    // Progress comes from the script's own lines; tqdm bars would only fill the log.
    env: { HF_HUB_DISABLE_PROGRESS_BARS: '1' },
    ...(Object.keys(secretEnv).length > 0 ? { secretEnv } : {}),
    label: `prefetch ${model}`,
  });
  request.onJob?.(handle.id);

  // Only the log's tail is kept (the failure is read from it) and the done line; the job's whole log stays on the box.
  const tail = new TextTail(PREFETCH_LOG_TAIL_CHARS);
  let doneLine = '';
  let partial = '';
  const onLine = (line: string) => {
    const progress = parseProgressLine(line);
    if (progress) request.onProgress?.(progress);
    else if (line.startsWith('SERVELAB_PREFETCH_DONE ')) doneLine = line;
  };
  const code = await handle.stream((text) => {
    tail.push(text);
    request.onLog?.(text);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    // A line this long is neither progress nor the done line: it is not kept whole either.
    if (partial.length > MAX_LINE_CHARS) partial = '';
    lines.forEach(onLine);
  });
  onLine(partial);

  const done = code === 0 ? parseDoneLine(doneLine) : null;
  if (!done) {
    const log = tail.text;
    const verdict = classifyLog(log, { engine, exited: true });
    const cause = verdict.class === 'unknown' ? lastLines(log, 3) || `exit status ${code}` : `${verdict.evidence}. ${verdict.hint}`;
    throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not download ${model}: ${cause}`, {
      details: { jobId: handle.id, classification: verdict.class, evidence: verdict.evidence, hint: verdict.hint },
    });
  }
  const localPath = done.path ?? '';
  const skipped = done.downloaded === 0;
  const message = skipped
    ? `${model}@${done.revision.slice(0, 12)}: all ${done.files} files already in the cache (${localPath}).`
    : `${model}@${done.revision.slice(0, 12)}: downloaded ${done.downloaded} of ${done.files} files into ${localPath}.`;
  return { ok: true, skipped, localPath, revision: done.revision, files: done.files, downloaded: done.downloaded, message };
}

function lastLines(text: string, count: number): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-count)
    .join(' | ');
}
