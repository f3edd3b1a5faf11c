// `simbox`: configures the simulated box (GPU model and count, seed, time scale, faults) and shows its state.

import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GPU_MODELS, resolveGpuModel } from './catalog.mjs';
import { syntheticShareGpt } from './simulate.mjs';
import { FAULTS, listGpuProcesses, loadConfig, pidAlive, registerGpuProcess, resetLaunches, saveConfig, stateDir, unregisterGpuProcess } from './state.mjs';
import { dockerSetting } from './docker.mjs';
import { boxTopology, TOPOLOGIES } from './topology.mjs';

const USAGE = `usage: simbox <command>

  config [--gpu h200|h100|a100] [--count 1-8] [--seed N] [--time-scale X] [--docker on|off|none]
         [--topology nvlink|pcie]
                                   set (or show) the box; settings live in ${'$'}SERVELAB_SIMBOX_HOME/simbox.json;
                                   --topology pcie: PCIe cards without NVLink (pairs on one switch);
                                   --docker on: the simulated docker; off: none of its own (a real docker later on
                                   PATH is used); none: no docker at all
  fault list                       faults and whether they are on
  fault <name> on [VALUE]          switch a fault on (crash-after 5, slow-startup 10, stray 30000 …)
  fault <name> off                 switch it off
  status [--json]                  box, faults and simulated processes holding GPU memory
  reset                            default box, no faults, stray process ended
  path                             the folder to put first on PATH
  make-sharegpt FILE [--count N] [--seed S]
                                   write a synthetic dataset in ShareGPT's format
`;

const BIN_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin');

function flagValue(argv, name) {
  const i = argv.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i < 0) return undefined;
  return argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
}

function describe(config) {
  const m = config.gpuModel;
  const faults = Object.entries(config.faults).filter(([, v]) => v !== false && v !== undefined);
  return [
    `box: ${config.count} x ${m.name} (${m.memoryMiB} MiB, sm ${m.computeCap}) — simulated`,
    `topology: ${boxTopology(config) === 'pcie' ? 'PCIe only (GPU pairs on one switch, no NVLink)' : 'NVLink between every pair'}`,
    `state folder: ${config.dir}`,
    `seed: ${config.seed}   time scale: ${config.timeScale} (1 s on a real GPU takes ${config.timeScale} s here)`,
    `docker: ${dockerSetting() === 'on' ? 'simulated (docker run starts simulated engine containers)' : dockerSetting() === 'none' ? 'none' : 'off (a real docker later on PATH, if any, answers)'}`,
    `faults: ${faults.length ? faults.map(([k, v]) => (v === true ? k : `${k}=${typeof v === 'object' ? v.mib ?? JSON.stringify(v) : v}`)).join(', ') : 'none'}`,
  ].join('\n');
}

function startStray(mib, gpu) {
  // A real (idle) process, so the product can find it by pid and kill it like a leftover server.
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { detached: true, stdio: 'ignore' });
  child.unref();
  registerGpuProcess({ pid: child.pid, name: 'python3', gpus: [gpu], memoryMiB: mib, stray: true, simulated: true });
  return child.pid;
}

function stopStray(fault) {
  if (fault && typeof fault === 'object' && fault.pid && pidAlive(fault.pid)) {
    try {
      process.kill(fault.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    unregisterGpuProcess(fault.pid);
  }
}

export async function main(argv) {
  const cmd = argv[0];
  const config = loadConfig();
  if (!cmd || cmd === '-h' || cmd === '--help') {
    process.stdout.write(USAGE);
    return;
  }
  if (cmd === 'path') {
    process.stdout.write(`${BIN_DIR}\n`);
    return;
  }
  if (cmd === 'config') {
    const gpu = flagValue(argv, '--gpu');
    const count = flagValue(argv, '--count');
    const seed = flagValue(argv, '--seed');
    const scale = flagValue(argv, '--time-scale');
    const docker = flagValue(argv, '--docker');
    const topology = flagValue(argv, '--topology');
    if (topology !== undefined) {
      if (!TOPOLOGIES.includes(topology)) {
        process.stderr.write(`simbox: --topology must be ${TOPOLOGIES.join(' or ')}\n`);
        process.exitCode = 2;
        return;
      }
      config.topology = topology;
    }
    if (docker !== undefined) {
      if (!['on', 'off', 'none'].includes(docker)) {
        process.stderr.write('simbox: --docker must be on, off or none\n');
        process.exitCode = 2;
        return;
      }
      config.docker = docker;
    }
    if (gpu !== undefined) {
      const m = resolveGpuModel(gpu);
      if (!m) {
        process.stderr.write(`simbox: unknown GPU "${gpu}" (known: ${Object.keys(GPU_MODELS).join(', ')})\n`);
        process.exitCode = 2;
        return;
      }
      config.gpu = m.key;
    }
    if (count !== undefined) {
      const n = Number(count);
      if (!Number.isInteger(n) || n < 1 || n > 8) {
        process.stderr.write('simbox: --count must be 1 to 8\n');
        process.exitCode = 2;
        return;
      }
      config.count = n;
    }
    if (seed !== undefined) {
      config.seed = Number(seed);
      resetLaunches(config);
    }
    if (scale !== undefined) {
      if (!(Number(scale) > 0)) {
        process.stderr.write('simbox: --time-scale must be a positive number\n');
        process.exitCode = 2;
        return;
      }
      config.timeScale = Number(scale);
    }
    saveConfig(config);
    process.stdout.write(`${describe(loadConfig())}\n`);
    return;
  }
  if (cmd === 'fault') {
    const name = argv[1];
    if (!name || name === 'list') {
      for (const [k, doc] of Object.entries(FAULTS)) process.stdout.write(`${config.faults[k] ? 'on ' : 'off'}  ${k.padEnd(13)} ${doc}\n`);
      return;
    }
    if (!FAULTS[name]) {
      process.stderr.write(`simbox: unknown fault "${name}" (known: ${Object.keys(FAULTS).join(', ')})\n`);
      process.exitCode = 2;
      return;
    }
    const state = argv[2];
    if (state === 'off') {
      if (name === 'stray') stopStray(config.faults.stray);
      delete config.faults[name];
    } else if (state === 'on') {
      const raw = argv[3];
      const value = raw === undefined ? true : Number.isFinite(Number(raw)) ? Number(raw) : raw;
      if (name === 'stray') {
        stopStray(config.faults.stray);
        const mib = value === true ? 30000 : Number(value);
        const gpu = Number(flagValue(argv, '--gpu') ?? 0);
        config.faults.stray = { pid: startStray(mib, gpu), mib, gpu };
      } else config.faults[name] = value;
    } else {
      process.stderr.write(`usage: simbox fault ${name} on|off [VALUE]\n`);
      process.exitCode = 2;
      return;
    }
    saveConfig(config);
    process.stdout.write(`${describe(loadConfig())}\n`);
    return;
  }
  if (cmd === 'status') {
    const procs = listGpuProcesses();
    if (argv.includes('--json')) {
      const { gpuModel, ...rest } = config;
      process.stdout.write(`${JSON.stringify({ ...rest, gpuName: gpuModel.name, simulated: true, processes: procs }, null, 2)}\n`);
      return;
    }
    process.stdout.write(`${describe(config)}\n`);
    if (procs.length === 0) process.stdout.write('processes: none\n');
    for (const p of procs) process.stdout.write(`process ${p.pid} ${p.name}${p.engine ? ` (${p.engine} ${p.version}, ${p.model}, port ${p.port})` : p.stray ? ' (stray)' : ''}: ${p.memoryMiB} MiB on GPU ${p.gpus.join(',')}\n`);
    return;
  }
  if (cmd === 'reset') {
    stopStray(config.faults.stray);
    rmSync(join(stateDir(), 'simbox.json'), { force: true });
    const left = listGpuProcesses();
    process.stdout.write(`${describe(loadConfig())}\n`);
    if (left.length) process.stdout.write(`still running (not touched): ${left.map((p) => `${p.pid} ${p.name}`).join(', ')}\n`);
    return;
  }
  if (cmd === 'make-sharegpt') {
    const file = argv[1];
    if (!file) {
      process.stderr.write('usage: simbox make-sharegpt FILE [--count N] [--seed S]\n');
      process.exitCode = 2;
      return;
    }
    const count = Number(flagValue(argv, '--count') ?? 200);
    const seed = flagValue(argv, '--seed') ?? 0;
    writeFileSync(file, JSON.stringify(syntheticShareGpt(count, seed)));
    process.stdout.write(`wrote ${count} synthetic ShareGPT conversations to ${file}\n`);
    return;
  }
  process.stderr.write(USAGE);
  process.exitCode = 2;
}
