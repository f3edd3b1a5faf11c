import { z } from 'zod';
import { BenchResultSchema } from './bench-result';

/**
 * One row of the results library: a benchmark run measured here or imported from a file, with its normalized
 * result. A measured run that failed is kept too (its metrics are empty and `error` says why): a failure is a result.
 */
export const ResultEntrySchema = z.object({
  id: z.string().regex(/^res-[0-9a-z]+-[0-9a-f]{8}$/, 'is not a result id'),
  kind: z.enum(['measured', 'imported']),
  status: z.enum(['ok', 'failed']),
  /** When the entry was added to the library (ISO 8601). */
  addedAt: z.iso.datetime({ offset: true }),
  /** A short name for lists: the workload and server for a measured run, the file and block for an import. */
  title: z.string().max(500),
  /** Why a measured run has no numbers. */
  error: z.string().max(4000).optional(),
  /** The client's command as it ran (measured runs). */
  command: z.string().max(100_000).optional(),
  /** The tail of the client's console output (measured runs), to read why it failed. */
  logTail: z.string().max(64 * 1024).optional(),
  result: BenchResultSchema,
  /**
   * GPUs the measured server held, for the per-GPU metrics: a study's run records its trial's count; an imported file
   * says nothing of it, so an import has one only when the user gave it. Absent: per-GPU metrics are unknown.
   */
  gpuCount: z.number().int().min(1).max(512).optional(),
});
export type ResultEntry = z.infer<typeof ResultEntrySchema>;

export const RESULTS_LIBRARY_VERSION = 1;

export const ResultsLibraryFileSchema = z.object({
  schemaVersion: z.literal(RESULTS_LIBRARY_VERSION),
  entries: z.array(ResultEntrySchema),
});
