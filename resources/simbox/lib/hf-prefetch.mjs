// Servelab's model prefetch script (marked `# servelab-prefetch`), as an engine environment's python runs it: the
// catalog's models exist on a simulated Hub, gated ones need HF_TOKEN, unknown ids fail with huggingface_hub's
// real error, and files land as small placeholders in the Hugging Face cache layout. The token is never printed.

import { hasHfToken } from './hf-token.mjs';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { allModelIds, DRAFT_MODELS, resolveModel, weightBytes } from './catalog.mjs';
import { hash32 } from './rng.mjs';
import { traceback } from './pylog.mjs';
import { loadConfig } from './state.mjs';

export const PREFETCH_MARKER = '# servelab-prefetch';
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
// Real-world download speed from the Hub, before the box's time scale.
const DOWNLOAD_BYTES_PER_SECOND = 400e6;
const SHARD_BYTES = 4e9;

export function isPrefetchScript(code) {
  return typeof code === 'string' && code.split('\n').some((l) => l.trim() === PREFETCH_MARKER);
}

/** A model the simulated Hub has: the catalog's ids (exact) and the draft heads. */
export function hubModel(id) {
  if (allModelIds().includes(id)) return resolveModel(id);
  const draft = DRAFT_MODELS[id];
  if (draft) return { id, params: draft.params, quant: null, gated: false, draft: true };
  return null;
}

/** The commit a repo's main branch points at: stable per repo id. */
export function commitOf(id) {
  let hex = '';
  for (let i = 0; hex.length < 40; i++) hex += hash32('hub-commit', id, i).toString(16).padStart(8, '0');
  return hex.slice(0, 40);
}

/** Plausible file lists with Hub sizes in bytes. */
export function repoFiles(model) {
  const files = [
    ['.gitattributes', 1570],
    ['README.md', 16_900],
    ['config.json', 728],
    ['generation_config.json', 239],
    ['tokenizer_config.json', 9_730],
    ['tokenizer.json', 11_422_654],
  ];
  if (/^Qwen\//.test(model.id)) files.push(['LICENSE', 11_343], ['merges.txt', 1_671_853], ['vocab.json', 2_776_833]);
  if (/^meta-llama\//.test(model.id)) files.push(['LICENSE', 7_627], ['USE_POLICY.md', 4_691], ['special_tokens_map.json', 296]);
  const total = Math.round(model.draft ? model.params * 2 : weightBytes(model));
  const shards = Math.max(1, Math.ceil(total / SHARD_BYTES));
  if (shards === 1) files.push(['model.safetensors', total]);
  else {
    const pad = (n) => String(n).padStart(5, '0');
    for (let i = 1; i <= shards; i++) files.push([`model-${pad(i)}-of-${pad(shards)}.safetensors`, Math.round(total / shards)]);
    files.push(['model.safetensors.index.json', 32_000 + shards * 1200]);
  }
  return files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function requestId() {
  return `Root=1-${randomBytes(4).toString('hex')}-${randomBytes(12).toString('hex')}`;
}

function hubCacheDir(env) {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  const hfHome = env.HF_HOME || join(env.HOME || homedir(), '.cache', 'huggingface');
  return join(hfHome, 'hub');
}

/**
 * Runs the prefetch script for `argv` = [repo, revision?]. Prints what the real script prints (progress lines and
 * the final marker line); failures are huggingface_hub's tracebacks on stderr, exit 1.
 */
export async function prefetchMain(argv, { packages, env = process.env, out = process.stdout, err = process.stderr }) {
  if (!['vllm', 'sglang', 'tensorrt_llm'].some((p) => packages?.[p])) {
    err.write(`Traceback (most recent call last):\n  File "<string>", line 3, in <module>\nModuleNotFoundError: No module named 'huggingface_hub'\n`);
    return 1;
  }
  const [repo, revision] = argv;
  if (!repo) {
    err.write(`Traceback (most recent call last):\n  File "<string>", line 4, in <module>\nIndexError: list index out of range\n`);
    return 1;
  }
  const model = hubModel(repo);
  const infoUrl = `https://huggingface.co/api/models/${repo}${revision ? `/revision/${encodeURIComponent(revision)}` : ''}`;
  const httpFrame = ['/usr/lib/python3/dist-packages/huggingface_hub/utils/_http.py', 409, 'hf_raise_for_status', null];
  if (!model) {
    err.write(
      traceback(
        [['<string>', 6, '<module>', null], [...httpFrame.slice(0, 3), 'raise _format(RepositoryNotFoundError, message, response) from e']],
        `huggingface_hub.errors.RepositoryNotFoundError: 401 Client Error. (Request ID: ${requestId()})\n\nRepository Not Found for url: ${infoUrl}.\nPlease make sure you specified the correct \`repo_id\` and \`repo_type\`.\nIf you are trying to access a private or gated repo, make sure you are authenticated. For more details, see https://huggingface.co/docs/huggingface_hub/authentication`,
      ),
    );
    return 1;
  }
  const sha = commitOf(repo);
  if (revision && revision !== 'main' && revision !== sha) {
    err.write(
      traceback(
        [['<string>', 6, '<module>', null], [...httpFrame.slice(0, 3), 'raise _format(RevisionNotFoundError, message, response) from e']],
        `huggingface_hub.errors.RevisionNotFoundError: 404 Client Error. (Request ID: ${requestId()})\n\nRevision Not Found for url: ${infoUrl}.`,
      ),
    );
    return 1;
  }
  const files = repoFiles(model);
  out.write(`SERVELAB_PREFETCH 0/${files.length} ${repo}@${sha}\n`);

  const hasToken = hasHfToken(env);
  const repoDir = join(hubCacheDir(env), `models--${repo.replace(/\//g, '--')}`);
  const snapshot = join(repoDir, 'snapshots', sha);
  const msPerByte = (loadConfig(env).timeScale * 1000) / DOWNLOAD_BYTES_PER_SECOND;
  let downloaded = 0;
  for (const [i, [name, size]] of files.entries()) {
    const path = join(snapshot, name);
    const hit = existsSync(path);
    if (!hit) {
      // The Hub lists a gated repo's files to anyone; reading one needs an account that accepted its terms.
      if (model.gated && !hasToken) {
        err.write(
          traceback(
            [['<string>', 15, '<module>', null], ['/usr/lib/python3/dist-packages/huggingface_hub/utils/_http.py', 426, 'hf_raise_for_status', 'raise _format(GatedRepoError, message, response) from e']],
            `huggingface_hub.errors.GatedRepoError: 401 Client Error. (Request ID: ${requestId()})\n\nCannot access gated repo for url https://huggingface.co/${repo}/resolve/${sha}/${name}.\nAccess to model ${repo} is restricted. You must have access to it and be authenticated to access it. Please log in.`,
          ),
        );
        return 1;
      }
      await sleep(size * msPerByte);
      mkdirSync(snapshot, { recursive: true });
      writeFileSync(path, `SERVELAB-SIMULATED placeholder of ${repo}/${name} (${size} bytes on the Hub)\n`);
      downloaded++;
    }
    out.write(`SERVELAB_PREFETCH ${i + 1}/${files.length} ${name}${hit ? ' (cached)' : ''}\n`);
  }
  mkdirSync(join(repoDir, 'refs'), { recursive: true });
  if (!revision || revision === 'main') writeFileSync(join(repoDir, 'refs', 'main'), sha);
  out.write(`SERVELAB_PREFETCH_DONE ${JSON.stringify({ path: snapshot, revision: sha, files: files.length, downloaded })}\n`);
  return 0;
}
