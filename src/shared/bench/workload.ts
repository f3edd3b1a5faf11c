import { z } from 'zod';
import { parseOrBadInput } from '../contract/errors';
import { arrivalOf, BurstinessSchema, describeArrival, RampUpSchema } from './arrival';

/**
 * A benchmark workload, independent of the server it runs against: what `vllm bench serve` sends and how fast.
 * The argv is built from it by `buildBenchServeArgv`; nothing here is a flag name.
 */

const positiveInt = (max: number) =>
  z.number().int('must be a whole number').min(1, 'must be at least 1').max(max, `must be at most ${max}`);

// A path on the box; it reaches the client as one argv word.
const BoxPathSchema = z
  .string()
  .min(1, 'is required')
  .max(4096, 'is longer than 4096 characters')
  .refine((s) => !/[\0\r\n]/.test(s), 'must not contain NUL or line breaks')
  .refine((s) => !s.startsWith('-'), 'must not start with "-"');

export const ShareGptDatasetSchema = z
  .object({
    kind: z.literal('sharegpt'),
    /** The JSON file on the box; empty means the dataset cache's copy (`~/.servelab/datasets/`). */
    path: BoxPathSchema.optional(),
    /** Fixed completion length instead of each conversation's own. */
    outputLen: positiveInt(1_000_000).optional(),
  })
  .strict();

export const RandomDatasetSchema = z
  .object({
    kind: z.literal('random'),
    inputLen: positiveInt(10_000_000),
    outputLen: positiveInt(1_000_000),
    /** vLLM draws lengths uniformly in [len·(1−r), len·(1+r)]; 0 gives fixed lengths. */
    rangeRatio: z.number().min(0, 'must be at least 0').lt(1, 'must be below 1').optional(),
    /** A random prefix shared by every request (prefix-cache friendly). */
    prefixLen: z.number().int('must be a whole number').min(0, 'must be at least 0').max(10_000_000).optional(),
  })
  .strict();

export const CustomDatasetSchema = z
  .object({
    kind: z.literal('custom'),
    /** JSON Lines with a "prompt" field per line, on the box. */
    path: BoxPathSchema,
    outputLen: positiveInt(1_000_000).optional(),
  })
  .strict();

export const DatasetSchema = z.discriminatedUnion('kind', [ShareGptDatasetSchema, RandomDatasetSchema, CustomDatasetSchema], {
  error: 'must be a sharegpt, random or custom dataset',
});
export type Dataset = z.infer<typeof DatasetSchema>;

export const BENCH_BACKENDS = ['openai-chat', 'openai'] as const;
export type BenchBackend = (typeof BENCH_BACKENDS)[number];

/** The endpoint each backend needs: vLLM's `openai` posts to completions, `openai-chat` to chat completions. */
export const BACKEND_ENDPOINT: Record<BenchBackend, string> = {
  'openai-chat': '/v1/chat/completions',
  openai: '/v1/completions',
};

export const WorkloadSchema = z
  .object({
    /** Short, stable name used in file names and reports, e.g. `sharegpt-c4`. */
    id: z
      .string()
      .min(1, 'is required')
      .max(64, 'is longer than 64 characters')
      .regex(/^[a-z0-9][a-z0-9._-]*$/, 'may only hold lower-case letters, digits and . _ - (starting with a letter or digit)'),
    label: z.string().max(200, 'is longer than 200 characters').optional(),
    dataset: DatasetSchema,
    numPrompts: positiveInt(1_000_000),
    /** In-flight request cap; absent means unbounded. */
    maxConcurrency: positiveInt(100_000).optional(),
    /** Requests per second; absent means all at once (`inf`), unless ramped. How they arrive: `arrival.ts`. */
    requestRate: z.number().gt(0, 'must be above 0').max(1_000_000).optional(),
    /** 1 is a Poisson process; other values a Gamma distribution (gap CV 1/√B); `inf` constant gaps (client 0.11.1+). */
    burstiness: BurstinessSchema.optional(),
    /** A rate that climbs from start to end over the run (`--ramp-up-*`); excludes `requestRate`, as the client does. */
    rampUp: RampUpSchema.optional(),
    seed: z.number().int('must be a whole number').min(0).max(2 ** 31 - 1).optional(),
    ignoreEos: z.boolean().optional(),
    backend: z.enum(BENCH_BACKENDS, { error: `must be one of ${BENCH_BACKENDS.join(', ')}` }).default('openai-chat'),
  })
  .strict()
  .superRefine((w, ctx) => {
    // vllm/benchmarks/serve.py@v0.11.0 main_async: "When using ramp-up, do not specify --request-rate."
    if (w.rampUp && w.requestRate !== undefined) ctx.addIssue({ code: 'custom', path: ['requestRate'], message: 'must be left out of a ramped workload (the ramp sets the rate)' });
  });
export type Workload = z.infer<typeof WorkloadSchema>;
export type WorkloadInput = z.input<typeof WorkloadSchema>;

/** Parses a workload, or throws BAD_INPUT whose issues name each wrong field (e.g. `dataset.inputLen`). */
export function parseWorkload(input: unknown): Workload {
  return parseOrBadInput(WorkloadSchema, input, 'workload');
}

/** One line for lists and logs: "ShareGPT, 100 prompts, concurrency 4", then the arrivals unless all at once. */
export function describeWorkload(w: Workload): string {
  const data =
    w.dataset.kind === 'sharegpt'
      ? 'ShareGPT'
      : w.dataset.kind === 'random'
        ? `random ${w.dataset.inputLen} in / ${w.dataset.outputLen} out`
        : `custom ${w.dataset.path}`;
  const load = w.maxConcurrency !== undefined ? `concurrency ${w.maxConcurrency}` : 'unbounded concurrency';
  const arrival = arrivalOf(w);
  return `${data}, ${w.numPrompts} prompts, ${load}${arrival.kind === 'burst' ? '' : `, ${describeArrival(arrival)}`}`;
}

const sharegpt = (numPrompts: number, maxConcurrency?: number): Workload => ({
  id: maxConcurrency !== undefined ? `sharegpt-c${maxConcurrency}` : `sharegpt-${numPrompts}-unbounded`,
  label: maxConcurrency !== undefined ? `ShareGPT, ${numPrompts} prompts, concurrency ${maxConcurrency}` : `ShareGPT, ${numPrompts} prompts, unbounded`,
  dataset: { kind: 'sharegpt' },
  numPrompts,
  ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
  backend: 'openai-chat',
});

const random = (inputLen: number, outputLen: number, numPrompts: number): Workload => ({
  id: `random-${inputLen}-${outputLen}`,
  label: `Random ${inputLen} in / ${outputLen} out, ${numPrompts} prompts, seed 42`,
  dataset: { kind: 'random', inputLen, outputLen },
  numPrompts,
  seed: 42,
  backend: 'openai-chat',
});

/** The workloads of the reference studies: latency at low concurrency, throughput unbounded. */
export const WORKLOAD_PRESETS: readonly Workload[] = [
  sharegpt(100, 1),
  sharegpt(100, 2),
  sharegpt(100, 4),
  sharegpt(100, 8),
  sharegpt(1000),
  random(32000, 100, 100),
  random(4000, 200, 500),
  random(2000, 100, 500),
  random(128, 4, 1000),
];

/** The request rates of a constant-rate sweep, in req/s: light load to past what one GPU serves of ShareGPT. */
export const CONSTANT_RATE_SWEEP_RPS = [1, 4, 8, 16] as const;

/**
 * ShareGPT at a constant rate, unbounded concurrency: how a configuration holds up as offered load grows. 200 prompts
 * give 200 s of load at 1 req/s and 12.5 s at 16. The constant rate needs benchmark client 0.11.1 or later (arrival.ts).
 */
export function constantRateWorkload(rate: number, numPrompts = 200): Workload {
  return {
    id: `sharegpt-rate${rate}`,
    label: `ShareGPT, ${numPrompts} prompts, constant ${rate} req/s`,
    dataset: { kind: 'sharegpt' },
    numPrompts,
    requestRate: rate,
    burstiness: 'inf',
    backend: 'openai-chat',
  };
}

export const CONSTANT_RATE_SWEEP: readonly Workload[] = CONSTANT_RATE_SWEEP_RPS.map((rate) => constantRateWorkload(rate));

export function workloadPreset(id: string): Workload | undefined {
  return WORKLOAD_PRESETS.find((w) => w.id === id);
}
