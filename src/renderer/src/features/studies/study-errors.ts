import { ServelabError } from '../../../../shared/contract';
import { toErrorInfo } from '../../store';

/** The core's reason as one sentence, with the fields it named (a path that does not end in .servelab, say). */
export function errorText(error: unknown): string {
  const info = toErrorInfo(error);
  const issues = info.issues?.map((issue) => (issue.path ? `${issue.path} ${issue.message}` : issue.message)) ?? [];
  return issues.length > 0 ? `${info.message} (${issues.join('; ')})` : info.message;
}

/** Whether the core answered that this needs the desktop app (a native dialog in a browser). */
export function isNotSupported(error: unknown): boolean {
  return error instanceof ServelabError && error.code === 'NOT_SUPPORTED';
}
