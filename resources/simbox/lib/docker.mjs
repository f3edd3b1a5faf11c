// Simulated `docker` of the simbox: off by default (then the box has no docker, or the machine's real one), on with
// `simbox config --docker on`. It knows the engines' official images: `pull` prints docker's
// non-terminal progress lines, `run` starts the simulated engine server as a "container" process that nvidia-smi
// lists, and `ps`, `top`, `stop`, `rm`, `logs`, `images`, `image inspect`, `version` read the containers' and images'
// state files under the simbox state folder (`containers/`, `images/`).

import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, closeSync, realpathSync, rmSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_INDEX } from './catalog.mjs';
import { loadConfig, MARKER_LINE, pidAlive, stateDir, writeJsonAtomic } from './state.mjs';

const BIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin');
const ENTRY = resolve(dirname(fileURLToPath(import.meta.url)), 'container-entry.mjs');
const SERVER_VERSION = '28.5.1';
const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** The official images: repository → engine, package on the simulated index, tag → version. */
const REPOSITORIES = {
  'vllm/vllm-openai': { engine: 'vllm', pkg: 'vllm', version: (tag) => (tag.startsWith('v') ? tag.slice(1) : null), sizeGB: 9.8, entry: 'args-only' },
  'lmsysorg/sglang': { engine: 'sglang', pkg: 'sglang', version: (tag) => /^v(.+?)(-cu129-(amd64|arm64))?$/.exec(tag)?.[1] ?? null, sizeGB: 13.2, entry: 'command' },
  'nvcr.io/nvidia/tensorrt-llm/release': { engine: 'trtllm', pkg: 'tensorrt_llm', version: (tag) => tag, sizeGB: 21.7, entry: 'command' },
};

/** `simbox config --docker on|off|none`, or SERVELAB_SIMBOX_DOCKER (1/on, 0/off, none) for one process. */
export function dockerSetting(env = process.env) {
  const raw = env.SERVELAB_SIMBOX_DOCKER ?? loadConfig(env).docker;
  if (raw === true || raw === '1' || raw === 'on') return 'on';
  if (raw === 'none') return 'none';
  return 'off';
}

/** Another `docker` on PATH after the simbox's own, or null. */
function realDocker(env) {
  const own = realpathSync(BIN_DIR);
  for (const dir of String(env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    let real;
    try {
      real = realpathSync(dir);
    } catch {
      continue;
    }
    if (real === own) continue;
    const candidate = join(dir, 'docker');
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function fail(message, code = 1) {
  process.stderr.write(`${message}\n`);
  process.exitCode = code;
}

// --- references and state -----------------------------------------------------------------------------------

function parseReference(input) {
  let ref = String(input).replace(/^docker\.io\/(library\/)?/, '');
  if (!/:[^/]+$/.test(ref)) ref = `${ref}:latest`;
  const colon = ref.lastIndexOf(':');
  const repository = ref.slice(0, colon);
  const tag = ref.slice(colon + 1);
  const repo = REPOSITORIES[repository];
  const version = repo ? repo.version(tag) : null;
  const known = repo && version && PACKAGE_INDEX[repo.pkg].versions.includes(version);
  return { ref, repository, tag, known: Boolean(known), engine: repo?.engine, version, repo };
}

const imagesDir = () => join(stateDir(), 'images');
const containersDir = () => join(stateDir(), 'containers');
const fileName = (ref) => ref.replace(/[^A-Za-z0-9._-]/g, '_');

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

function findImage(input) {
  const { ref } = parseReference(input);
  return readJson(join(imagesDir(), `${fileName(ref)}.json`));
}

function listImages() {
  if (!existsSync(imagesDir())) return [];
  return readdirSync(imagesDir())
    .filter((n) => n.endsWith('.json'))
    .map((n) => readJson(join(imagesDir(), n)))
    .filter(Boolean);
}

function containerPath(name) {
  return join(containersDir(), `${name}.json`);
}

/** Containers as docker sees them: a running one whose process has died is exited now, and removed when run with --rm. */
function listContainers() {
  if (!existsSync(containersDir())) return [];
  const out = [];
  for (const n of readdirSync(containersDir())) {
    if (!n.endsWith('.json')) continue;
    const c = readJson(join(containersDir(), n));
    if (!c) continue;
    if (c.status === 'running' && !pidAlive(c.pid)) {
      if (c.rm) {
        removeContainer(c);
        continue;
      }
      c.status = 'exited';
      c.exitCode ??= 137;
      c.finishedAt = new Date().toISOString();
      writeJsonAtomic(containerPath(c.name), c);
    }
    out.push(c);
  }
  return out.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

function findContainer(key) {
  return listContainers().find((c) => c.name === key || c.name === key.replace(/^\//, '') || c.id.startsWith(key)) ?? null;
}

function removeContainer(c) {
  rmSync(containerPath(c.name), { force: true });
  rmSync(join(containersDir(), `${c.name}.log`), { force: true });
}

function ago(iso) {
  const s = Math.max(1, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} second${s === 1 ? '' : 's'}`;
  const m = Math.round(s / 60);
  return m < 60 ? `${m} minute${m === 1 ? '' : 's'}` : `${Math.round(m / 60)} hours`;
}

function containerStatus(c) {
  return c.status === 'running' ? `Up ${ago(c.startedAt)}` : `Exited (${c.exitCode ?? 0}) ${ago(c.finishedAt ?? c.createdAt)} ago`;
}

/** Renders the Go-template fields docker's --format is used with here ({{.Field}} and {{.A.B}}; \t as a tab). */
function render(template, fields) {
  return template.replace(/\\t/g, '\t').replace(/\{\{\s*\.([A-Za-z.]+)\s*\}\}/g, (_, key) => String(key.split('.').reduce((o, k) => (o == null ? o : o[k]), fields) ?? ''));
}

function flagValue(args, names) {
  for (let i = 0; i < args.length; i++) {
    for (const name of names) {
      if (args[i] === name) return args[i + 1];
      if (args[i].startsWith(`${name}=`)) return args[i].slice(name.length + 1);
    }
  }
  return undefined;
}

/** Arguments left after removing the given flags (and their values). */
function positionalsOf(args, valueFlags, boolFlags = []) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (valueFlags.includes(a)) {
      i++;
      continue;
    }
    if (valueFlags.some((f) => a.startsWith(`${f}=`)) || boolFlags.includes(a)) continue;
    out.push(a);
  }
  return out;
}

// --- commands --------------------------------------------------------------------------------------------------

function version(args) {
  const format = flagValue(args, ['--format', '-f']);
  const fields = {
    Client: { Version: SERVER_VERSION, ApiVersion: '1.51', Os: 'linux', Arch: 'amd64' },
    Server: { Version: SERVER_VERSION, ApiVersion: '1.51', Os: 'linux', Arch: 'amd64' },
  };
  if (format) process.stdout.write(`${render(format, fields)}\n`);
  else {
    process.stdout.write(
      `Client:\n Version:           ${SERVER_VERSION}\n API version:       1.51\n OS/Arch:           linux/amd64\n\nServer:\n Engine:\n  Version:          ${SERVER_VERSION}\n  API version:      1.51 (minimum version 1.24)\n  OS/Arch:          linux/amd64\n`,
    );
  }
  process.stdout.write(`${MARKER_LINE}\n`);
}

function layerIds(ref, count) {
  return Array.from({ length: count }, (_, i) => createHash('sha256').update(`${ref}#${i}`).digest('hex').slice(0, 12));
}

async function pull(args, { quietHeader = false } = {}) {
  const input = positionalsOf(args, [], ['-q', '--quiet', '-a', '--all-tags'])[0];
  if (!input) return fail('"docker pull" requires exactly 1 argument.\nSee \'docker pull --help\'.\n\nUsage:  docker pull [OPTIONS] NAME[:TAG|@DIGEST]\n\nPull an image or a repository from a registry');
  const p = parseReference(input);
  const shown = input.includes(':') ? input.replace(/^docker\.io\/(library\/)?/, '') : p.ref;
  if (!p.known) return fail(`Error response from daemon: manifest for ${shown} not found: manifest unknown`);
  const digest = `sha256:${createHash('sha256').update(`digest:${p.ref}`).digest('hex')}`;
  const out = quietHeader ? process.stderr : process.stdout;
  out.write(`${p.tag}: Pulling from ${p.repository}\n`);
  if (findImage(p.ref)) {
    out.write(`Digest: ${digest}\nStatus: Image is up to date for ${p.ref}\n`);
  } else {
    const config = loadConfig();
    const layers = layerIds(p.ref, 6);
    // A real pull of a ~10-20 GB image takes minutes; in scaled time a few hundred milliseconds at the default scale.
    const step = (p.repo.sizeGB * 12 * config.timeScale * 1000) / (layers.length * 3);
    for (const id of layers) out.write(`${id}: Pulling fs layer\n`);
    for (const id of layers.slice(2)) out.write(`${id}: Waiting\n`);
    for (const id of layers) {
      await sleep(step);
      out.write(`${id}: Verifying Checksum\n${id}: Download complete\n`);
    }
    for (const id of layers) {
      await sleep(step);
      out.write(`${id}: Pull complete\n`);
    }
    out.write(`Digest: ${digest}\nStatus: Downloaded newer image for ${p.ref}\n`);
    mkdirSync(imagesDir(), { recursive: true });
    writeJsonAtomic(join(imagesDir(), `${fileName(p.ref)}.json`), {
      ref: p.ref,
      repository: p.repository,
      tag: p.tag,
      id: `sha256:${createHash('sha256').update(`image:${p.ref}`).digest('hex')}`,
      digest,
      created: new Date().toISOString(),
      sizeGB: p.repo.sizeGB,
      engine: p.engine,
      version: p.version,
    });
  }
  out.write(`${p.repository.includes('.') ? '' : 'docker.io/'}${p.ref}\n`);
  out.write(`${MARKER_LINE}\n`);
}

function imageFields(img) {
  return {
    Id: img.id,
    ID: img.id.slice(7, 19),
    Created: img.created,
    CreatedAt: img.created.replace('T', ' ').replace(/\.\d+Z$/, ' +0000 UTC'),
    Repository: img.repository,
    Tag: img.tag,
    Size: `${img.sizeGB}GB`,
    RepoTags: [img.ref],
  };
}

function imageInspect(args) {
  const format = flagValue(args, ['--format', '-f']);
  const refs = positionalsOf(args, ['--format', '-f']);
  const found = [];
  let missing = false;
  for (const ref of refs) {
    const img = findImage(ref);
    if (!img) {
      missing = true;
      process.stderr.write(`Error response from daemon: No such image: ${ref}\n`);
      continue;
    }
    found.push(img);
  }
  if (format) for (const img of found) process.stdout.write(`${render(format, imageFields(img))}\n`);
  else if (found.length > 0 || !missing) {
    const docs = found.map((img) => ({ Id: img.id, RepoTags: [img.ref], RepoDigests: [`${img.repository}@${img.digest}`], Created: img.created, Comment: MARKER_LINE, Architecture: 'amd64', Os: 'linux', Size: Math.round(img.sizeGB * 1e9) }));
    process.stdout.write(`${JSON.stringify(docs, null, 4)}\n`);
  }
  if (missing) process.exitCode = 1;
}

function images(args) {
  const format = flagValue(args, ['--format']);
  const all = listImages();
  if (format) for (const img of all) process.stdout.write(`${render(format, imageFields(img))}\n`);
  else {
    process.stdout.write(`${'REPOSITORY'.padEnd(40)}${'TAG'.padEnd(16)}${'IMAGE ID'.padEnd(15)}${'CREATED'.padEnd(17)}SIZE\n`);
    for (const img of all) {
      const f = imageFields(img);
      process.stdout.write(`${f.Repository.padEnd(40)}${f.Tag.padEnd(16)}${f.ID.padEnd(15)}${`${ago(img.created)} ago`.padEnd(17)}${f.Size}\n`);
    }
  }
  process.stdout.write(`${MARKER_LINE}\n`);
}

const RUN_VALUE_FLAGS = ['--name', '--gpus', '--ipc', '--shm-size', '--ulimit', '-p', '--publish', '-v', '--volume', '-e', '--env', '--runtime', '-w', '--workdir', '--entrypoint', '-u', '--user'];
const RUN_BOOL_FLAGS = ['--rm', '-i', '--interactive', '-t', '--tty', '-it'];

function parseRun(args) {
  const opts = { rm: false, name: null, gpus: null, env: [], publish: [], volumes: [], entrypoint: null };
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('-')) break;
    if (RUN_BOOL_FLAGS.includes(a)) {
      if (a === '--rm') opts.rm = true;
      continue;
    }
    if (a === '-d' || a === '--detach') throw new Error('simbox docker: detached runs (-d) are not simulated; run in the foreground');
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    if (!RUN_VALUE_FLAGS.includes(name)) throw new Error(`unknown flag: ${name}\nSee 'docker run --help'.`);
    const value = a.startsWith('--') && eq > 0 ? a.slice(eq + 1) : args[++i];
    if (value === undefined) throw new Error(`flag needs an argument: ${name}\nSee 'docker run --help'.`);
    if (name === '--name') opts.name = value;
    else if (name === '--gpus') opts.gpus = value;
    else if (name === '-e' || name === '--env') opts.env.push(value);
    else if (name === '-p' || name === '--publish') opts.publish.push(value);
    else if (name === '-v' || name === '--volume') opts.volumes.push(value);
    else if (name === '--entrypoint') opts.entrypoint = value;
  }
  return { opts, image: args[i], command: args.slice(i + 1) };
}

/** `--gpus all|N|device=0,1|"device=0,1"` → CUDA_VISIBLE_DEVICES of the container (docker's CSV quoting removed). */
function gpusToVisible(spec, count) {
  const value = spec.replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1');
  if (value === 'all') return null;
  if (/^\d+$/.test(value)) return Array.from({ length: Math.min(Number(value), count) }, (_, i) => String(i)).join(',');
  const m = /^device=(.+)$/.exec(value);
  if (!m) throw new Error(`docker: Error response from daemon: could not select device driver "" with capabilities: [[gpu]].`);
  return m[1];
}

async function run(args) {
  let parsed;
  try {
    parsed = parseRun(args);
  } catch (err) {
    return fail(`docker: ${err.message}`, 125);
  }
  const { opts, image, command } = parsed;
  if (!image) return fail('docker: "run" requires at least 1 argument.\nSee \'docker run --help\'.', 125);
  for (const mapping of opts.publish) {
    const m = /^(?:(\d{1,3}(?:\.\d{1,3}){3}):)?(\d+):(\d+)(\/tcp)?$/.exec(mapping);
    if (!m || m[2] !== m[3]) return fail(`simbox docker: -p ${mapping}: only same-port mappings (-p [IP:]PORT:PORT) are simulated, since the simulated container shares the box's network.`, 125);
  }
  const p = parseReference(image);
  if (!findImage(p.ref)) {
    process.stderr.write(`Unable to find image '${p.ref}' locally\n`);
    await pull([p.ref], { quietHeader: true });
    if (process.exitCode) {
      process.exitCode = 125;
      return;
    }
  }
  const config = loadConfig();
  const name = opts.name ?? `simbox_${randomBytes(4).toString('hex')}`;
  const existing = findContainer(name);
  const id = randomBytes(32).toString('hex');
  if (existing && existing.name === name) {
    return fail(`docker: Error response from daemon: Conflict. The container name "/${name}" is already in use by container "${existing.id}". You have to remove (or rename) that container to be able to reuse that name.\n\nRun 'docker run --help' for more information`, 125);
  }

  // What runs in the container: the image's entrypoint (vLLM's API server) or the given command.
  let entryArgs;
  if (p.repo.entry === 'args-only' && !opts.entrypoint) entryArgs = ['vllm-api-server', ...command];
  else {
    const cmd = opts.entrypoint ? [opts.entrypoint, ...command] : command;
    const isSglang = p.engine === 'sglang' && /^python3?$/.test(cmd[0] ?? '') && cmd[1] === '-m' && cmd[2] === 'sglang.launch_server';
    const isTrt = p.engine === 'trtllm' && cmd[0] === 'trtllm-serve';
    if (cmd.length === 0) return; // the image's default shell, with no terminal, exits at once
    if (!isSglang && !isTrt) {
      return fail(`docker: Error response from daemon: failed to create task for container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: exec: "${cmd[0]}": executable file not found in $PATH: unknown\n\nRun 'docker run --help' for more information`, 127);
    }
    entryArgs = isSglang ? ['sglang-launch-server', ...cmd.slice(3)] : ['trtllm-serve', ...cmd.slice(1)];
  }

  // The container's environment: the image's, the -e values, and the simulated box's own settings.
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/root', HF_HOME: '/root/.cache/huggingface' };
  for (const [k, v] of Object.entries(process.env)) if (k.startsWith('SERVELAB_SIMBOX_')) env[k] = v;
  env.SERVELAB_SIMBOX_HOME = stateDir();
  for (const item of opts.env) {
    const eq = item.indexOf('=');
    if (eq > 0) env[item.slice(0, eq)] = item.slice(eq + 1);
    else if (process.env[item] !== undefined) env[item] = process.env[item];
  }
  if (opts.gpus === null) env.CUDA_VISIBLE_DEVICES = '';
  else {
    try {
      const visible = gpusToVisible(opts.gpus, config.count);
      if (visible !== null) env.CUDA_VISIBLE_DEVICES = visible;
    } catch (err) {
      return fail(err.message, 125);
    }
  }

  mkdirSync(containersDir(), { recursive: true });
  const logPath = join(containersDir(), `${name}.log`);
  const logFd = openSync(logPath, 'a');
  // Its own session, as under the docker daemon: the job's process group (this CLI) is not the container's.
  const child = spawn(process.execPath, [ENTRY, p.engine, p.version, ...entryArgs], { detached: true, env, stdio: ['ignore', logFd, logFd], cwd: '/' });
  closeSync(logFd);
  const record = {
    id,
    name,
    image: p.ref,
    engine: p.engine,
    version: p.version,
    pid: child.pid,
    rm: opts.rm,
    status: 'running',
    ports: opts.publish,
    gpus: opts.gpus,
    command: entryArgs,
    createdAt: new Date().toISOString(),
    startedAt: new Date().toISOString(),
    simulated: true,
  };
  writeJsonAtomic(containerPath(name), record);

  // docker run forwards the signals it gets to the container (sig-proxy); a SIGKILL of the CLI leaves it running.
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    process.on(sig, () => {
      try {
        process.kill(child.pid, sig);
      } catch {
        // already gone
      }
    });
  }
  let offset = 0;
  const drain = () => {
    let fd;
    try {
      fd = openSync(logPath, 'r');
    } catch {
      return;
    }
    const buf = Buffer.alloc(64 * 1024);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, offset);
      if (n <= 0) break;
      offset += n;
      process.stdout.write(buf.subarray(0, n));
    }
    closeSync(fd);
  };
  const timer = setInterval(drain, 50);
  const exitCode = await new Promise((resolveExit) => child.on('exit', (code, signal) => resolveExit(code ?? (signal === 'SIGKILL' ? 137 : signal === 'SIGTERM' ? 143 : 128))));
  clearInterval(timer);
  drain();
  const current = readJson(containerPath(name));
  if (current && current.id === id) {
    if (opts.rm) removeContainer(current);
    else writeJsonAtomic(containerPath(name), { ...current, status: 'exited', exitCode, finishedAt: new Date().toISOString() });
  }
  process.exitCode = exitCode;
}

function ps(args) {
  const all = args.includes('-a') || args.includes('--all');
  const quiet = args.includes('-q') || args.includes('--quiet');
  const format = flagValue(args, ['--format']);
  const filters = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--filter' || args[i] === '-f') filters.push(args[i + 1] ?? '');
    else if (args[i].startsWith('--filter=')) filters.push(args[i].slice(9));
  }
  let rows = listContainers().filter((c) => all || c.status === 'running');
  for (const f of filters) {
    const [key, value = ''] = f.split(/=(.*)/s);
    if (key === 'name') {
      let re;
      try {
        re = new RegExp(value);
      } catch {
        re = null;
      }
      rows = rows.filter((c) => (re ? re.test(`/${c.name}`) : `/${c.name}`.includes(value)));
    } else if (key === 'status') rows = rows.filter((c) => c.status === value);
  }
  const fields = (c) => ({ ID: c.id.slice(0, 12), Image: c.image, Names: c.name, Status: containerStatus(c), State: c.status, Ports: c.ports.map((m) => `${m}->${m.split(':').pop()}/tcp`).join(', ') });
  if (quiet) for (const c of rows) process.stdout.write(`${c.id.slice(0, 12)}\n`);
  else if (format) for (const c of rows) process.stdout.write(`${render(format, fields(c))}\n`);
  else {
    process.stdout.write(`${'CONTAINER ID'.padEnd(15)}${'IMAGE'.padEnd(46)}${'STATUS'.padEnd(28)}NAMES\n`);
    for (const c of rows) {
      const f = fields(c);
      process.stdout.write(`${f.ID.padEnd(15)}${f.Image.padEnd(46)}${f.Status.padEnd(28)}${f.Names}\n`);
    }
  }
  if (!quiet) process.stdout.write(`${MARKER_LINE}\n`);
}

/** The container's process and its descendants (host pids), from /proc. */
function processTree(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift();
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function top(args) {
  const key = args[0];
  if (!key) return fail('"docker top" requires at least 1 argument.\nSee \'docker top --help\'.');
  const c = findContainer(key);
  if (!c) return fail(`Error response from daemon: No such container: ${key}`);
  if (c.status !== 'running') return fail(`Error response from daemon: container ${c.id} is not running`);
  const pids = processTree(c.pid);
  // `docker top C -eo FIELDS` / `-o FIELDS`: ps of the container's processes; the default is `-ef`'s columns.
  const psArgs = args.slice(1);
  const o = psArgs.findIndex((a) => a === '-eo' || a === '-o');
  const fields = o >= 0 ? psArgs[o + 1] : 'uid,pid,ppid,c,stime,tty,time,cmd';
  if (!fields || !/^[a-z,=]+$/.test(fields)) return fail(`Error response from daemon: ps: unsupported options ${psArgs.join(' ')} (the simulated docker top takes -eo FIELDS)`);
  const r = spawnSync('ps', ['-o', fields, '-p', pids.join(',')], { encoding: 'utf8' });
  process.stdout.write(r.stdout);
  process.stdout.write(`${MARKER_LINE}\n`);
}

function killTree(c, sig) {
  try {
    process.kill(-c.pid, sig);
  } catch {
    try {
      process.kill(c.pid, sig);
    } catch {
      // already gone
    }
  }
}

/** After the container's process ended: docker's bookkeeping when the `docker run` that watched it is gone too. */
function settle(c, exitCode) {
  const current = readJson(containerPath(c.name));
  if (!current || current.id !== c.id || current.status !== 'running') return;
  if (current.rm) removeContainer(current);
  else writeJsonAtomic(containerPath(c.name), { ...current, status: 'exited', exitCode, finishedAt: new Date().toISOString() });
}

async function stop(args) {
  const t = Number(flagValue(args, ['-t', '--time', '--timeout']) ?? 10);
  const names = positionalsOf(args, ['-t', '--time', '--timeout', '-s', '--signal']);
  if (names.length === 0) return fail('"docker stop" requires at least 1 argument.\nSee \'docker stop --help\'.');
  for (const key of names) {
    const c = findContainer(key);
    if (!c) {
      fail(`Error response from daemon: No such container: ${key}`);
      continue;
    }
    if (c.status === 'running') {
      // SIGTERM to the container's main process, SIGKILL to all of it after the timeout (docker stop -t).
      try {
        process.kill(c.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      const deadline = Date.now() + Math.max(0, t) * 1000;
      while (pidAlive(c.pid) && Date.now() < deadline) await sleep(50);
      let code = 143;
      if (pidAlive(c.pid)) {
        killTree(c, 'SIGKILL');
        code = 137;
        while (pidAlive(c.pid)) await sleep(20);
      }
      // Give the watching `docker run` a moment to record the exit itself (it knows the real code).
      await sleep(200);
      settle(c, code);
    }
    process.stdout.write(`${key}\n`);
  }
}

async function rm(args) {
  const force = args.includes('-f') || args.includes('--force');
  const names = positionalsOf(args, [], ['-f', '--force', '-v', '--volumes']);
  if (names.length === 0) return fail('"docker rm" requires at least 1 argument.\nSee \'docker rm --help\'.');
  for (const key of names) {
    const c = findContainer(key);
    if (!c) {
      fail(`Error response from daemon: No such container: ${key}`);
      continue;
    }
    if (c.status === 'running') {
      if (!force) {
        fail(`Error response from daemon: cannot remove container "/${c.name}": container is running: stop the container before removing or force remove`);
        continue;
      }
      // Forget it before killing it: the `docker run` watching it then finds no record to mark exited, and rm -f
      // returns once the process is gone, as the daemon's does.
      removeContainer(c);
      killTree(c, 'SIGKILL');
      while (pidAlive(c.pid)) await sleep(20);
    } else {
      removeContainer(c);
    }
    process.stdout.write(`${key}\n`);
  }
}

function logs(args) {
  const key = positionalsOf(args, ['--tail', '--since', '-n'], ['-f', '--follow', '-t', '--timestamps'])[0];
  const c = key ? findContainer(key) : null;
  if (!c) return fail(`Error response from daemon: No such container: ${key ?? ''}`);
  try {
    process.stdout.write(readFileSync(join(containersDir(), `${c.name}.log`)));
  } catch {
    // no output yet
  }
}

export async function main(argv) {
  const setting = dockerSetting();
  if (setting !== 'on') {
    const real = setting === 'off' ? realDocker(process.env) : null;
    if (real) {
      const r = spawnSync(real, argv, { stdio: 'inherit' });
      process.exitCode = r.status ?? 1;
      return;
    }
    return fail('docker: command not found', 127);
  }
  const [cmd, ...args] = argv;
  switch (cmd) {
    case 'version':
      return version(args);
    case 'pull':
      return pull(args);
    case 'image':
      if (args[0] === 'inspect') return imageInspect(args.slice(1));
      if (args[0] === 'ls') return images(args.slice(1));
      return fail(`simbox docker: "docker image ${args[0] ?? ''}" is not simulated (inspect and ls are).`);
    case 'inspect':
      return imageInspect(args);
    case 'images':
      return images(args);
    case 'run':
      return run(args);
    case 'ps':
      return ps(args);
    case 'top':
      return top(args);
    case 'stop':
      return stop(args);
    case 'rm':
      return rm(args);
    case 'logs':
      return logs(args);
    default:
      return fail(`docker: unknown command: docker ${cmd ?? ''}\n\nRun 'docker --help' for more information (the simulated docker has version, pull, images, image inspect, run, ps, top, stop, rm, logs).`);
  }
}
