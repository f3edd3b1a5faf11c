import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ServelabError } from '../../shared/contract';
import { demoLabHostId, type Host } from '../../shared/model/host';
import { shellQuote } from '../../shared/shell-quote';
import type { JobRegistry } from '../jobs/job-registry';
import { LocalBoxTransport } from './local-box-transport';

export const DEMO_LAB_LABEL = 'Demo lab (simulated H100 box)';

/** The demo lab (or its box `box`) as a host: built in, reached without SSH, so its SSH fields are empty. */
export function demoLabHost(now: Date = new Date(), box = 1): Host {
  const at = now.toISOString();
  return {
    id: demoLabHostId(box),
    kind: 'demo',
    label: box === 1 ? DEMO_LAB_LABEL : `Demo lab, box ${box} (simulated H100 box)`,
    alias: null,
    address: 'localhost',
    port: null,
    user: null,
    identityFile: null,
    proxyJump: null,
    hasSavedPassword: false,
    createdAt: at,
    updatedAt: at,
  };
}

export interface DemoLabPaths {
  root: string;
  /** HOME of the simulated box: engines and job folders go here, as on a real box. */
  home: string;
  /** SERVELAB_SIMBOX_HOME: the simulated box's configuration and GPU processes. */
  simboxHome: string;
  /** Holds the `node` the simulated tools run on. */
  nodeBin: string;
}

/** Box 1 lives in <dataDir>/demo-lab, box N in <dataDir>/demo-lab-N: separate homes, engines and GPU states. */
export function demoLabPaths(dataDir: string, box = 1): DemoLabPaths {
  const root = join(dataDir, demoLabHostId(box));
  return { root, home: join(root, 'home'), simboxHome: join(root, 'simbox'), nodeBin: join(root, 'bin') };
}

// The app's settings for a simulated box must not leak in: this box is configured by its own state folder.
const NOT_INHERITED = /^(SERVELAB_SIMBOX_.*|VIRTUAL_ENV|CUDA_VISIBLE_DEVICES|NODE_OPTIONS|ELECTRON_RUN_AS_NODE|PWD|OLDPWD)$/;

/**
 * The Node.js runtime the simulated tools run on: a plain `node`, or Electron's own binary run as Node
 * (ELECTRON_RUN_AS_NODE), which a packaged app forbids (its RunAsNode fuse is off) and so ships a Node of its own.
 */
export interface SimboxNode {
  execPath: string;
  isElectron: boolean;
}

export interface DemoLabTransportOptions {
  dataDir: string;
  /** Which of the demo lab's boxes (default 1, the demo lab itself). */
  box?: number;
  simboxBinDir: string;
  registry?: JobRegistry;
  /** Default: this process's environment. */
  baseEnv?: NodeJS.ProcessEnv;
  /** The Node.js the simulated tools run on; default: the one running Servelab (Electron runs as Node). */
  node?: SimboxNode;
  onRelease?: () => void;
}

/**
 * The demo lab's box: local processes with HOME = <dataDir>/demo-lab/home, the simbox commands first on PATH and
 * its state in <dataDir>/demo-lab/simbox.
 */
export function demoLabTransport(opts: DemoLabTransportOptions): LocalBoxTransport {
  const box = opts.box ?? 1;
  const paths = demoLabPaths(opts.dataDir, box);
  const node = opts.node ?? { execPath: process.execPath, isElectron: process.versions.electron !== undefined };
  writeNodeShim(paths.nodeBin, node.execPath, node.isElectron);
  const baseEnv = Object.fromEntries(Object.entries(opts.baseEnv ?? process.env).filter(([name]) => !NOT_INHERITED.test(name)));
  return new LocalBoxTransport({
    hostId: demoLabHostId(box),
    home: paths.home,
    pathPrefix: [opts.simboxBinDir, paths.nodeBin],
    // The demo lab has no docker: the machine's own docker must not appear as the simulated box's.
    env: { SERVELAB_SIMBOX_HOME: paths.simboxHome, SERVELAB_SIMBOX_DOCKER: 'none' },
    baseEnv,
    ...(opts.registry ? { registry: opts.registry } : {}),
    ...(opts.onRelease ? { onRelease: opts.onRelease } : {}),
  });
}

/** On first use the simulated box becomes 1 × H100 SXM 80GB; later its own configuration (faults, …) is kept. */
export async function prepareDemoBox(transport: LocalBoxTransport, paths: DemoLabPaths): Promise<void> {
  if (existsSync(join(paths.simboxHome, 'simbox.json'))) return;
  const result = await transport.run('simbox config --gpu h100 --count 1\n', { timeoutSeconds: 60 });
  if (result.code !== 0 || !existsSync(join(paths.simboxHome, 'simbox.json'))) {
    throw new ServelabError(
      'REMOTE_COMMAND_FAILED',
      `The demo lab's simulated box could not be set up (exit status ${result.code ?? 'signal'}): ${result.stderr.trim() || result.stdout.trim() || 'no message'}`,
    );
  }
}

/**
 * The simbox commands start with `#!/usr/bin/env node`. A packaged app has no `node` on PATH (and a login profile
 * may hide the user's), so the demo box gets one: the runtime the core was given (SimboxNode).
 */
function writeNodeShim(dir: string, execPath: string, isElectron: boolean): void {
  const file = join(dir, 'node');
  const text = `#!/bin/sh\n# The Node.js the demo lab's simulated tools run on (Servelab's own, or the one its package ships).\n${isElectron ? 'ELECTRON_RUN_AS_NODE=1 ' : ''}exec ${shellQuote(execPath)} "$@"\n`;
  let current: string | null = null;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // Not written yet.
  }
  if (current === text) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, text, { mode: 0o755 });
}
