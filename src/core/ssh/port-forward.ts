import { createServer, type Server, type Socket } from 'node:net';
import type { Client, ClientChannel } from 'ssh2';
import { ServelabError } from '../../shared/contract';

export interface PortForwardOptions {
  remotePort: number;
  /** Seen from the box; defaults to its loopback. */
  remoteHost?: string;
  /** 0 (the default) picks a free port. Always bound on 127.0.0.1 only. */
  localPort?: number;
  /** Bound on the box answering a forwarding request for one local connection. */
  openTimeoutMs?: number;
}

/** Why a forward failed: the SSH connection is gone, the box refused, or it did not answer in time. */
export type PortForwardFailure = 'connection-closed' | 'refused' | 'timeout';

export interface PortForward {
  readonly localPort: number;
  readonly remoteHost: string;
  readonly remotePort: number;
  /** Set once the SSH connection behind the forward has closed; from then on local connections are refused. */
  readonly broken: ServelabError | undefined;
  /** Stops listening and ends every forwarded connection. */
  close(): Promise<void>;
  /**
   * Every failure, as a ServelabError whose `details.failure` is a PortForwardFailure. A refused or timed-out
   * connection fails only that connection; a closed SSH connection breaks the whole forward. Returns an unsubscribe.
   */
  onError(listener: (error: ServelabError) => void): () => void;
}

const DEFAULT_OPEN_TIMEOUT_MS = 10_000;

/**
 * Listens on 127.0.0.1 and carries each accepted connection to `remoteHost:remotePort` as seen from the box
 * (`ssh -L`). Nothing is left hanging: a local connection whose forwarding fails is closed at once and the
 * failure reported, and when the SSH connection closes the listener closes too, so new connections are refused.
 */
export async function forwardLocalPort(client: Client, opts: PortForwardOptions): Promise<PortForward> {
  const remoteHost = opts.remoteHost ?? '127.0.0.1';
  const remotePort = opts.remotePort;
  const openTimeoutMs = opts.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS;
  if (!Number.isInteger(remotePort) || remotePort < 1 || remotePort > 65535) {
    throw new ServelabError('BAD_INPUT', `${remotePort} is not a TCP port.`);
  }
  if (!isConnected(client)) {
    throw failure('connection-closed', `Cannot forward to ${remoteHost}:${remotePort}: the SSH connection is closed.`);
  }

  const listeners = new Set<(error: ServelabError) => void>();
  const sockets = new Set<Socket>();
  const channels = new Set<ClientChannel>();
  let broken: ServelabError | undefined;
  let closed = false;
  let localPort = opts.localPort ?? 0;

  const report = (error: ServelabError) => {
    for (const listener of [...listeners]) {
      try {
        listener(error);
      } catch {
        // A failing listener must not stop the others from hearing about it.
      }
    }
  };

  const server: Server = createServer({ pauseOnConnect: true }, (socket) => {
    if (broken || closed) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('close', () => sockets.delete(socket));
    let channel: ClientChannel | undefined;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
      report(failure('timeout', `The box did not open the forward to ${remoteHost}:${remotePort} within ${openTimeoutMs / 1000} s.`));
    }, openTimeoutMs);
    socket.once('close', () => {
      clearTimeout(timer);
      channel?.close();
    });

    const opened = (error: Error | undefined, stream: ClientChannel) => {
      clearTimeout(timer);
      if (error) {
        socket.destroy();
        if (timedOut) return;
        if (/no response from server|not connected/i.test(error.message)) {
          breakForward();
          return;
        }
        // ssh2 puts the SSH reason in the message: "administratively prohibited", "Connection refused", ...
        report(failure('refused', `The box refused to forward to ${remoteHost}:${remotePort}: ${error.message.replace(/^\(SSH\)\s*/, '')}`));
        return;
      }
      if (socket.destroyed) {
        stream.close();
        return;
      }
      channel = stream;
      channels.add(stream);
      stream.on('error', () => socket.destroy());
      stream.once('close', () => {
        channels.delete(stream);
        // end(), not destroy(): what the box sent last may still be on its way to the local reader.
        socket.end();
      });
      socket.pipe(stream).pipe(socket);
      socket.resume();
    };
    try {
      client.forwardOut('127.0.0.1', socket.remotePort ?? 0, remoteHost, remotePort, opened);
    } catch (error) {
      clearTimeout(timer);
      socket.destroy();
      if (/not connected/i.test((error as Error).message)) breakForward();
      else report(failure('refused', `Cannot forward to ${remoteHost}:${remotePort}: ${(error as Error).message}`));
    }
  });

  function breakForward(): void {
    if (broken || closed) return;
    broken = failure(
      'connection-closed',
      `The SSH connection closed: the forward from 127.0.0.1:${localPort} to ${remoteHost}:${remotePort} on the box is broken.`,
    );
    server.close();
    for (const socket of sockets) socket.destroy();
    for (const channel of channels) channel.close();
    report(broken);
  }

  const onClientClose = () => breakForward();
  client.once('close', onClientClose);

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.localPort ?? 0, '127.0.0.1', () => {
        server.removeListener('error', reject);
        resolve();
      });
    });
  } catch (error) {
    client.removeListener('close', onClientClose);
    throw new ServelabError('BAD_INPUT', `Cannot listen on 127.0.0.1:${opts.localPort ?? 0}: ${(error as Error).message}`);
  }
  server.on('error', () => {});
  if (broken) {
    server.close();
    throw broken;
  }
  const address = server.address();
  localPort = typeof address === 'object' && address ? address.port : localPort;

  return {
    localPort,
    remoteHost,
    remotePort,
    get broken() {
      return broken;
    },
    async close() {
      if (closed) return;
      closed = true;
      client.removeListener('close', onClientClose);
      const stopped = new Promise<void>((resolve) => {
        if (!server.listening) resolve();
        else server.close(() => resolve());
      });
      for (const socket of sockets) socket.destroy();
      for (const channel of channels) channel.close();
      await stopped;
    },
    onError(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function failure(kind: PortForwardFailure, message: string): ServelabError {
  return new ServelabError('CONNECT_FAILED', message, { details: { failure: kind } });
}

// ssh2 has no public "is connected"; its own methods test the socket the same way before refusing with "Not connected".
function isConnected(client: Client): boolean {
  const sock = (client as unknown as { _sock?: { writable?: boolean; destroyed?: boolean } })._sock;
  return !!sock && sock.writable === true && sock.destroyed !== true;
}
