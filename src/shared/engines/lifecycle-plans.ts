import type { Readiness, StopPlan } from './types';

/**
 * Ready when the engine prints `readyLine` and its `/health` answers 200: the three engines serve the OpenAI API with
 * uvicorn, and each prints its own line once it really answers (vllm/entrypoints/launcher.py, python/sglang/srt/entrypoints/http_server.py,
 * tensorrt_llm/serve/openai_server.py).
 */
export function healthReadiness(readyLine: RegExp, notes: string[]): Readiness {
  return { healthPath: '/health', readyLogPatterns: [readyLine], healthIsReadyWhen: (status) => status === 200, notes };
}

/**
 * TERM to the whole process group, 30 s to exit, then KILL: every engine forks workers (engine core, TP ranks,
 * schedulers, MPI) that must go with the API server.
 */
export function processGroupStop(notes: string[]): StopPlan {
  return {
    processGroup: true,
    steps: [
      { signal: 'SIGTERM', waitMs: 30_000 },
      { signal: 'SIGKILL', waitMs: 10_000 },
    ],
    notes,
  };
}
