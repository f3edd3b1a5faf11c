import type { Client, ClientChannel } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import type { SshConnectionPool } from '../ssh/connection-pool';
import type { SshTarget } from '../ssh/ssh-target';
import { downloadFile, uploadFile } from '../ssh/sftp';
import { sshCommandChannel } from '../jobs/command-channel';
import type { RetryPolicy } from '../jobs/client-provider';
import type { JobRegistry } from '../jobs/job-registry';
import { RemoteJobRunner } from '../jobs/remote-job-runner';
import { runOnChannel } from './run-script';
import { boxHttpFailure, checkPort, sendHttpRequest } from './http-request';
import type { BoxHttpRequest, BoxHttpResponse, BoxRunOptions, BoxRunResult, BoxTransport, TransferProgress, TransferResult } from './box-transport';

export interface SshBoxTransportOptions {
  hostId: string;
  pool: Pick<SshConnectionPool, 'provider' | 'release'>;
  /** The host as resolved for this use (identities, jump hosts, saved password). */
  target: SshTarget;
  /** Where jobs started through `jobs()` are recorded for re-attaching. */
  registry?: JobRegistry;
  retry?: RetryPolicy;
  /** Told about every failure to obtain the connection (unknown host key, refused login…). */
  onConnectError?: (error: unknown) => void;
  /** Called once by release(). */
  onRelease?: () => void;
}

/**
 * A remote box over the app's SSH connection pool: the pooled connection (opened, shared or reconnected by the
 * pool) is taken on first use and held until `release()`.
 */
export class SshBoxTransport implements BoxTransport {
  readonly kind = 'ssh';
  readonly hostId: string;
  private readonly provide: () => Promise<Client>;
  private holding = false;
  private released = false;
  private runner: RemoteJobRunner | undefined;

  constructor(private readonly opts: SshBoxTransportOptions) {
    this.hostId = opts.hostId;
    const pooled = opts.pool.provider(opts.hostId, opts.target);
    this.provide = async () => {
      if (this.released) throw releasedError(this.hostId);
      let client: Client;
      try {
        client = await pooled();
      } catch (error) {
        opts.onConnectError?.(error);
        throw error;
      }
      const first = !this.holding;
      this.holding = true;
      if (this.released) {
        // Released while the connection was being opened: hand back the reference this call took.
        if (first) {
          this.holding = false;
          opts.pool.release(opts.hostId);
        }
        throw releasedError(this.hostId);
      }
      return client;
    };
  }

  /** The pooled connection, for the few callers that need ssh2 itself. */
  client(): Promise<Client> {
    return this.provide();
  }

  async run(script: string, opts: BoxRunOptions): Promise<BoxRunResult> {
    return runOnChannel(sshCommandChannel(await this.provide()), script, opts);
  }

  jobs(): RemoteJobRunner {
    this.runner ??= new RemoteJobRunner({
      hostId: this.hostId,
      provider: this.provide,
      ...(this.opts.registry ? { registry: this.opts.registry } : {}),
      ...(this.opts.retry ? { retry: this.opts.retry } : {}),
    });
    return this.runner;
  }

  async httpRequest(port: number, request: BoxHttpRequest): Promise<BoxHttpResponse> {
    checkPort(port);
    const client = await this.provide();
    const stream = await new Promise<ClientChannel>((resolve, reject) => {
      const refused = (error: Error) => {
        if (/not connected|no response from server/i.test(error.message)) {
          return boxHttpFailure('connection-closed', `The SSH connection closed before reaching 127.0.0.1:${port} on the box.`);
        }
        if (/connection refused/i.test(error.message)) return boxHttpFailure('refused', `Nothing listens on 127.0.0.1:${port} on the box (connection refused).`);
        return new ServelabError('REMOTE_COMMAND_FAILED', `The box refused to forward to 127.0.0.1:${port}: ${error.message.replace(/^\(SSH\)\s*/, '')}`);
      };
      try {
        client.forwardOut('127.0.0.1', 0, '127.0.0.1', port, (error, channel) => (error ? reject(refused(error)) : resolve(channel)));
      } catch (error) {
        reject(refused(error as Error));
      }
    });
    let clientClosed = false;
    const onClientClose = () => {
      clientClosed = true;
    };
    client.once('close', onClientClose);
    try {
      return await sendHttpRequest(port, request, stream);
    } catch (error) {
      if (clientClosed) throw boxHttpFailure('connection-closed', `The SSH connection closed during the request to 127.0.0.1:${port}${request.path} on the box.`);
      throw error;
    } finally {
      client.removeListener('close', onClientClose);
      stream.close();
    }
  }

  async upload(localPath: string, remotePath: string, onProgress?: TransferProgress): Promise<TransferResult> {
    return uploadFile(await this.provide(), localPath, remotePath, onProgress ? { onProgress } : {});
  }

  async download(remotePath: string, localPath: string, onProgress?: TransferProgress): Promise<TransferResult> {
    return downloadFile(await this.provide(), remotePath, localPath, onProgress ? { onProgress } : {});
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.opts.onRelease?.();
    if (this.holding) {
      this.holding = false;
      this.opts.pool.release(this.hostId);
    }
  }
}

function releasedError(hostId: string): ServelabError {
  return new ServelabError('BAD_INPUT', `The connection to host ${hostId} was already released; obtain the box again.`);
}
