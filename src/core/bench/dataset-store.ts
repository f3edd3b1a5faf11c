import { z } from 'zod';
import { ServelabError } from '../../shared/contract';
import type { BoxTransport, TransferProgress } from '../box/box-transport';
import type { EngineBox } from '../engines/engine-box';
import { boxFacts, inLoginEnv, runChecked } from '../engines/engine-box';
import { shellCommand, shellQuote } from '../../shared/shell-quote';
import { REMOTE_TREE_GUARD } from '../jobs/job-scripts';

/** Datasets live here on the box, relative to HOME, each next to a `<file>.servelab.json` record of its origin. */
export const DATASETS_ROOT = '.servelab/datasets';
export const SHAREGPT_FILE = 'ShareGPT_V3_unfiltered_cleaned_split.json';
/** The file vLLM's and SGLang's docs fetch (vllm/benchmarks/datasets.py, ShareGPTDataset); users may point elsewhere. */
export const SHAREGPT_URL = 'https://huggingface.co/datasets/anon8231489123/ShareGPT_Vicuna_unfiltered/resolve/main/ShareGPT_V3_unfiltered_cleaned_split.json';

export type DatasetBox = EngineBox & Pick<BoxTransport, 'upload'>;

export interface DatasetRecord {
  file: string;
  /** Absolute path on the box. */
  path: string;
  sha256: string;
  bytes: number;
  source: 'url' | 'upload' | 'synthetic';
  /** The URL, the local file's name, or how it was generated. */
  origin: string;
  storedAt: string;
}

export interface DatasetProgress {
  bytes: number;
  /** Unknown (0) when the server does not say. */
  total: number;
}

// A dataset file name: one path segment, nothing a shell or a path could read as syntax.
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** A `<file>.servelab.json` record as the box holds it: parsed, never cast. */
const DatasetRecordSchema = z
  .object({
    file: z.string().regex(FILE_NAME, 'is not a dataset file name'),
    path: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'is not a SHA-256'),
    bytes: z.number().int().nonnegative(),
    source: z.enum(['url', 'upload', 'synthetic']),
    origin: z.string(),
    storedAt: z.string(),
  })
  .refine((r) => r.path.endsWith(`/${DATASETS_ROOT}/${r.file}`), { message: `is not in ~/${DATASETS_ROOT}`, path: ['path'] });

/** The record's problems in words, or the record. */
function parseDatasetRecord(text: string): DatasetRecord | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'it is not valid JSON';
  }
  const parsed = DatasetRecordSchema.safeParse(json);
  return parsed.success ? parsed.data : parsed.error.issues.map((i) => `${i.path.join('.') || 'record'} ${i.message}`).join('; ');
}

function checkFileName(file: string): void {
  if (!FILE_NAME.test(file) || file.endsWith('.servelab.json') || file.endsWith('.part')) {
    throw new ServelabError('BAD_INPUT', `"${file}" is not a dataset file name (letters, digits and . _ -).`, { issues: [{ path: 'file', message: 'is not a file name' }] });
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A dataset URL the box may fetch: http(s) only, and plain http off the box only with the SHA-256 it must have. */
function checkUrl(url: string, sha256: string | undefined): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ServelabError('BAD_INPUT', `"${url}" is not a URL.`, { issues: [{ path: 'url', message: 'is not a URL' }] });
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ServelabError('BAD_INPUT', `Datasets are fetched over http or https, not ${parsed.protocol}`, { issues: [{ path: 'url', message: 'must be http(s)' }] });
  }
  // Anyone on the way can change what plain http carries, and every later run would trust the first download.
  if (parsed.protocol === 'http:' && !LOOPBACK_HOSTS.has(parsed.hostname) && sha256 === undefined) {
    throw new ServelabError('BAD_INPUT', `${url} is plain http, so the file could be changed on the way; use https, or give the SHA-256 the file must have.`, {
      issues: [{ path: 'url', message: 'plain http needs the expected SHA-256' }],
    });
  }
  if (sha256 !== undefined && !/^[0-9a-f]{64}$/.test(sha256)) {
    throw new ServelabError('BAD_INPUT', `"${sha256}" is not a SHA-256 (64 lowercase hex digits).`, { issues: [{ path: 'sha256', message: 'is not a SHA-256' }] });
  }
}

// Streams to a temporary file, hashing as it goes; prints progress lines and the digest for the caller to read.
const FETCH_SCRIPT = `import hashlib, os, sys, urllib.request
url, dest = sys.argv[1], sys.argv[2]
part = dest + '.part'
h = hashlib.sha256()
done = 0
req = urllib.request.Request(url, headers={'User-Agent': 'servelab'})
with urllib.request.urlopen(req, timeout=60) as r, open(part, 'wb') as out:
    total = int(r.headers.get('Content-Length') or 0)
    last = -1
    while True:
        chunk = r.read(1 << 20)
        if not chunk:
            break
        out.write(chunk)
        h.update(chunk)
        done += len(chunk)
        step = done * 100 // total if total else done >> 24
        if step != last:
            last = step
            print('SERVELAB_DATASET_PROGRESS %d %d' % (done, total), flush=True)
    out.flush()
    os.fsync(out.fileno())
if total and done != total:
    sys.exit('download cut short: %d of %d bytes' % (done, total))
os.replace(part, dest)
print('SERVELAB_DATASET_DONE %d %s' % (done, h.hexdigest()), flush=True)
`;

/**
 * The box's dataset cache (`~/.servelab/datasets/`): files fetched on the box from a URL, uploaded from this machine,
 * or generated (demo lab), each kept with its SHA-256 so that a changed or truncated file is caught before a launch.
 */
export class DatasetStore {
  constructor(private readonly box: DatasetBox) {}

  async dir(): Promise<string> {
    return `${(await boxFacts(this.box)).home.replace(/\/+$/, '')}/${DATASETS_ROOT}`;
  }

  async list(): Promise<DatasetRecord[]> {
    return (await this.records()).valid;
  }

  /** Every record in the cache: the valid ones, and by record file name what is wrong with the others. */
  private async records(): Promise<{ valid: DatasetRecord[]; damaged: Map<string, string> }> {
    const script = `for f in "$HOME"/${shellQuote(DATASETS_ROOT)}/*.servelab.json; do [ -f "$f" ] && { printf 'SERVELAB_DATASET %s\\t' "\${f##*/}"; tr -d '\\n' < "$f"; echo; }; done; :\n`;
    const result = await runChecked(this.box, 'list the datasets', script);
    const valid: DatasetRecord[] = [];
    const damaged = new Map<string, string>();
    for (const line of result.stdout.split('\n')) {
      const m = /^SERVELAB_DATASET ([^\t]+)\t(.*)$/.exec(line);
      if (!m) continue;
      const parsed = parseDatasetRecord(m[2] as string);
      if (typeof parsed === 'string') damaged.set(m[1] as string, parsed);
      else if (`${parsed.file}.servelab.json` === m[1]) valid.push(parsed);
      else damaged.set(m[1] as string, `it names another file (${parsed.file})`);
    }
    return { valid: valid.sort((a, b) => a.file.localeCompare(b.file)), damaged };
  }

  /** Downloads `url` on the box (not through this machine) into the cache as `file`. */
  /** Downloads on the box; with `sha256`, a file that hashes to anything else is refused and not kept. */
  async fetch(file: string, url: string, opts: { onProgress?: (p: DatasetProgress) => void; signal?: AbortSignal; sha256?: string } = {}): Promise<DatasetRecord> {
    checkFileName(file);
    checkUrl(url, opts.sha256);
    const dir = await this.dir();
    const dest = `${dir}/${file}`;
    await runChecked(this.box, `create ${dir}`, `${REMOTE_TREE_GUARD}mkdir -p -m 700 ${shellQuote(dir)}\n`);
    const facts = await boxFacts(this.box);
    const handle = await this.box.jobs().start({ command: inLoginEnv(facts, ['python3', '-c', FETCH_SCRIPT, url, dest]), label: `dataset ${file}` });
    let log = '';
    let done: { bytes: number; sha256: string } | undefined;
    const code = await handle.stream(
      (text) => {
        log = (log + text).slice(-64 * 1024);
        for (const m of text.matchAll(/^SERVELAB_DATASET_PROGRESS (\d+) (\d+)$/gm)) opts.onProgress?.({ bytes: Number(m[1]), total: Number(m[2]) });
        const end = /^SERVELAB_DATASET_DONE (\d+) ([0-9a-f]{64})$/m.exec(log);
        if (end) done = { bytes: Number(end[1]), sha256: end[2] as string };
      },
      opts.signal ? { signal: opts.signal } : {},
    );
    if (code !== 0 || !done) {
      const reason = log.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('SERVELAB_DATASET')).slice(-1)[0] ?? `exit status ${code}`;
      throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not fetch ${url} on the box: ${reason}`, { details: { url } });
    }
    if (opts.sha256 !== undefined && done.sha256 !== opts.sha256) {
      await this.box.run(`rm -f -- ${shellQuote(dest)}\n`, { timeoutSeconds: 30 }).catch(() => {});
      throw new ServelabError('BAD_INPUT', `${url} has SHA-256 ${done.sha256}, not the expected ${opts.sha256}; the file was not kept.`, {
        details: { url, expected: opts.sha256, actual: done.sha256 },
      });
    }
    await this.checkShape(dest, file);
    return this.record({ file, path: dest, sha256: done.sha256, bytes: done.bytes, source: 'url', origin: url, storedAt: new Date().toISOString() });
  }

  /** Copies a file from this machine into the cache (SHA-256 checked on both ends). */
  async upload(localPath: string, file: string, onProgress?: TransferProgress): Promise<DatasetRecord> {
    checkFileName(file);
    const dest = `${await this.dir()}/${file}`;
    const copied = await this.box.upload(localPath, dest, onProgress);
    await this.checkShape(dest, file);
    return this.record({ file, path: dest, sha256: copied.sha256, bytes: copied.bytes, source: 'upload', origin: localPath, storedAt: new Date().toISOString() });
  }

  /** A synthetic ShareGPT-format file from the simulated box's generator (demo lab: no download needed). */
  async synthesizeShareGpt(file: string, count = 1000): Promise<DatasetRecord> {
    checkFileName(file);
    const dir = await this.dir();
    const dest = `${dir}/${file}`;
    await runChecked(this.box, `generate ${file}`, `${REMOTE_TREE_GUARD}mkdir -p -m 700 ${shellQuote(dir)} && ${shellCommand(['simbox', 'make-sharegpt', dest, '--count', String(count)])}\n`, { timeoutSeconds: 300 });
    const { sha256, bytes } = await this.hash(dest);
    return this.record({ file, path: dest, sha256, bytes, source: 'synthetic', origin: `simbox make-sharegpt --count ${count}`, storedAt: new Date().toISOString() });
  }

  /** The cached dataset if its file is there and still has the SHA-256 it was stored with; a clear error otherwise. */
  async verify(file: string): Promise<DatasetRecord> {
    checkFileName(file);
    const { valid, damaged } = await this.records();
    const record = valid.find((r) => r.file === file);
    const problem = damaged.get(`${file}.servelab.json`);
    if (!record && problem !== undefined) {
      throw new ServelabError('REMOTE_COMMAND_FAILED', `The record of the dataset ${file} on the box (~/${DATASETS_ROOT}/${file}.servelab.json) is damaged: ${problem}. Fetch or upload the dataset again.`, {
        details: { file },
      });
    }
    if (!record) throw new ServelabError('NOT_FOUND', `The dataset ${file} is not in the box's dataset cache (~/${DATASETS_ROOT}); fetch or upload it first.`, { details: { file } });
    const now = await this.hash(record.path).catch(() => null);
    if (!now) throw new ServelabError('NOT_FOUND', `The dataset file ${record.path} is missing on the box; fetch or upload it again.`, { details: { file } });
    if (now.sha256 !== record.sha256) {
      throw new ServelabError('BAD_INPUT', `The dataset ${record.path} has changed since it was stored (SHA-256 ${now.sha256.slice(0, 12)}…, expected ${record.sha256.slice(0, 12)}…); fetch or upload it again.`, {
        details: { file, expected: record.sha256, actual: now.sha256 },
      });
    }
    return record;
  }

  /** SHA-256 and size of any file on the box (a workload's own dataset path); NOT_FOUND when it is not there. */
  async hash(path: string): Promise<{ sha256: string; bytes: number }> {
    const script = `f=${shellQuote(path)}
[ -f "$f" ] && [ -r "$f" ] || { echo "SERVELAB_NO_FILE"; exit 0; }
printf 'SERVELAB_SIZE %s\\n' "$(wc -c < "$f" | tr -d ' ')"
sha256sum "$f" | cut -c1-64
`;
    const result = await runChecked(this.box, `hash ${path}`, script, { timeoutSeconds: 600 });
    if (/^SERVELAB_NO_FILE$/m.test(result.stdout)) throw new ServelabError('NOT_FOUND', `The dataset file ${path} does not exist on the box (or cannot be read).`, { details: { path } });
    const bytes = Number(/^SERVELAB_SIZE (\d+)$/m.exec(result.stdout)?.[1]);
    const sha256 = /^([0-9a-f]{64})$/m.exec(result.stdout)?.[1];
    if (!sha256 || !Number.isFinite(bytes)) throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not hash ${path} on the box: ${result.stdout.trim()}`);
    return { sha256, bytes };
  }

  // ShareGPT is one JSON array: a truncated download or an HTML error page fails here, not mid-benchmark.
  private async checkShape(path: string, file: string): Promise<void> {
    if (!file.endsWith('.json')) return;
    const script = `f=${shellQuote(path)}
printf 'SERVELAB_HEAD %s\\n' "$(head -c 4096 "$f" | tr -d ' \\t\\r\\n' | cut -c1)"
printf 'SERVELAB_TAIL %s\\n' "$(tail -c 4096 "$f" | tr -d ' \\t\\r\\n' | tail -c 1)"
`;
    const result = await runChecked(this.box, `check ${path}`, script);
    const head = /^SERVELAB_HEAD (.*)$/m.exec(result.stdout)?.[1];
    const tail = /^SERVELAB_TAIL (.*)$/m.exec(result.stdout)?.[1];
    if (head !== '[' || tail !== ']') {
      await this.box.run(`rm -f ${shellQuote(path)}\n`, { timeoutSeconds: 30 });
      throw new ServelabError('BAD_INPUT', `${file} is not a ShareGPT-format JSON array (it starts with "${head ?? ''}" and ends with "${tail ?? ''}"); it was not kept.`, {
        details: { file },
      });
    }
  }

  private async record(record: DatasetRecord): Promise<DatasetRecord> {
    await runChecked(this.box, 'record the dataset', `umask 077\ncat > ${shellQuote(`${record.path}.servelab.json`)}\n`, { stdin: `${JSON.stringify(record)}\n` });
    return record;
  }
}
