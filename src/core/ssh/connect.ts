import type { Duplex } from 'node:stream';
import * as ssh2Module from 'ssh2';
import type { Client, ConnectConfig } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import { DEFAULT_KEEPALIVE_COUNT_MAX, DEFAULT_KEEPALIVE_INTERVAL_SECONDS, targetAddress, targetLabel, type SshTarget } from './ssh-target';
import { hostKeyAliasProblem, hostKeyName, hostKeyPlace, type CertAuthorityMatch, type KnownHostsStore } from './known-hosts';
import { keepsNoHostKeys, KEPT_IN_MEMORY, SessionKnownHosts } from './session-known-hosts';
import { startProxyCommand, type ProxyCommandStream } from './proxy-command';
import { connectTcp } from './tcp-connect';
import { installCertificateAuth } from './certificate-auth';
import { HOST_CERTIFICATE_TYPES, hostCertificateProblem, parseHostCertificate } from './host-certificate';
import { offerHostCertificates, useCertifiedKey } from './host-certificate-kex';
import { fingerprintSha256, keyTypeLabel, keyTypeOf } from './fingerprint';
import { AuthPlan, type AuthSecrets } from './auth-plan';
import type { PromptAsker } from './prompt-broker';
import type { ConnectionLogWriter } from './connection-log';

// ssh2 is CommonJS: Node's ESM loader exposes `utils` only on the default export, bundlers on the namespace.
const ssh2: typeof ssh2Module = (ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module;

export interface OpenSshClientOptions {
  knownHosts: KnownHostsStore;
  /** Seconds for the TCP connect, handshake and authentication together, per hop, not counting time spent waiting for a person to answer a prompt. */
  timeoutSeconds: number;
  /** Who answers passphrase, password and keyboard-interactive questions; without it nothing is asked. */
  prompts?: PromptAsker;
  /** Where the steps of connecting are described for the user. */
  log?: ConnectionLogWriter;
  /** Which host the prompts belong to; default user@host:port of the target. */
  hostId?: string;
  /** Saved passphrases, and where to keep the ones the person asks to remember. */
  secrets?: AuthSecrets;
  /** Aborting gives up the connection attempt (and any question waiting for an answer). */
  signal?: AbortSignal;
  /** The environment a ProxyCommand runs with (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

export interface OpenSshHopOptions extends OpenSshClientOptions {
  /** A stream to the server opened through a jump host; without it a TCP connection is made. */
  sock?: Duplex;
  /** A jump host's key problems name it as the jump host. */
  role?: HopRole;
}

export type HopRole = 'target' | 'jump';

const DEFAULT_KEEPALIVE_INTERVAL_MS = DEFAULT_KEEPALIVE_INTERVAL_SECONDS * 1000;

// ssh2's default host key algorithms (Node 20 has Ed25519), used to put the already-trusted types first.
const HOST_KEY_ALGORITHMS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
] as const;
type HostKeyAlgorithm = (typeof HOST_KEY_ALGORITHMS)[number];

/**
 * Opens an authenticated SSH connection after checking the server's host key against known_hosts, going
 * through the target's jump hosts (each one's key checked the same way). Ending the returned client also
 * ends the jump connections opened for it. Every failure is a ServelabError whose code says what went wrong
 * (host key, auth, network, timeout).
 */
export async function openSshClient(target: SshTarget, opts: OpenSshClientOptions): Promise<Client> {
  const jumps = target.jumps ?? [];
  if (jumps.length === 0) return openSshHop(target, opts);
  const hops = [...jumps.map((jump) => ({ ...jump, jumps: [] })), { ...target, jumps: [] }];
  const opened: Client[] = [];
  try {
    let via: { client: Client; target: SshTarget } | undefined;
    for (const [index, hop] of hops.entries()) {
      const sock = via ? await openForwardedStream(via.client, via.target, hop, opts.log) : undefined;
      const client = await openSshHop(hop, { ...opts, ...(sock ? { sock } : {}), role: index < jumps.length ? 'jump' : 'target' });
      opened.push(client);
      via = { client, target: hop };
    }
  } catch (error) {
    for (const client of opened.reverse()) client.end();
    throw error;
  }
  const final = opened[opened.length - 1] as Client;
  // When a jump connection drops, the stream under `final` ends and `final` closes; this covers the other way.
  final.once('close', () => {
    for (const client of opened.slice(0, -1).reverse()) client.end();
  });
  return final;
}

/**
 * Opens a direct-tcpip channel on `via` (a connected jump host) to the next hop, as `ssh -J` does; the
 * channel is the `sock` of the next connection.
 */
export function openForwardedStream(via: Client, viaTarget: SshTarget, next: Pick<SshTarget, 'host' | 'port'>, log?: ConnectionLogWriter): Promise<Duplex> {
  log?.('info', `Opening a tunnel through jump host ${targetLabel(viaTarget)} to ${next.host}:${next.port}…`);
  return new Promise<Duplex>((resolve, reject) => {
    try {
      via.forwardOut('127.0.0.1', 0, next.host, next.port, (error, channel) => {
        if (error) {
          log?.('error', `Jump host ${targetLabel(viaTarget)} could not reach ${next.host}:${next.port}: ${error.message}`);
          reject(
            new ServelabError('CONNECT_FAILED', `Jump host ${targetLabel(viaTarget)} could not open a connection to ${next.host}:${next.port} (${error.message}).`, {
              details: { host: next.host, port: next.port, jumpHost: viaTarget.host, jumpPort: viaTarget.port, cause: error.message },
            }),
          );
          return;
        }
        resolve(channel);
      });
    } catch (error) {
      reject(new ServelabError('CONNECT_FAILED', `The connection to jump host ${targetLabel(viaTarget)} is gone (${(error as Error).message}).`));
    }
  });
}

/** One SSH connection, to `target` directly or over `opts.sock`; the target's own jumps are ignored. */
export async function openSshHop(target: SshTarget, opts: OpenSshHopOptions): Promise<Client> {
  if (opts.signal?.aborted) throw new ServelabError('CONNECT_FAILED', `Connecting to ${where(target)} was stopped.`);
  const role: HopRole = opts.role ?? 'target';
  const hostId = opts.hostId ?? targetAddress(target);
  const log: ConnectionLogWriter = opts.log ?? (() => {});
  const name = `${role === 'jump' ? 'jump host ' : ''}${targetLabel(target)}`;
  // UserKnownHostsFile /dev/null keeps nothing in ssh: such a hop's accepted keys stay in memory, not in the app's file.
  const memoryOnly = keepsNoHostKeys(target.userKnownHostsFiles);
  const knownHosts: HopKnownHosts = memoryOnly
    ? new SessionKnownHosts(opts.knownHosts, (target.knownHostsFiles ?? []).filter((file) => file !== '/dev/null'))
    : target.knownHostsFiles
      ? opts.knownHosts.withReadOnlyFiles(target.knownHostsFiles)
      : opts.knownHosts;
  const serverHostKey = preferredHostKeyAlgorithms(await knownHosts.knownKeyTypesNamed(hostKeyName(target)));
  // As ssh does when a CA is listed for the host, certificate host key algorithms are asked for first.
  const hasCertAuthority = (await knownHosts.certificateAuthoritiesNamed(hostKeyName(target))).authorities.length > 0;
  const timeoutMs = Math.max(1, Math.round(opts.timeoutSeconds * 1000));
  const deadline = new PausableTimer(timeoutMs);
  const abort = new AbortController();
  const onOuterAbort = () => abort.abort();
  opts.signal?.addEventListener('abort', onOuterAbort, { once: true });

  const plan = new AuthPlan({
    target,
    hostId,
    log,
    signal: abort.signal,
    ...(opts.prompts ? { prompts: opts.prompts } : {}),
    ...(opts.secrets ? { secrets: opts.secrets } : {}),
    onWaitingForUser: (waiting) => (waiting ? deadline.pause() : deadline.resume()),
    onAbandon: () => abandon?.(),
  });
  if (!plan.hasCredentials()) {
    opts.signal?.removeEventListener('abort', onOuterAbort);
    throw new ServelabError('AUTH_FAILED', `No identity file or password is set for ${where(target)}; give one of them to log in.`);
  }

  log('info', opts.sock ? `Connecting to ${name} through the tunnel…` : target.proxyCommand ? `Connecting to ${name} through its ProxyCommand…` : `Connecting to ${name}…`);
  if (memoryOnly) {
    log('info', `UserKnownHostsFile is /dev/null for ${name}, so ssh keeps no host key for it: a key accepted for it is kept in memory only, until Servelab exits, and never saved.`);
  }
  if (target.strictHostKeyChecking === 'no') {
    log('warn', `StrictHostKeyChecking no is treated as ask for ${name}: Servelab never accepts an unknown host key without asking.`);
  }

  let abandon: (() => void) | undefined;
  return new Promise<Client>((resolve, reject) => {
    const client = new ssh2.Client();
    abandon = () => fail(plan.failure());
    // ssh2 reports a refused host key only as "Host denied (verification failed)"; this keeps the real reason.
    let hostKeyFailure: ServelabError | undefined;
    let settled = false;
    let sock: Duplex | undefined = opts.sock;
    let proxy: ProxyCommandStream | undefined;

    deadline.start(() => {
      fail(new ServelabError('TIMEOUT', `Connecting to ${where(target)} did not finish within ${opts.timeoutSeconds} s.`, { details: { host: target.host, port: target.port } }));
    });
    abort.signal.addEventListener('abort', () => fail(new ServelabError('CONNECT_FAILED', `Connecting to ${where(target)} was stopped.`)), { once: true });

    function fail(error: ServelabError): void {
      if (settled) return;
      settled = true;
      deadline.clear();
      clearHandshakeTimer();
      opts.signal?.removeEventListener('abort', onOuterAbort);
      abort.abort();
      log('error', error.message.split('\n').find((line) => line.trim() !== '' && !line.startsWith('@')) ?? error.message);
      client.end();
      sock?.destroy();
      reject(error);
    }

    /**
     * A failure while a ProxyCommand carries the connection: once the command has ended (waited for up to 1 s,
     * since its output may end a moment before its exit is known), the command's exit and last stderr lines are
     * the story, unless the host key or the login already decided.
     */
    function failVia(error: () => ServelabError): void {
      if (settled) return;
      const running = proxy;
      if (!running || hostKeyFailure || plan.failureIfDecided()) return fail(error());
      const waited = new Promise<void>((resolve) => setTimeout(resolve, 1_000).unref());
      void Promise.race([running.exited(), waited]).then(() => {
        const exit = running.exit;
        if (!exit) return fail(error());
        // Status 0 is the far side hanging up normally: ssh2's account of it is the story, not the proxy.
        if (exit.code === 0 && !exit.signal && !exit.spawnError) return fail(withNote(error(), ' (its ProxyCommand exited normally)'));
        fail(proxyFailure(running, target));
      });
    }

    const hostVerifier = (key: Buffer, verify: (valid: boolean) => void): void => {
      // Must return undefined: ssh2 treats any returned value (a Promise included) as the verdict.
      const check = HOST_CERTIFICATE_TYPES[keyTypeOf(key)] ? verifyHostCertificate(client, target, key, knownHosts, role, log) : verifyHostKey(target, key, knownHosts, role, log);
      check.then(
        (outcome) => {
          const failure = outcome === 'known' || outcome === 'added' ? undefined : outcome;
          hostKeyFailure = failure;
          if (outcome === 'known' && !HOST_CERTIFICATE_TYPES[keyTypeOf(key)]) log('info', `Host key of ${name} (${keyTypeLabel(keyTypeOf(key))} ${fingerprintSha256(key)}) matches known_hosts.`);
          verify(failure === undefined);
        },
        (error: unknown) => {
          hostKeyFailure =
            error instanceof ServelabError
              ? error
              : new ServelabError('INTERNAL', `Checking the host key of ${where(target)} failed: ${(error as Error).message}`);
          verify(false);
        },
      );
    };

    // ConnectTimeout, as ssh_config(5) says, covers establishing the connection and the SSH handshake up to the end
    // of the key exchange, not the login (sshconnect.c ssh_login hands what is left of it to
    // kex_exchange_identification). It runs from the start of the successful TCP attempt, or from the start of
    // the ProxyCommand or tunnel; no prompt is asked before the key exchange ends, so no answer is timed.
    const connectTimeoutSeconds = typeof target.connectTimeoutSeconds === 'number' && target.connectTimeoutSeconds > 0 ? target.connectTimeoutSeconds : undefined;
    let handshakeTimer: ReturnType<typeof setTimeout> | undefined;
    let bannerSeen = false;
    let keyExchanged = false;
    const boundHandshake = (stream: Duplex, startedAt: number): void => {
      if (connectTimeoutSeconds === undefined || keyExchanged) return;
      stream.once('data', () => {
        bannerSeen = true;
      });
      const remaining = Math.max(0, Math.round(connectTimeoutSeconds * 1000) - (Date.now() - startedAt));
      handshakeTimer = setTimeout(() => {
        const stage = bannerSeen ? 'key exchange' : 'banner exchange';
        const carrier = proxy ? ' through its ProxyCommand' : opts.sock ? ' through the tunnel' : '';
        fail(
          new ServelabError('TIMEOUT', `Connection timed out during ${stage} with ${where(target)}${carrier} (ConnectTimeout ${connectTimeoutSeconds} s).`, {
            details: { host: target.host, port: target.port, connectTimeoutSeconds, stage },
          }),
        );
      }, remaining);
    };
    const clearHandshakeTimer = (): void => {
      if (handshakeTimer) clearTimeout(handshakeTimer);
      handshakeTimer = undefined;
    };
    client.once('handshake', () => {
      keyExchanged = true;
      clearHandshakeTimer();
    });

    const keepaliveSeconds = target.keepaliveIntervalSeconds;
    const config: ConnectConfig = {
      username: target.user,
      // Our own deadline covers the whole attempt and pauses while a person answers a prompt.
      readyTimeout: 0,
      keepaliveInterval: keepaliveSeconds && keepaliveSeconds > 0 ? Math.round(keepaliveSeconds * 1000) : DEFAULT_KEEPALIVE_INTERVAL_MS,
      keepaliveCountMax: target.keepaliveCountMax && target.keepaliveCountMax > 0 ? target.keepaliveCountMax : DEFAULT_KEEPALIVE_COUNT_MAX,
      hostVerifier,
      authHandler: plan.handler,
    };
    if (serverHostKey) config.algorithms = { serverHostKey };

    client.on('error', (error: Error & { level?: string; code?: string }) => {
      if (settled) return;
      // ssh2 reports these and then goes on with the next method itself.
      if (error.level === 'agent') {
        log('warn', `The SSH agent failed: ${error.message}.`);
        return;
      }
      if (error.level === 'client-authentication' && /^Error (while )?signing/i.test(error.message)) {
        log('warn', error.message);
        return;
      }
      if (hostKeyFailure) return fail(hostKeyFailure);
      if (error.level === 'client-authentication' || /too many authentication failures/i.test(error.message)) return fail(plan.failure(error.message));
      failVia(() => connectError(error, target, role));
    });
    client.on('close', () => {
      if (settled) return;
      failVia(
        () =>
          hostKeyFailure ??
          plan.failureIfDecided() ??
          new ServelabError('CONNECT_FAILED', `${where(target)} closed the connection during the SSH handshake.`, { details: { host: target.host, port: target.port } }),
      );
    });
    client.on('ready', () => {
      if (settled) {
        client.end();
        return;
      }
      settled = true;
      deadline.clear();
      clearHandshakeTimer();
      opts.signal?.removeEventListener('abort', onOuterAbort);
      plan.succeeded().catch(() => {});
      // Later failures (keepalive timeout, reset) surface as 'close' to whoever is using the connection.
      client.on('error', () => {});
      resolve(client);
    });
    // The proxy command lives as long as the connection: ending the client ends it.
    client.once('close', () => proxy?.stop());

    const start = (stream: Duplex, startedAt: number) => {
      if (settled) {
        stream.destroy();
        return;
      }
      sock = stream;
      config.sock = stream as ConnectConfig['sock'];
      try {
        client.connect(config);
        // After ssh2 has its own reader on the stream, so that watching for the first bytes takes none away.
        boundHandshake(stream, startedAt);
        if (hasCertAuthority) {
          const offerProblem = offerHostCertificates(client);
          if (offerProblem) log('warn', `Host certificates cannot be asked for (${offerProblem}); the host's plain key is checked instead.`);
        }
        const certificateProblem = installCertificateAuth(client);
        if (certificateProblem) plan.certificatesUnavailable(certificateProblem);
      } catch (error) {
        fail(new ServelabError('CONNECT_FAILED', `Cannot connect to ${where(target)}: ${(error as Error).message}`));
      }
    };
    if (sock) {
      start(sock, Date.now());
    } else if (target.proxyCommand) {
      const spawnedAt = Date.now();
      proxy = startProxyCommand(target.proxyCommand, { ...(opts.env ? { env: opts.env } : {}), log });
      start(proxy, spawnedAt);
    } else {
      let attemptStartedAt = Date.now();
      // With ConnectTimeout the TCP connect has limits of its own (per attempt, ConnectionAttempts times), and the
      // overall deadline is left for the handshake and the login (the handshake bounded by ConnectTimeout too);
      // without it, the deadline covers the connect too.
      const ownLimit = typeof target.connectTimeoutSeconds === 'number' && target.connectTimeoutSeconds > 0;
      if (ownLimit) deadline.pause();
      connectTcp(target.host, target.port, {
        attempts: target.connectionAttempts ?? 1,
        timeoutSeconds: target.connectTimeoutSeconds ?? null,
        log,
        signal: abort.signal,
        onAttempt: () => {
          attemptStartedAt = Date.now();
        },
      })
        .finally(() => {
          if (ownLimit) deadline.resume();
        })
        .then((socket) => start(socket, attemptStartedAt), (error: Error & { code?: string }) => fail(connectError(error, target, role)));
    }
  });
}

// What a command prints when it wanted to ask someone something; a ProxyCommand has no terminal to ask on.
const WANTED_INPUT = /\/dev\/tty|read_passphrase|ssh_askpass|askpass|password:|passphrase/i;

function proxyFailure(proxy: ProxyCommandStream, target: SshTarget): ServelabError {
  const stderr = proxy.lastStderr();
  const exit = proxy.exit;
  const wantedInput = stderr.some((line) => WANTED_INPUT.test(line));
  return new ServelabError(
    'CONNECT_FAILED',
    `The ProxyCommand for ${where(target)} ${proxy.describeExit()} before the SSH connection was set up` +
      (stderr.length > 0 ? `; its last output: ${stderr.join(' / ')}.` : ', printing nothing on stderr.') +
      (wantedInput ? ' It runs without a terminal, so it cannot ask for a password or passphrase: put the key in the SSH agent or use a key without one.' : '') +
      ` Command: ${proxy.shownCommand}`,
    {
      details: {
        host: target.host,
        port: target.port,
        // Credential-looking values are hidden here too.
        proxyCommand: proxy.shownCommand,
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stderr,
        ...(exit?.spawnError ? { spawnError: exit.spawnError } : {}),
      },
    },
  );
}

/** `error` with `note` before its final full stop ("… handshake (its ProxyCommand exited normally)."). */
function withNote(error: ServelabError, note: string): ServelabError {
  return retold(error, /\.$/.test(error.message) ? `${error.message.slice(0, -1)}${note}.` : `${error.message}${note}`);
}

function withSentence(error: ServelabError, sentence: string): ServelabError {
  return retold(error, `${error.message} ${sentence}`);
}

function retold(error: ServelabError, message: string): ServelabError {
  return new ServelabError(error.code, message, { ...(error.details ? { details: error.details } : {}), ...(error.issues ? { issues: error.issues } : {}) });
}

/** `user@host:port`, the way messages name a target. */
function where(target: SshTarget): string {
  return targetAddress(target);
}

/** A timeout that does not run while paused (while a person is answering a prompt). */
class PausableTimer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private remaining: number;
  private startedAt = 0;
  private onExpire: (() => void) | undefined;
  private pauses = 0;
  private done = false;

  constructor(ms: number) {
    this.remaining = ms;
  }

  start(onExpire: () => void): void {
    this.onExpire = onExpire;
    if (this.pauses === 0) this.arm();
  }

  pause(): void {
    if (this.done) return;
    this.pauses++;
    if (this.pauses === 1 && this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.remaining = Math.max(0, this.remaining - (Date.now() - this.startedAt));
    }
  }

  resume(): void {
    if (this.done || this.pauses === 0) return;
    this.pauses--;
    if (this.pauses === 0 && this.onExpire) this.arm();
  }

  clear(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.done) return;
    this.startedAt = Date.now();
    this.timer = setTimeout(() => {
      this.done = true;
      this.onExpire?.();
    }, this.remaining);
  }
}

type HostKeyOutcome = 'known' | 'added' | ServelabError;

/** Where a hop's host keys are checked and accepted ones kept: known_hosts files, or memory for a /dev/null target. */
type HopKnownHosts = KnownHostsStore | SessionKnownHosts;

/**
 * Checks the presented key against known_hosts under hostKeyName(target), applying StrictHostKeyChecking to an
 * unknown key as OpenSSH 9.2 does (sshconnect.c check_host_key): `ask` (and `no`, see openSshHop) make it a
 * HOST_KEY_UNKNOWN question, `yes` refuses it with ssh's words, `accept-new` stores it in the app's file and goes
 * on. A changed or revoked key is refused whatever the setting.
 */
async function verifyHostKey(target: SshTarget, key: Buffer, knownHosts: HopKnownHosts, role: HopRole, log: ConnectionLogWriter, certificateReason?: string): Promise<HostKeyOutcome> {
  const keyType = keyTypeOf(key);
  const fingerprint = fingerprintSha256(key);
  const name = hostKeyName(target);
  const result = await knownHosts.checkName(name, keyType, key);
  const label = keyTypeLabel(keyType);
  const hostWord = role === 'jump' ? 'jump host' : 'host';
  const alias = target.hostKeyAlias ? { hostKeyAlias: target.hostKeyAlias } : {};
  const memoryOnly = knownHosts instanceof SessionKnownHosts;
  // Tells whoever accepts the key for the person to keep it where this hop keeps keys (memory, for /dev/null).
  const hop = { role, ...(target.alias ? { alias: target.alias } : {}), ...alias, ...(memoryOnly ? { keptInMemory: true } : {}) };
  switch (result.status) {
    case 'known':
      return 'known';
    case 'unknown': {
      // Neither accept-new nor a person could store it under that alias: say so before anything else.
      const unstorable = hostKeyAliasProblem(target);
      if (unstorable) return unstorable;
      const strict = target.strictHostKeyChecking ?? 'ask';
      if (strict === 'accept-new') {
        await knownHosts.add({ ...hostKeyPlace(target), keyType, publicKey: key.toString('base64') });
        if (memoryOnly) {
          log('warn', `Accepted the ${label} host key of '${name}' (StrictHostKeyChecking accept-new) for this run only: UserKnownHostsFile is /dev/null, so it is kept in memory, not saved. Fingerprint ${fingerprint}.`);
          return 'added';
        }
        // ssh's own words (sshconnect.c), with the file it went to: Servelab writes only its own.
        log('warn', `Warning: Permanently added '${name}' (${label}) to the list of known hosts (${knownHosts.writableFile}); StrictHostKeyChecking is accept-new. Fingerprint ${fingerprint}.`);
        return 'added';
      }
      const details = { host: target.host, port: target.port, keyType, fingerprint, publicKey: key.toString('base64'), ...hop };
      if (strict === 'yes') {
        return new ServelabError(
          'HOST_KEY_UNKNOWN',
          `${certificateReason ? `${certificateReason}.\n` : ''}No ${label} host key is known for ${name} and you have requested strict checking.\n` +
            `Host key verification failed. (StrictHostKeyChecking yes: add the ${hostWord}'s key to known_hosts to connect; its ${label} key fingerprint is ${fingerprint}.)`,
          { details: { ...details, strictHostKeyChecking: 'yes' } },
        );
      }
      if (result.certAuthorities.length > 0) return certificateOnlyTrust(name, hostWord, label, fingerprint, result.certAuthorities, details, certificateReason);
      return new ServelabError(
        'HOST_KEY_UNKNOWN',
        `The authenticity of ${hostWord} '${name}' can't be established: it is not in known_hosts. ` +
          `${label} key fingerprint is ${fingerprint}. Accept it only if it matches the key of the box ` +
          `(on the box: ssh-keygen -lf /etc/ssh/ssh_host_${label.toLowerCase()}_key.pub).` +
          (memoryOnly ? ' UserKnownHostsFile is /dev/null: an accepted key is kept for this run only, in memory, and asked about again after Servelab restarts.' : ''),
        { details },
      );
    }
    case 'changed': {
      const expected = result.expected.find((e) => e.keyType === keyType) ?? result.expected[0];
      const lines = [
        '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
        '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @',
        '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
        'IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!',
        'Someone could be eavesdropping on you right now (man-in-the-middle attack)!',
        'It is also possible that a host key has just been changed.',
        `The fingerprint for the ${label} key sent by the remote host is`,
        `${fingerprint}.`,
        'Please contact your system administrator.',
        ...result.expected.map((e) =>
          e.file === KEPT_IN_MEMORY ? `Offending ${keyTypeLabel(e.keyType)} key accepted earlier in this run, kept in ${e.file}` : `Offending ${keyTypeLabel(e.keyType)} key in ${e.file}:${e.line}`,
        ),
        `Host key for ${role === 'jump' ? 'jump host ' : ''}${name} has changed and Servelab requires strict host key checking.`,
        'Host key verification failed.',
      ];
      return new ServelabError('HOST_KEY_CHANGED', lines.join('\n'), {
        details: {
          host: target.host,
          port: target.port,
          keyType,
          fingerprint,
          // The presented key, so that an explicit "replace the key" stores exactly what was shown.
          publicKey: key.toString('base64'),
          ...(expected ? { expectedFingerprint: expected.fingerprint } : {}),
          ...hop,
        },
      });
    }
    case 'revoked':
      return new ServelabError(
        'HOST_KEY_REVOKED',
        [
          '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
          '@       WARNING: REVOKED HOST KEY DETECTED!               @',
          '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
          `The ${label} host key for ${role === 'jump' ? 'jump host ' : ''}${name} is marked as revoked in ${result.file}:${result.line}.`,
          'This could mean that a stolen key is being used to impersonate this host.',
          `${label} key fingerprint is ${fingerprint}.`,
          'Host key verification failed.',
        ].join('\n'),
        { details: { host: target.host, port: target.port, keyType, fingerprint, file: result.file, line: result.line, ...hop } },
      );
  }
}

/**
 * A host certificate (the server's K_S), checked as OpenSSH 9.2 does (sshconnect.c check_host_key/check_host_cert):
 * trusted when a matching `@cert-authority` line lists its CA, no `@revoked` line names the CA, and the
 * certificate is valid for the host's name (HostKeyAlias when set). Otherwise ssh says why and retries with the
 * certified plain key against known_hosts; so does this, and the reason leads the plain key's verdict.
 */
async function verifyHostCertificate(client: Client, target: SshTarget, certificate: Buffer, knownHosts: HopKnownHosts, role: HopRole, log: ConnectionLogWriter): Promise<HostKeyOutcome> {
  const name = hostKeyName(target);
  const hostWord = role === 'jump' ? 'jump host' : 'host';
  let cert;
  try {
    cert = parseHostCertificate(certificate);
  } catch (error) {
    return new ServelabError('HOST_KEY_UNKNOWN', `The host certificate of ${hostWord} '${name}' cannot be read (${(error as Error).message}).\nHost key verification failed.`, {
      details: { host: target.host, port: target.port, keyType: keyTypeOf(certificate) },
    });
  }
  // Before any await: ssh2 may verify the exchange signature (on the server's NEWKEYS) while this check is still
  // running, and must do it with the certified key. Trust is still decided below.
  const kexProblem = useCertifiedKey(client, certificate, cert.plainKey, cert.plainType);
  if (kexProblem) {
    return new ServelabError('HOST_KEY_UNKNOWN', `The host certificate of ${hostWord} '${name}' cannot be used: ${kexProblem}.\nHost key verification failed.`, {
      details: { host: target.host, port: target.port, keyType: cert.certType },
    });
  }
  const caFingerprint = fingerprintSha256(cert.caKey);
  const caLabel = `${keyTypeLabel(keyTypeOf(cert.caKey))} key ${caFingerprint}`;
  const certLabel = `${keyTypeLabel(cert.plainType)}-CERT`;
  const { authorities, revoked } = await knownHosts.certificateAuthoritiesNamed(name);
  const revokedCa = revoked.find((e) => e.key.equals(cert.caKey));
  if (revokedCa) {
    return new ServelabError(
      'HOST_KEY_REVOKED',
      [
        '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
        '@       WARNING: REVOKED HOST KEY DETECTED!               @',
        '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
        `The CA (${caLabel}) that signed the host certificate of ${role === 'jump' ? 'jump host ' : ''}${name} is marked as revoked in ${revokedCa.file}:${revokedCa.line}.`,
        'This could mean that a stolen key is being used to impersonate this host.',
        'Host key verification failed.',
      ].join('\n'),
      { details: { host: target.host, port: target.port, keyType: cert.certType, caFingerprint, file: revokedCa.file, line: revokedCa.line, role } },
    );
  }
  const ca = authorities.find((e) => e.key.equals(cert.caKey));
  const reason = ca
    ? hostCertificateProblem(cert, target.hostKeyAlias ?? target.host)
    : `Certificate invalid: signed by unknown CA (${caLabel}): no @cert-authority line for '${name}' lists it`;
  if (!reason) {
    log('info', `Host '${name}' is known and matches the ${certLabel} host certificate (ID "${cert.keyId}", serial ${cert.serial}, CA ${caLabel}, @cert-authority in ${ca!.file}:${ca!.line}).`);
    return 'known';
  }
  log('warn', `${reason}. Retrying with the certified plain key.`);
  const plain = await verifyHostKey(target, cert.plainKey, knownHosts, role, log, reason);
  return plain;
}

/**
 * A host that known_hosts trusts only through `@cert-authority` lines, but that showed no acceptable host
 * certificate (`certificateReason` says what was wrong with the one it showed): say so, rather than calling the
 * host simply unknown.
 */
function certificateOnlyTrust(name: string, hostWord: string, label: string, fingerprint: string, authorities: CertAuthorityMatch[], details: Record<string, unknown>, certificateReason?: string): ServelabError {
  const lines = authorities.map((ca) => `@cert-authority in ${ca.file}:${ca.line} (CA ${keyTypeLabel(ca.keyType)} key ${ca.fingerprint})`);
  return new ServelabError(
    'HOST_KEY_UNKNOWN',
    `${certificateReason ? `${certificateReason}.\n` : ''}known_hosts trusts ${hostWord} '${name}' only through host certificates: ${lines.join('; ')}. ` +
      `${certificateReason ? 'Its certificate was refused' : 'It presented no host certificate'}, and its plain key is not in known_hosts. ` +
      `The ${hostWord}'s ${label} key fingerprint is ${fingerprint}: compare it with the box (ssh-keygen -lf /etc/ssh/ssh_host_${label.toLowerCase()}_key.pub) before accepting it.`,
    { details: { ...details, certAuthorities: authorities } },
  );
}

/** Known key types first, so a host listed with (say) only an RSA key is asked for that key, as OpenSSH does. */
function preferredHostKeyAlgorithms(knownKeyTypes: string[]): HostKeyAlgorithm[] | undefined {
  if (knownKeyTypes.length === 0) return undefined;
  const first: HostKeyAlgorithm[] = [];
  for (const type of knownKeyTypes) {
    const algorithms: HostKeyAlgorithm[] = type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : HOST_KEY_ALGORITHMS.filter((a) => a === type);
    for (const a of algorithms) if (!first.includes(a)) first.push(a);
  }
  if (first.length === 0) return undefined;
  return [...first, ...HOST_KEY_ALGORITHMS.filter((a) => !first.includes(a))];
}

function connectError(error: Error & { level?: string; code?: string; attempts?: number }, target: SshTarget, role: HopRole): ServelabError {
  const mapped = connectErrorOnce(error, target, role);
  // ConnectionAttempts: say that it was not a single try.
  return error.attempts && error.attempts > 1 ? withSentence(mapped, `Tried ${error.attempts} times (ConnectionAttempts).`) : mapped;
}

function connectErrorOnce(error: Error & { level?: string; code?: string }, target: SshTarget, role: HopRole): ServelabError {
  const hostPort = `${role === 'jump' ? 'jump host ' : ''}${target.host}:${target.port}`;
  if (error.level === 'client-timeout' || error.code === 'ETIMEDOUT') {
    return new ServelabError('TIMEOUT', `Timed out connecting to ${hostPort} (${error.message}).`, { details: { host: target.host, port: target.port } });
  }
  const details = { host: target.host, port: target.port, cause: error.code ?? error.message, role };
  switch (error.code) {
    case 'ECONNREFUSED':
      return new ServelabError('CONNECT_FAILED', `Connection refused by ${hostPort}: is sshd running there and is the port right?`, { details });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new ServelabError('CONNECT_FAILED', `Cannot resolve the host name "${target.host}".`, { details });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new ServelabError('CONNECT_FAILED', `${hostPort} is unreachable from this machine (${error.code}).`, { details });
    case 'ECONNRESET':
      return new ServelabError('CONNECT_FAILED', `${hostPort} reset the connection during the SSH handshake.`, { details });
  }
  if (error.level === 'client-dns') {
    return new ServelabError('CONNECT_FAILED', `Cannot resolve the host name "${target.host}": ${error.message}`, { details });
  }
  return new ServelabError('CONNECT_FAILED', `SSH connection to ${hostPort} failed: ${error.message}`, { details });
}
