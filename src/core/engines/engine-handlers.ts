import { randomBytes } from 'node:crypto';
import { ServelabError } from '../../shared/contract';
import type { CallHandlers } from '../dispatch/dispatcher';
import type { EventBus } from '../dispatch/event-bus';
import type { EngineBox } from './engine-box';
import { EngineInstaller } from './engine-installer';
import { launchServer, readServerRecord, stopRecordedServer, type RunningServer } from './server-launcher';
import { listServerRecords } from './server-records';

/** A box the handlers may hold for as long as an install or a server needs it, then release. */
export type ReleasableBox = EngineBox & { release(): void };

export interface EngineHandlerDeps {
  events: EventBus;
  box(hostId: string): Promise<ReleasableBox>;
  /** Secret values by reference (the OS keychain), for a config's secret environment. */
  resolveSecret?: (secretRef: string) => Promise<string | null>;
  /**
   * Throws when the host may not use docker mode. The demo lab must refuse it: a docker found there would be the
   * real machine's, not the simulated box's.
   */
  checkDockerAllowed?: (hostId: string) => void;
}

type EngineCalls = Pick<CallHandlers, 'engines:list' | 'engines:install' | 'engines:remove' | 'servers:launch' | 'servers:stop' | 'servers:list' | 'servers:onBox'>;

interface ServerEntry {
  hostId: string;
  server: RunningServer;
  box: ReleasableBox;
}

/**
 * The engines and servers calls. A launched server keeps its box until it is stopped; the server itself runs as a
 * detached job and outlives the app (then `servelab engine stop` finds it through its record on the box).
 */
export function engineHandlers(deps: EngineHandlerDeps): EngineCalls {
  const servers = new Map<string, ServerEntry>();

  async function withBox<T>(hostId: string, work: (box: EngineBox) => Promise<T>): Promise<T> {
    const box = await deps.box(hostId);
    try {
      return await work(box);
    } finally {
      box.release();
    }
  }

  return {
    'engines:list': ({ hostId }) => withBox(hostId, (box) => new EngineInstaller(box).list()),

    'engines:install': async ({ hostId, engine, version, force, mode }) => {
      if (mode === 'docker') deps.checkDockerAllowed?.(hostId);
      const box = await deps.box(hostId);
      // The events name the install by this id from the first one on, whether or not a remote job runs.
      const jobId = `install-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
      let start;
      try {
        start = await new EngineInstaller(box).start(engine, version, {
          force: force ?? false,
          ...(mode ? { mode } : {}),
          onLog: (text) => deps.events.emit('engines:log', { hostId, jobId, text }),
          onProgress: (p) => deps.events.emit('engines:progress', { hostId, jobId, phase: p.phase, percent: p.percent, ...(p.line ? { line: p.line } : {}) }),
        });
      } catch (error) {
        box.release();
        throw error;
      }
      void start.done
        .then(
          (result) => deps.events.emit('engines:done', { hostId, jobId, ok: result.ok, skipped: result.skipped, message: result.message }),
          (error: unknown) => deps.events.emit('engines:done', { hostId, jobId, ok: false, skipped: false, message: error instanceof Error ? error.message : String(error) }),
        )
        .finally(() => box.release());
      return { jobId, remoteJobId: start.jobId };
    },

    'engines:remove': ({ hostId, engine, version }) => {
      for (const entry of servers.values()) {
        if (entry.hostId === hostId && entry.server.record.engine === engine && entry.server.record.version === version && isLive(entry.server)) {
          throw new ServelabError('BAD_INPUT', `Server ${entry.server.serverId} runs from ${engine} ${version}; stop it before removing the environment.`);
        }
      }
      return withBox(hostId, (box) => new EngineInstaller(box).remove(engine, version));
    },

    'servers:launch': async ({ hostId, engine, version, config, gpus, readinessTimeoutSeconds, mode, offline, files }) => {
      if (mode === 'docker') deps.checkDockerAllowed?.(hostId);
      const box = await deps.box(hostId);
      let server: RunningServer;
      try {
        server = await launchServer(box, {
          engine,
          version,
          config,
          ...(gpus ? { gpus } : {}),
          ...(mode ? { mode } : {}),
          ...(offline ? { offline } : {}),
          ...(files ? { files } : {}),
          ...(deps.resolveSecret ? { resolveSecret: deps.resolveSecret } : {}),
        });
      } catch (error) {
        box.release();
        throw error;
      }
      const serverId = server.serverId;
      servers.set(serverId, { hostId, server, box });
      server.onLogText((text) => deps.events.emit('servers:log', { serverId, text }));
      server.onState((state, verdict) => {
        deps.events.emit('servers:state', {
          serverId,
          state,
          ...(verdict ? { classification: { class: verdict.class, evidence: verdict.evidence, hint: verdict.hint } } : {}),
        });
        // A failed server's workers may still hold the GPU: stop the group now; servers:stop then returns this report.
        if (state === 'failed') void server.stop().catch(() => {});
      });
      deps.events.emit('servers:state', { serverId, state: 'starting' });
      // Readiness (or the failure and its class) arrives as servers:state events.
      void server.waitReady(readinessTimeoutSeconds !== undefined ? readinessTimeoutSeconds * 1000 : undefined).catch(() => {});
      return { serverId, port: server.port, command: server.record.command };
    },

    'servers:stop': async ({ serverId, hostId }) => {
      const entry = servers.get(serverId);
      if (!entry) {
        if (hostId === undefined) throw new ServelabError('NOT_FOUND', `No server ${serverId} was launched by this app session; name its host to stop it from its record on the box.`);
        const report = await withBox(hostId, async (box) => stopRecordedServer(box, await readServerRecord(box, serverId)));
        return { portClosed: report.portClosed, gpuMemoryReleased: report.gpuMemoryReleased, leftovers: report.leftovers };
      }
      try {
        const report = await entry.server.stop();
        return { portClosed: report.portClosed, gpuMemoryReleased: report.gpuMemoryReleased, leftovers: report.leftovers };
      } finally {
        servers.delete(serverId);
        entry.box.release();
      }
    },

    'servers:onBox': ({ hostId }) =>
      withBox(hostId, async (box) =>
        (await listServerRecords(box)).map((r) => ({
          serverId: r.serverId,
          engine: r.engine,
          version: r.version,
          port: r.port,
          command: r.command,
          startedAt: r.startedAt,
          ...(r.mode ? { mode: r.mode } : {}),
          ...(r.model ? { model: r.model } : {}),
          running: r.running,
          inSession: servers.has(r.serverId),
        })),
      ),

    'servers:list': async () =>
      [...servers.values()].map(({ hostId, server }) => ({
        serverId: server.serverId,
        hostId,
        engine: server.record.engine,
        version: server.record.version,
        port: server.port,
        state: server.state,
        command: server.record.command,
        startedAt: server.record.startedAt,
        ...(server.classification
          ? { classification: { class: server.classification.class, evidence: server.classification.evidence, hint: server.classification.hint } }
          : {}),
      })),
  };
}

function isLive(server: RunningServer): boolean {
  return server.state === 'starting' || server.state === 'ready' || server.state === 'stopping';
}
