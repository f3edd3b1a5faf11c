import { z } from 'zod';

/** Every failure that crosses the contract carries one of these codes, so the UI can react to the kind. */
export const ERROR_CODES = [
  'BAD_INPUT',
  'UNKNOWN_CALL',
  'FORBIDDEN_SENDER',
  'NOT_FOUND',
  'HOST_KEY_UNKNOWN',
  'HOST_KEY_CHANGED',
  'HOST_KEY_REVOKED',
  'AUTH_FAILED',
  'CONNECT_FAILED',
  'TIMEOUT',
  'REMOTE_COMMAND_FAILED',
  'NOT_SUPPORTED',
  'SSH_CONFIG_INVALID',
  'CANCELLED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const FieldIssueSchema = z.object({ path: z.string(), message: z.string() });
export type FieldIssue = z.infer<typeof FieldIssueSchema>;

export const ErrorInfoSchema = z.object({
  code: z.enum(ERROR_CODES),
  message: z.string(),
  /** Which input fields were wrong, by dotted path, when code is BAD_INPUT. */
  issues: z.array(FieldIssueSchema).optional(),
  /** Machine-readable facts for the UI (for example the presented host key). */
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

export type Envelope<T> = { ok: true; data: T } | { ok: false; error: ErrorInfo };

export const EnvelopeSchema = z.union([
  z.object({ ok: z.literal(true), data: z.unknown() }),
  z.object({ ok: z.literal(false), error: ErrorInfoSchema }),
]);

/** A failure the core means to report to the user, with a code the UI understands. */
export class ServelabError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly issues: FieldIssue[] | undefined;

  constructor(code: ErrorCode, message: string, extra: { details?: Record<string, unknown>; issues?: FieldIssue[] } = {}) {
    super(message);
    this.name = 'ServelabError';
    this.code = code;
    this.details = extra.details;
    this.issues = extra.issues;
  }

  toInfo(): ErrorInfo {
    const info: ErrorInfo = { code: this.code, message: this.message };
    if (this.issues) info.issues = this.issues;
    if (this.details) info.details = this.details;
    return info;
  }

  static fromInfo(info: ErrorInfo): ServelabError {
    return new ServelabError(info.code, info.message, {
      ...(info.details ? { details: info.details } : {}),
      ...(info.issues ? { issues: info.issues } : {}),
    });
  }
}

/** Turns zod's issues into `{path, message}` pairs that name the field, e.g. `auth.identityFile`. */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(input)',
    message: issue.message,
  }));
}

export function describeIssues(issues: FieldIssue[]): string {
  return issues.map((i) => `${i.path}: ${i.message}`).join('; ');
}

/**
 * Parses `input` with `schema`, or throws BAD_INPUT "Invalid <what>: …" whose issues name each wrong field by dotted
 * path; `toIssues` can name them differently (default: `fieldIssues`).
 */
export function parseOrBadInput<S extends z.ZodType>(schema: S, input: unknown, what: string, toIssues: (error: z.ZodError) => FieldIssue[] = fieldIssues): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = toIssues(result.error);
  throw new ServelabError('BAD_INPUT', `Invalid ${what}: ${describeIssues(issues)}`, { issues });
}
