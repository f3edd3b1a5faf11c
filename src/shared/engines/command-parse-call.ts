// Finding the server command in a pasted snippet: wrappers and variables in front, `docker run … IMAGE …`, the
// `pip install` that names the version, and the files the snippet writes (part of command-parse.ts).
import { joinArgs } from './argv-text';
import { parseShell, printedText, type ShellWord, type SimpleCommand } from './command-parse-shell';
import { DOCKER_ENGINES } from './docker-run';
import { isSecretEnvName } from './server-config';
import { ENGINE_IDS, type EngineId } from './types';
import { isVersion } from './version';

export interface ServerCall {
  engine: EngineId;
  /** The words after the program (and its subcommand); vLLM's `api_server` module and image take `--model M`. */
  args: ShellWord[];
  /** Variables the server gets from `docker run -e`. */
  env: Record<string, string>;
  docker?: { image: string; args: string[]; version?: string };
}

const PREFIX_PROGRAMS = new Set(['nohup', 'exec', 'time', 'command']);

function baseName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** The engine and its arguments when `words` (after variables and wrappers) start one of the three servers. */
export function engineCall(words: readonly ShellWord[]): { engine: EngineId; args: ShellWord[] } | undefined {
  const w = words.map((x) => x.text);
  const program = baseName(w[0] ?? '');
  if (program === 'vllm' && w[1] === 'serve') return { engine: 'vllm', args: words.slice(2) };
  if (program === 'trtllm-serve') return { engine: 'trtllm', args: words.slice(w[1] === 'serve' ? 2 : 1) };
  if (/^python(\d+(\.\d+)?)?$/.test(program) && w[1] === '-m') {
    const module = w[2];
    if (module === 'vllm.entrypoints.openai.api_server') return { engine: 'vllm', args: words.slice(3) };
    if (module === 'sglang.launch_server') return { engine: 'sglang', args: words.slice(3) };
    if (module === 'tensorrt_llm.commands.serve') return { engine: 'trtllm', args: words.slice(w[3] === 'serve' ? 4 : 3) };
  }
  return undefined;
}

/** GPU selection is Servelab's (the study's hosts and GPUs), set at launch. */
export const GPU_ENV: ReadonlySet<string> = new Set(['CUDA_VISIBLE_DEVICES', 'NVIDIA_VISIBLE_DEVICES']);

export const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/;

/** Strips `A=B` assignments, `env`, `sudo -E`, `nohup`… from the front; the variables are the server's. */
export function stripPrefixes(words: readonly ShellWord[], env: Record<string, string>): ShellWord[] {
  let i = 0;
  for (;;) {
    const w = words[i]?.text;
    if (w === undefined) return [];
    // A shell prompt copied from documentation (`$ vllm serve …`).
    if (i === 0 && w === '$' && words[0]?.dollar) {
      i++;
      continue;
    }
    const m = ASSIGNMENT.exec(w);
    if (m) {
      env[m[1] as string] = m[2] as string;
      i++;
    } else if (w === 'env' || w === 'sudo') {
      i++;
      while (words[i] !== undefined && (words[i] as ShellWord).text.startsWith('-')) i++;
    } else if (PREFIX_PROGRAMS.has(w)) i++;
    else if (w === 'uv' && words[i + 1]?.text === 'run') {
      i += 2;
      while (words[i] !== undefined && (words[i] as ShellWord).text.startsWith('-')) i++;
    } else return words.slice(i);
  }
}

// docker run options that take no value (docker/cli `run` and `create` flags).
const DOCKER_SWITCHES = new Set(['--rm', '--detach', '--interactive', '--tty', '--init', '--privileged', '--publish-all', '--read-only', '--no-healthcheck', '--oom-kill-disable', '--sig-proxy', '--quiet', '--help', '--disable-content-trust', '--use-api-socket']);

function imageVersion(engine: EngineId, tag: string): string | undefined {
  const body = DOCKER_ENGINES[engine].tagOf('') === 'v' ? tag.replace(/^v/, '') : tag;
  const m = /^(\d+(?:\.\d+)+(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?)(?=$|[-_+])/.exec(body);
  return m?.[1];
}

function engineOfImageName(image: string): { engine: EngineId; version?: string } | undefined {
  const ref = image.replace(/^docker\.io\/(library\/)?/, '').replace(/@.*$/, '');
  const colon = ref.lastIndexOf(':');
  const repository = colon > ref.lastIndexOf('/') ? ref.slice(0, colon) : ref;
  const tag = colon > ref.lastIndexOf('/') ? ref.slice(colon + 1) : '';
  for (const engine of ENGINE_IDS) {
    if (DOCKER_ENGINES[engine].repository !== repository) continue;
    const version = imageVersion(engine, tag);
    return version ? { engine, version } : { engine };
  }
  return undefined;
}

export function dockerCall(words: readonly ShellWord[], warnings: string[]): ServerCall | { error: string } | undefined {
  const w = words.map((x) => x.text);
  const program = baseName(w[0] ?? '');
  if (!['docker', 'podman', 'nvidia-docker'].includes(program)) return undefined;
  let i = w[1] === 'run' ? 2 : w[1] === 'container' && w[2] === 'run' ? 3 : -1;
  if (i < 0) return undefined;
  const args: string[] = [];
  const env: Record<string, string> = {};
  const takeEnv = (value: string) => {
    const m = ASSIGNMENT.exec(value);
    if (!m) {
      warnings.push(`docker passes ${value} from the shell's environment; its value is not in the command`);
      args.push('-e', value);
      return;
    }
    const name = m[1] as string;
    if (isSecretEnvName(name)) {
      warnings.push(`${name} holds a credential: its value is left out (give it as a secret reference)`);
      args.push('-e', name);
      return;
    }
    env[name] = m[2] as string;
  };
  while (i < w.length) {
    const word = w[i] as string;
    if (!word.startsWith('-')) break;
    const eq = word.indexOf('=');
    const name = eq > 0 ? word.slice(0, eq) : word;
    if ((name === '-e' || name === '--env') && eq > 0) {
      takeEnv(word.slice(eq + 1));
      i++;
    } else if (/^-[a-zA-Z]+$/.test(word) && [...word.slice(1)].every((c) => 'itdP'.includes(c))) {
      args.push(word);
      i++;
    } else if (DOCKER_SWITCHES.has(name) || eq > 0) {
      args.push(word);
      i++;
    } else if (word === '-e' || word === '--env') {
      takeEnv(w[i + 1] ?? '');
      i += 2;
    } else {
      if (word === '--env-file') warnings.push(`the variables in ${w[i + 1] ?? 'the --env-file'} are not read`);
      args.push(word, ...(w[i + 1] !== undefined ? [w[i + 1] as string] : []));
      i += 2;
    }
  }
  const image = w[i];
  if (image === undefined) return { error: 'the docker run command names no image' };
  const rest = stripPrefixes(words.slice(i + 1), env);
  const known = engineOfImageName(image);
  let call = engineCall(rest);
  if (!call && ['bash', 'sh'].includes(baseName(rest[0]?.text ?? '')) && rest[1]?.text === '-c' && rest[2] !== undefined) {
    const inner = parseShell(rest[2].text);
    if (!('error' in inner)) {
      for (const c of inner.commands) {
        const found = engineCall(stripPrefixes(c.words, env));
        if (found) {
          call = found;
          warnings.push('the server command was read from the container\'s "sh -c" script; it is rebuilt as a plain command');
          break;
        }
      }
    }
  }
  if (!call && known && DOCKER_ENGINES[known.engine].entry === 'args-only') call = { engine: known.engine, args: rest };
  if (!call) return { error: `the container ${image} runs no vllm serve, sglang.launch_server or trtllm-serve command Servelab recognises` };
  return { engine: call.engine, args: call.args, env, docker: { image, args, ...(known?.engine === call.engine && known.version ? { version: known.version } : {}) } };
}

const PIP_SPEC: Record<EngineId, RegExp> = {
  vllm: /^vllm(?:\[[^\]]*\])?==(.+)$/,
  sglang: /^sglang(?:\[[^\]]*\])?==(.+)$/,
  trtllm: /^tensorrt[_-]llm(?:\[[^\]]*\])?==(.+)$/,
};

export function pipVersion(commands: readonly SimpleCommand[], engine: EngineId): string | undefined {
  for (const c of commands) {
    const w = c.words.map((x) => x.text);
    if (!w.includes('install') || !w.some((x) => /^(pip3?|uv)$/.test(baseName(x)) || /^python/.test(baseName(x)))) continue;
    for (const word of w) {
      const m = PIP_SPEC[engine].exec(word);
      if (m && isVersion(m[1] as string)) return m[1] as string;
    }
  }
  return undefined;
}

/** Files the snippet writes from a here-document or an `echo … > FILE`, by path. */
export function writtenFiles(commands: readonly SimpleCommand[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const c of commands) {
    const target = c.writes[c.writes.length - 1];
    if (target === undefined) continue;
    const [program, ...args] = c.words.map((w) => w.text);
    if ((program === 'cat' || program === 'tee') && c.heredocs.length > 0) files.set(target, c.heredocs[c.heredocs.length - 1] as string);
    else if (program === 'echo' || program === 'printf') {
      const text = printedText(joinArgs([program, ...args]));
      if (text !== undefined) files.set(target, text);
    }
  }
  return files;
}
