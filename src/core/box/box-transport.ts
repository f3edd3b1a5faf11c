import { randomBytes } from 'node:crypto';
import type { RemoteJobRunner } from '../jobs/remote-job-runner';
import type { TransferResult } from '../ssh/sftp';

export type { TransferResult };

export interface BoxRunOptions {
  /** Bytes the script's commands read as their standard input (the script itself travels on sh's stdin). */
  stdin?: string | Buffer;
  timeoutSeconds: number;
  /** Output as it arrives, decoded as UTF-8 without splitting a character (it is collected as well). */
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  /** Ends the script and rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Over SSH, waits for a free session of the connection behind other commands: for a long request's follow-on, which
   * short commands should not wait behind. The time limit counts from the script's start, not from that wait.
   */
  background?: boolean;
}

export interface BoxRunResult {
  stdout: string;
  stderr: string;
  /** Exit status of the script; null when a signal ended it. */
  code: number | null;
}

export interface BoxHttpRequest {
  /** Default GET. */
  method?: string;
  /** Path and query, e.g. `/health`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** For the whole exchange, from connecting to the last byte of the response. */
  timeoutMs: number;
}

export interface BoxHttpResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
}

/**
 * Why an HTTP request to a port on the box got no response, in `details.failure` of the ServelabError:
 * nothing listens (`refused`), the server closed the connection without answering (`reset`: vLLM and
 * TensorRT-LLM do this while loading), no answer in time (`timeout`), or the SSH connection is gone.
 */
export type BoxHttpFailure = 'refused' | 'reset' | 'timeout' | 'connection-closed';

export type TransferProgress = (bytes: number, total: number) => void;

/**
 * One way to reach a GPU box, whatever carries it: SSH for remote boxes, local processes for this machine and the
 * demo lab. Engines, benchmarks and studies use only this. Paths on the box may start with `~/` (the box's HOME).
 * A transport belongs to whoever obtained it, who calls `release()` once done.
 */
export interface BoxTransport {
  readonly hostId: string;
  readonly kind: 'ssh' | 'local';
  /**
   * Runs a POSIX sh script as `sh -l -s` (the script on stdin, so no login shell parses it and the login profile's
   * PATH applies). Not retried: a dropped connection fails it with CONNECT_FAILED.
   */
  run(script: string, opts: BoxRunOptions): Promise<BoxRunResult>;
  /** Detached jobs that outlive the connection and the app, in `~/.servelab/jobs/<id>/` on the box. */
  jobs(): RemoteJobRunner;
  /** One HTTP request to 127.0.0.1:port as seen from the box; rejects with a BoxHttpFailure when there is no answer. */
  httpRequest(port: number, request: BoxHttpRequest): Promise<BoxHttpResponse>;
  /** Copies a local file to the box (temporary name, SHA-256 checked on both ends, then renamed into place). */
  upload(localPath: string, remotePath: string, onProgress?: TransferProgress): Promise<TransferResult>;
  /** Copies a file from the box, verified the same way. */
  download(remotePath: string, localPath: string, onProgress?: TransferProgress): Promise<TransferResult>;
  /** Done with the box: commands still running through it end, later calls fail; detached jobs live on. */
  release(): void;
}

/**
 * The text sent to `sh -s` for a script that should read `stdin`. Shells read their script ahead (dash does, in
 * blocks), so data simply appended after it could be swallowed as script: it is embedded instead, base64 in a
 * here-document with a random delimiter, decoded byte for byte into the script's standard input.
 */
export function scriptWithStdin(script: string, stdin: string | Buffer | undefined): string {
  if (stdin === undefined) return script;
  const data = Buffer.isBuffer(stdin) ? stdin : Buffer.from(stdin, 'utf8');
  const delimiter = `SERVELAB_STDIN_${randomBytes(8).toString('hex')}`;
  const lines = data.toString('base64').match(/.{1,76}/g) ?? [];
  return [
    'servelab_script() {',
    // sh refuses an empty function body.
    script.trim() === '' ? ':' : script.endsWith('\n') ? script.slice(0, -1) : script,
    '}',
    `base64 -d <<'${delimiter}' | servelab_script`,
    ...lines,
    delimiter,
    '',
  ].join('\n');
}
