import { mkdirSync } from 'node:fs';
import { delimiter } from 'node:path';
import { ServelabError } from '../../shared/contract';
import { shellQuote } from '../../shared/shell-quote';
import type { RetryPolicy } from '../jobs/client-provider';
import type { JobRegistry } from '../jobs/job-registry';
import { LocalCommandChannel } from '../jobs/local-command-channel';
import { RemoteJobRunner } from '../jobs/remote-job-runner';
import { checkPort, sendHttpRequest } from './http-request';
import { downloadLocal, uploadLocal } from './local-transfer';
import { runOnChannel } from './run-script';
import type { BoxHttpRequest, BoxHttpResponse, BoxRunOptions, BoxRunResult, BoxTransport, TransferProgress, TransferResult } from './box-transport';

export interface LocalBoxTransportOptions {
  hostId: string;
  /** HOME of the box: `~` paths, the job folders and the commands' working folder. Created if missing. */
  home: string;
  /** Folders put first on PATH, before the base environment's PATH (and again after a login profile resets it). */
  pathPrefix?: readonly string[];
  /** Variables set for every command, over the base environment. */
  env?: Record<string, string>;
  /** The environment commands start from (default: this process's). */
  baseEnv?: NodeJS.ProcessEnv;
  registry?: JobRegistry;
  retry?: RetryPolicy;
  /** Called once by release(). */
  onRelease?: () => void;
}

/** How often a local job's log is looked at for new output. */
export const LOCAL_POLL_INTERVAL_MS = 250;

/**
 * A box that is this machine (or the simulated box of the demo lab): commands are local child processes with a
 * configured HOME and PATH, started like an SSH server starts them, and jobs are detached with setsid as on a
 * remote box, in `<home>/.servelab/jobs/<id>/`.
 */
export class LocalBoxTransport implements BoxTransport {
  readonly kind = 'local';
  readonly hostId: string;
  readonly home: string;
  /** The environment every command gets. */
  readonly env: NodeJS.ProcessEnv;
  private readonly channel: LocalCommandChannel;
  private readonly pathPrefix: readonly string[];
  private runner: RemoteJobRunner | undefined;
  private released = false;

  constructor(private readonly opts: LocalBoxTransportOptions) {
    this.hostId = opts.hostId;
    this.home = opts.home;
    this.pathPrefix = opts.pathPrefix ?? [];
    for (const dir of this.pathPrefix) {
      if (dir.includes(delimiter) || dir.includes('\0')) throw new ServelabError('BAD_INPUT', `A PATH folder cannot contain "${delimiter}" or NUL: ${dir}`);
    }
    const base = opts.baseEnv ?? process.env;
    const path = [...this.pathPrefix, base.PATH ?? '/usr/local/bin:/usr/bin:/bin'].filter(Boolean).join(delimiter);
    this.env = { ...base, ...(opts.env ?? {}), HOME: opts.home, PATH: path };
    // What an SSH session would not carry over from the app's own process.
    delete this.env.PWD;
    delete this.env.OLDPWD;
    mkdirSync(opts.home, { recursive: true, mode: 0o700 });
    this.channel = new LocalCommandChannel({ env: this.env, cwd: opts.home });
  }

  run(script: string, opts: BoxRunOptions): Promise<BoxRunResult> {
    if (this.released) return Promise.reject(this.releasedError());
    // A login profile may set PATH from scratch (Debian's /etc/profile does): the box's own folders go first again.
    const restorePath = this.pathPrefix.length > 0 ? `PATH=${shellQuote(this.pathPrefix.join(delimiter))}${delimiter}"$PATH"; export PATH\n` : '';
    return runOnChannel(this.channel, restorePath + script, opts);
  }

  jobs(): RemoteJobRunner {
    this.runner ??= new RemoteJobRunner({
      hostId: this.hostId,
      channels: async () => {
        if (this.released) throw this.releasedError();
        return this.channel;
      },
      ...(this.opts.registry ? { registry: this.opts.registry } : {}),
      ...(this.opts.retry ? { retry: this.opts.retry } : {}),
      // Each poll of a job's log starts processes on this machine, beside the app; eight trials stream about
      // sixteen logs at once. A quarter second between looks is still prompt for a log pane.
      pollIntervalMs: LOCAL_POLL_INTERVAL_MS,
    });
    return this.runner;
  }

  async httpRequest(port: number, request: BoxHttpRequest): Promise<BoxHttpResponse> {
    if (this.released) throw this.releasedError();
    checkPort(port);
    return sendHttpRequest(port, request);
  }

  async upload(localPath: string, remotePath: string, onProgress?: TransferProgress): Promise<TransferResult> {
    if (this.released) throw this.releasedError();
    return uploadLocal(this.home, localPath, remotePath, onProgress);
  }

  async download(remotePath: string, localPath: string, onProgress?: TransferProgress): Promise<TransferResult> {
    if (this.released) throw this.releasedError();
    return downloadLocal(this.home, remotePath, localPath, onProgress);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.channel.dispose();
    this.opts.onRelease?.();
  }

  private releasedError(): ServelabError {
    return new ServelabError('BAD_INPUT', `The local box ${this.hostId} was already released; obtain it again.`);
  }
}
