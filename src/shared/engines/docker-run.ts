// The official images' `docker run` for each engine (as its install guide runs it): the image, how the server command goes
// into the container, and the shared-memory flags the docs give. Pure data and argv, no shell quoting.
import { getAdapter } from './adapters';
import { ENGINE_IDS, type EngineId } from './types';

export interface DockerEngineSpec {
  /** `args-only`: the image's ENTRYPOINT is the server, so only its arguments follow the image (vLLM). */
  entry: 'args-only' | 'command';
  /** Flags the engine's docs run its image with, besides the GPUs. */
  runFlags: readonly string[];
  /** The image's repository, for recognising pulled images (the tag is the version, as `image(version)` writes it). */
  repository: string;
  tagOf(version: string): string;
}

export const DOCKER_ENGINES: Readonly<Record<EngineId, DockerEngineSpec>> = {
  // ENTRYPOINT ["python3", "-m", "vllm.entrypoints.openai.api_server"]; `--ipc=host` or `--shm-size` for PyTorch/NCCL.
  vllm: { entry: 'args-only', runFlags: ['--ipc=host'], repository: 'vllm/vllm-openai', tagOf: (v) => `v${v}` },
  // No server entrypoint; the docs use both `--shm-size 32g` and `--ipc=host`.
  sglang: { entry: 'command', runFlags: ['--shm-size', '32g', '--ipc=host'], repository: 'lmsysorg/sglang', tagOf: (v) => `v${v}` },
  trtllm: {
    entry: 'command',
    runFlags: ['--ipc=host', '--ulimit', 'memlock=-1', '--ulimit', 'stack=67108864'],
    repository: 'nvcr.io/nvidia/tensorrt-llm/release',
    tagOf: (v) => v,
  },
};

/**
 * Where the box's Hugging Face cache is mounted in the container, and HF_HOME points: not under /root, which a
 * container run as the box user (`--user uid:gid`) cannot enter.
 */
export const CONTAINER_HF_CACHE = '/servelab-hf';

/** Variables that carry a Hugging Face token, which an offline server does not need. */
export const HF_TOKEN_NAMES: ReadonlySet<string> = new Set(['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN']);

export function dockerImage(engine: EngineId, version: string): string {
  const image = getAdapter(engine).installSpec(version).dockerImage;
  if (!image) throw new Error(`${engine} has no docker image`);
  return image;
}

/** The engine and version of an image reference Servelab would pull (`docker.io/` prefix tolerated), else null. */
export function engineOfImage(reference: string): { engine: EngineId; version: string } | null {
  const ref = reference.replace(/^docker\.io\/(library\/)?/, '');
  const colon = ref.lastIndexOf(':');
  if (colon <= 0 || ref.includes('@')) return null;
  const repository = ref.slice(0, colon);
  const tag = ref.slice(colon + 1);
  for (const engine of ENGINE_IDS) {
    const spec = DOCKER_ENGINES[engine];
    if (spec.repository !== repository) continue;
    const version = spec.tagOf('') === 'v' ? (tag.startsWith('v') ? tag.slice(1) : null) : tag;
    if (version && /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/.test(version) && spec.tagOf(version) === tag) return { engine, version };
  }
  return null;
}

export interface DockerRunInput {
  engine: EngineId;
  version: string;
  /** The adapter's argv for the engine (`buildArgv(...).argv`), program first. */
  serverArgv: readonly string[];
  /** Published on the box's 127.0.0.1 at the same port the server listens on inside the container. */
  port: number;
  /** GPU indices or UUIDs; none means all GPUs. */
  gpus?: readonly string[];
  /** The box's Hugging Face cache (absolute), shared with the container so models are downloaded once. */
  hfCacheDir: string;
  /** Variables docker copies from its own environment (`--env NAME`): secret values never appear in argv. */
  envNames?: readonly string[];
  /**
   * Plain variables: passed by name too (`--env NAME`), so their values stay off the process list; the caller runs
   * `docker run` with them in its environment.
   */
  plainEnv?: Readonly<Record<string, string>>;
  /** `uid:gid` of the box user, so what the server writes into the shared cache is not root's. */
  user?: string;
  /** The weights are in the cache already: HF_HUB_OFFLINE=1, and no Hugging Face token goes in. */
  offline?: boolean;
  /** Absolute paths of generated files the server reads (TensorRT-LLM's options YAML): mounted read-only at the same path. */
  files?: readonly string[];
  /**
   * Absolute path of a file on the box holding the Hugging Face token: mounted read-only at the same path and named
   * by HF_TOKEN_PATH, which huggingface_hub reads the token from (`constants.py`, `HF_TOKEN_PATH`). The value is then
   * in no variable of the container, so `docker inspect` and the container's config.v2.json never show it.
   */
  tokenFile?: string;
  name: string;
}

/** The container's argv after the image: the server command, or only its arguments when the image's entrypoint is the server. */
export function containerCommand(engine: EngineId, serverArgv: readonly string[]): string[] {
  if (DOCKER_ENGINES[engine].entry === 'command') return [...serverArgv];
  // vLLM: `vllm serve MODEL …` becomes the API server's `--model MODEL …`.
  const [program, sub, model, ...rest] = serverArgv;
  if (program !== 'vllm' || sub !== 'serve' || model === undefined || model.startsWith('-')) {
    throw new Error(`expected "vllm serve MODEL …", got "${serverArgv.slice(0, 3).join(' ')}"`);
  }
  return ['--model', model, ...rest];
}

export function buildDockerRun(input: DockerRunInput): string[] {
  const spec = DOCKER_ENGINES[input.engine];
  if (!input.hfCacheDir.startsWith('/')) throw new Error('hfCacheDir must be an absolute path');
  const argv = ['docker', 'run', '--rm', '--name', input.name];
  if (input.user !== undefined) {
    if (!/^\d+:\d+$/.test(input.user)) throw new Error(`user must be uid:gid, got "${input.user}"`);
    argv.push('--user', input.user);
  }
  // docker reads --gpus as CSV: a list of devices must be one quoted field, `"device=0,1"`.
  const gpus = input.gpus ?? [];
  argv.push('--gpus', gpus.length === 0 ? 'all' : `"device=${gpus.join(',')}"`);
  argv.push(...spec.runFlags);
  argv.push('-p', `127.0.0.1:${input.port}:${input.port}`);
  argv.push('-v', `${input.hfCacheDir}:${CONTAINER_HF_CACHE}`, '--env', `HF_HOME=${CONTAINER_HF_CACHE}`);
  // An arbitrary uid has no home in the image; caches the engines keep under ~ go to the container's own /tmp.
  // A uid the image's passwd does not know has no name either: Python's getpass.getuser() (torch's compile caches
  // use it) reads LOGNAME/USER before it asks passwd, which would raise KeyError for such a uid.
  if (input.user !== undefined) argv.push('--env', 'HOME=/tmp', '--env', 'USER=servelab', '--env', 'LOGNAME=servelab');
  if (input.offline) argv.push('--env', 'HF_HUB_OFFLINE=1');
  if (input.tokenFile !== undefined && !input.offline) {
    if (!input.tokenFile.startsWith('/')) throw new Error(`the token file must have an absolute path: ${input.tokenFile}`);
    argv.push('-v', `${input.tokenFile}:${input.tokenFile}:ro`, '--env', `HF_TOKEN_PATH=${input.tokenFile}`);
  }
  const dirs = [...new Set((input.files ?? []).map((f) => f.slice(0, f.lastIndexOf('/')) || '/'))];
  for (const dir of dirs) {
    if (!dir.startsWith('/')) throw new Error(`generated files must have absolute paths: ${dir}`);
    argv.push('-v', `${dir}:${dir}:ro`);
  }
  for (const name of Object.keys(input.plainEnv ?? {})) argv.push('--env', name);
  // An offline server needs no token; one given as a file is not also given as a variable.
  const tokenElsewhere = input.offline === true || input.tokenFile !== undefined;
  for (const name of input.envNames ?? []) if (!(tokenElsewhere && HF_TOKEN_NAMES.has(name))) argv.push('--env', name);
  argv.push(dockerImage(input.engine, input.version), ...containerCommand(input.engine, input.serverArgv));
  return argv;
}
