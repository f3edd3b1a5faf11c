import { randomBytes } from 'node:crypto';
import type { CallHandlers } from '../dispatch/dispatcher';
import type { EventBus } from '../dispatch/event-bus';
import { HF_TOKEN_REF } from '../../shared/model/model-prefetch';
import type { ReleasableBox } from './engine-handlers';
import { prefetchModel } from './model-prefetch';

export interface ModelHandlerDeps {
  events: EventBus;
  box(hostId: string): Promise<ReleasableBox>;
  /** Named secrets (the OS keychain), for the Hugging Face token. */
  resolveSecret?: (secretRef: string) => Promise<string | null>;
}

type ModelCalls = Pick<CallHandlers, 'models:prefetch'>;

/**
 * `models:prefetch`: answers with a job id at once; the download runs on the box as a detached job and reports as
 * models:progress, then models:done with the same id (a request refused before the job starts fails the call itself). Without an explicit token reference the stored `hf-token` is
 * used when there is one, so public models need no setup and gated ones work once the token is stored.
 */
export function modelHandlers(deps: ModelHandlerDeps): ModelCalls {
  return {
    'models:prefetch': async ({ hostId, engine, version, model, revision, hfTokenRef }) => {
      const tokenRef = hfTokenRef ?? ((await deps.resolveSecret?.(HF_TOKEN_REF)) != null ? HF_TOKEN_REF : undefined);
      const box = await deps.box(hostId);
      const jobId = `prefetch-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
      let markStarted = () => {};
      const started = new Promise<void>((resolve) => (markStarted = resolve));
      const run = prefetchModel(box, {
        engine,
        version,
        model,
        ...(revision !== undefined ? { revision } : {}),
        ...(tokenRef !== undefined ? { hfTokenRef: tokenRef } : {}),
        ...(deps.resolveSecret ? { resolveSecret: deps.resolveSecret } : {}),
        onJob: markStarted,
        onProgress: (p) => deps.events.emit('models:progress', { hostId, jobId, done: p.done, total: p.total, ...(p.line ? { line: p.line } : {}) }),
      });
      // A request the box refuses before any job runs (not installed, missing secret, no such path) fails the call.
      const early = await Promise.race([started.then(() => 'started' as const), run.then(() => 'finished' as const, (error: unknown) => ({ error }))]);
      if (typeof early === 'object') {
        box.release();
        throw early.error;
      }
      void run
        .then(
          (result) => deps.events.emit('models:done', { hostId, jobId, ok: true, message: result.message, localPath: result.localPath }),
          (error: unknown) => deps.events.emit('models:done', { hostId, jobId, ok: false, message: error instanceof Error ? error.message : String(error) }),
        )
        .finally(() => box.release());
      return { jobId };
    },
  };
}
