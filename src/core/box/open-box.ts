import type { Client } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import type { SshConnectionPool } from '../ssh/connection-pool';
import type { ResolvedSshTarget } from '../ssh/ssh-target';
import type { JobRegistry } from '../jobs/job-registry';
import type { BoxTransport } from './box-transport';
import { SshBoxTransport } from './ssh-box-transport';
import type { LocalBoxTransport } from './local-box-transport';
import { demoLabPaths, demoLabTransport, prepareDemoBox, type SimboxNode } from './demo-lab';

/** Where a box's SSH connection comes from: the app's pool, or one connection of its own (`oneConnection`). */
export type BoxConnections = Pick<SshConnectionPool, 'provider' | 'release'>;

/** What a box reports back, and where the jobs started through it are recorded. */
export interface BoxHooks {
  registry?: JobRegistry;
  /** Told about every failure to obtain the SSH connection (unknown host key, refused login…). */
  onConnectError?: (error: unknown) => void;
  /** Called once by release(). */
  onRelease?: () => void;
}

/** The box a front door names: the built-in demo lab, or a host over SSH. */
export type BoxSpec =
  | {
      kind: 'demo';
      dataDir: string;
      /** Which of the demo lab's boxes (default 1). */
      box?: number;
      /** The simulated GPU box's `bin/` folder; null when this installation has none. */
      simboxBinDir: string | null;
      /** The Node.js its simulated tools run on; default: the one running Servelab. */
      node?: SimboxNode;
      /** Sets the simulated box up before first use; default: `prepareDemoBox` every time. */
      prepare?: (box: LocalBoxTransport) => Promise<void>;
    }
  | { kind: 'ssh'; hostId: string; target: ResolvedSshTarget; connections: BoxConnections };

/** The demo lab refused because this installation ships without the simulated GPU box. */
export function noDemoLabError(): ServelabError {
  return new ServelabError('NOT_SUPPORTED', 'The demo lab needs the simulated GPU box shipped with Servelab (resources/simbox), and this installation has none.');
}

/**
 * Opens the box a spec names, the one way the core and the CLI reach a box: the demo lab as local processes, set up
 * before it is returned; an SSH host over the connections given (taken on first use, let go by release()).
 */
export async function openBox(spec: BoxSpec, hooks: BoxHooks = {}): Promise<BoxTransport> {
  if (spec.kind === 'ssh') return new SshBoxTransport({ hostId: spec.hostId, target: spec.target, pool: spec.connections, ...hooks });
  if (!spec.simboxBinDir) throw noDemoLabError();
  const { onConnectError: _noConnection, ...local } = hooks;
  const transport = demoLabTransport({
    dataDir: spec.dataDir,
    simboxBinDir: spec.simboxBinDir,
    ...(spec.box !== undefined ? { box: spec.box } : {}),
    ...(spec.node ? { node: spec.node } : {}),
    ...local,
  });
  try {
    await (spec.prepare ?? ((box) => prepareDemoBox(box, demoLabPaths(spec.dataDir, spec.box))))(transport);
  } catch (error) {
    transport.release();
    throw error;
  }
  return transport;
}

/** Connections of one: every use shares the connection `opening` resolves to, and releasing the box ends it. */
export function oneConnection(opening: Promise<Client>): BoxConnections {
  return {
    provider: () => () => opening,
    release: () => {
      void opening.then(
        (client) => client.end(),
        () => {},
      );
    },
  };
}
