// Whether huggingface_hub would find a token, in its own order (huggingface_hub `utils/_auth.py` get_token, paths from
// `constants.py`): HF_TOKEN, then HUGGING_FACE_HUB_TOKEN, then the file at HF_TOKEN_PATH, whose default is
// $HF_HOME/token (HF_HOME defaulting to ~/.cache/huggingface).
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function hasHfToken(env = process.env) {
  if (env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN) return true;
  const hfHome = env.HF_HOME || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'huggingface');
  const path = env.HF_TOKEN_PATH || join(hfHome, 'token');
  try {
    return readFileSync(path, 'utf8').trim() !== '';
  } catch {
    return false;
  }
}
