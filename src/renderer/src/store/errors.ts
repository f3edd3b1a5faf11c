import { ServelabError, type ErrorInfo } from '../../../shared/contract';

/** Any failure as the envelope the core sends: a ServelabError keeps its code, details and issues, anything else is INTERNAL. */
export function toErrorInfo(error: unknown): ErrorInfo {
  if (error instanceof ServelabError) return error.toInfo();
  return { code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
}
