// The simulated box's state folder: its configuration (GPU model and count, seed, time scale, faults) and the
// simulated processes holding "GPU memory". Several processes read and write it, so every record is one small
// file written atomically, and a record whose process has died is ignored and removed.

import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GPU_MODELS, resolveGpuModel } from './catalog.mjs';
import { hash32 } from './rng.mjs';

export const SIMULATED_MARKER = 'SERVELAB-SIMULATED';
/** The line the simulated tools add to their output (no commas, so CSV parsers skip it). */
export const MARKER_LINE = `${SIMULATED_MARKER}: simulated GPU box (Servelab simbox test double) - no real GPU or engine is present`;

export const DEFAULT_CONFIG = {
  gpu: 'h100',
  count: 1,
  seed: 0,
  timeScale: 0.01,
  faults: {},
  // `on`: the simulated docker; `off`: no docker of its own (a real one later on PATH is used); `none`: no docker at all.
  docker: 'off',
};

/** Fault names the box understands (see README, "Faults"). */
export const FAULTS = {
  oom: 'CUDA out of memory while the server starts',
  'slow-startup': 'startup takes N times longer (value: factor, default 10)',
  'crash-after': 'the server dies after N completed requests (value: N, default 20)',
  'busy-port': 'the server cannot bind its port ("address already in use")',
  stray: 'a stray process holds GPU memory (value: MiB on GPU 0, default 30000)',
  'fp8-gemm': 'TensorRT-LLM FP8 block-scaled GEMM fails even on sm 9.x (it always fails on sm 8.x)',
};

export function stateDir(env = process.env) {
  return env.SERVELAB_SIMBOX_HOME || join(env.HOME || homedir(), '.servelab-simbox');
}

function readJson(path, fallback) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return fallback;
  }
}

export function writeJsonAtomic(path, value) {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Parses `oom,crash-after=5,slow-startup=3` into {oom: true, 'crash-after': 5, …}. */
export function parseFaultList(text) {
  const faults = {};
  for (const item of String(text ?? '').split(/[,\s]+/).filter(Boolean)) {
    const [name, value] = item.split('=');
    if (!FAULTS[name]) throw new Error(`unknown fault "${name}" (known: ${Object.keys(FAULTS).join(', ')})`);
    faults[name] = value === undefined ? true : Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return faults;
}

/** The box as this process sees it: simbox.json, then environment overrides for this process only. */
export function loadConfig(env = process.env) {
  const dir = stateDir(env);
  const file = readJson(join(dir, 'simbox.json'), {});
  const config = { ...DEFAULT_CONFIG, ...file, faults: { ...(file.faults ?? {}) } };
  if (env.SERVELAB_SIMBOX_GPU) config.gpu = env.SERVELAB_SIMBOX_GPU;
  if (env.SERVELAB_SIMBOX_GPU_COUNT) config.count = Number(env.SERVELAB_SIMBOX_GPU_COUNT);
  if (env.SERVELAB_SIMBOX_SEED) config.seed = Number(env.SERVELAB_SIMBOX_SEED);
  if (env.SERVELAB_SIMBOX_TIME_SCALE) config.timeScale = Number(env.SERVELAB_SIMBOX_TIME_SCALE);
  if (env.SERVELAB_SIMBOX_FAULTS) Object.assign(config.faults, parseFaultList(env.SERVELAB_SIMBOX_FAULTS));
  if (env.SERVELAB_SIMBOX_TOPOLOGY) config.topology = env.SERVELAB_SIMBOX_TOPOLOGY;
  if (config.topology !== 'pcie') config.topology = 'nvlink';
  const model = resolveGpuModel(config.gpu) ?? GPU_MODELS.h100;
  config.gpu = model.key;
  config.count = Math.min(8, Math.max(1, Math.floor(config.count) || 1));
  if (!(config.timeScale > 0)) config.timeScale = DEFAULT_CONFIG.timeScale;
  config.dir = dir;
  config.gpuModel = model;
  return config;
}

export function saveConfig(config, env = process.env) {
  const dir = stateDir(env);
  mkdirSync(dir, { recursive: true });
  const { gpu, count, seed, timeScale, faults, docker, topology } = config;
  writeJsonAtomic(join(dir, 'simbox.json'), { gpu, count, seed, timeScale, faults, ...(docker && docker !== 'off' ? { docker } : {}), ...(topology === 'pcie' ? { topology } : {}) });
}

/**
 * The box's launch counter: each engine server takes the next number for its noise seed, so successive launches
 * differ and a box re-seeded by `simbox config --seed` (which resets it) repeats the same sequence.
 */
export function nextLaunch(config) {
  const path = join(config.dir, 'launches.json');
  const n = readJson(path, { count: 0 }).count ?? 0;
  try {
    mkdirSync(config.dir, { recursive: true });
    writeJsonAtomic(path, { count: n + 1 });
  } catch {
    // an unwritable state folder only costs the launch-to-launch variation
  }
  return n;
}

export function resetLaunches(config) {
  rmSync(join(config.dir, 'launches.json'), { force: true });
}

/** The GPUs of the box, with stable UUIDs and bus ids (GPU 0 of a 1-GPU H200 box is the captured one). */
export function boxGpus(config) {
  const m = config.gpuModel;
  const gpus = [];
  for (let i = 0; i < config.count; i++) {
    const uuid = m.key === 'h200' && i === 0 ? 'GPU-7a83c607-3a4d-9c92-985a-881af537acf6' : uuidFor(m.key, i, config.seed);
    const busId = `00000000:00:${(6 + i).toString(16).toUpperCase().padStart(2, '0')}.0`;
    const idlePower = i === 0 ? m.idlePowerW : m.idlePowerW + ((hash32('power', m.key, i) % 900) - 450) / 100;
    const temp = m.idleTempC + (i === 0 ? 0 : (hash32('temp', m.key, i) % 5) - 2);
    gpus.push({ index: i, uuid, busId, model: m, idlePowerW: Math.round(idlePower * 100) / 100, idleTempC: temp });
  }
  return gpus;
}

function uuidFor(key, index, seed) {
  const hex = [0, 1, 2, 3].map((k) => hash32('gpu-uuid', key, index, seed, k).toString(16).padStart(8, '0')).join('');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export function pidAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== 'EPERM') return false;
  }
  // A killed process whose parent has not reaped it yet (a zombie) holds no GPU memory.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

function procDir(env) {
  return join(stateDir(env), 'processes');
}

/**
 * Registers a process holding simulated GPU memory: {pid, name, gpus: [index], memoryMiB (per GPU), ...}.
 * nvidia-smi lists it until the record is removed or the pid dies.
 */
export function registerGpuProcess(record, env = process.env) {
  const dir = procDir(env);
  mkdirSync(dir, { recursive: true });
  writeJsonAtomic(join(dir, `${record.pid}.json`), { ...record, startedAt: record.startedAt ?? new Date().toISOString() });
}

export function unregisterGpuProcess(pid, env = process.env) {
  rmSync(join(procDir(env), `${pid}.json`), { force: true });
}

/** Live GPU processes; records of dead pids are removed on the way (a killed server releases its memory). */
export function listGpuProcesses(env = process.env) {
  const dir = procDir(env);
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    const path = join(dir, name);
    const rec = readJson(path, null);
    if (!rec) continue;
    if (!pidAlive(rec.pid)) {
      rmSync(path, { force: true });
      continue;
    }
    out.push(rec);
  }
  return out.sort((a, b) => a.pid - b.pid);
}

/** MiB in use per GPU index. */
export function memoryInUse(config, env = process.env) {
  const used = new Array(config.count).fill(0);
  for (const p of listGpuProcesses(env)) for (const g of p.gpus ?? []) if (g < used.length) used[g] += p.memoryMiB;
  return used;
}

/** Which GPUs a process sees, from CUDA_VISIBLE_DEVICES (indices or UUIDs), as box indices. */
export function visibleGpus(config, env = process.env) {
  const all = boxGpus(config);
  const spec = env.CUDA_VISIBLE_DEVICES;
  if (spec === undefined) return { gpus: all.map((g) => g.index), invalid: null };
  const out = [];
  for (const item of spec.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const g = /^\d+$/.test(item) ? all[Number(item)] : all.find((x) => x.uuid === item || x.uuid.startsWith(item));
    // CUDA stops at the first invalid entry.
    if (!g) return { gpus: out, invalid: out.length === 0 ? item : null };
    out.push(g.index);
  }
  return { gpus: out, invalid: null };
}
