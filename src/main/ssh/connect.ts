import { readFile } from 'node:fs/promises';
import * as ssh2Module from 'ssh2';
import type { Client, ConnectConfig } from 'ssh2';
import { ServelabError } from '../../shared/contract';
import type { SshTarget } from './ssh-target';
import { knownHostsName, type KnownHostsStore } from './known-hosts';
import { fingerprintSha256, keyTypeLabel, keyTypeOf } from './fingerprint';

// ssh2 is CommonJS: Node's ESM loader exposes `utils` only on the default export, bundlers on the namespace.
const ssh2: typeof ssh2Module = (ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module;

export interface OpenSshClientOptions {
  knownHosts: KnownHostsStore;
  /** Seconds for the TCP connect, handshake and authentication together. */
  timeoutSeconds: number;
}

const KEEPALIVE_INTERVAL_MS = 15_000;
const KEEPALIVE_COUNT_MAX = 4;

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
 * Opens an authenticated SSH connection after checking the server's host key against known_hosts.
 * Every failure is a ServelabError whose code says what went wrong (host key, auth, network, timeout).
 */
export async function openSshClient(target: SshTarget, opts: OpenSshClientOptions): Promise<Client> {
  const auth = await authConfig(target);
  const serverHostKey = preferredHostKeyAlgorithms(await opts.knownHosts.knownKeyTypes(target.host, target.port));
  const timeoutMs = Math.max(1, Math.round(opts.timeoutSeconds * 1000));

  return new Promise<Client>((resolve, reject) => {
    const client = new ssh2.Client();
    // ssh2 reports a refused host key only as "Host denied (verification failed)"; this keeps the real reason.
    let hostKeyFailure: ServelabError | undefined;
    let settled = false;

    const backstop = setTimeout(() => {
      fail(new ServelabError('TIMEOUT', `Connecting to ${where(target)} did not finish within ${opts.timeoutSeconds} s.`));
    }, timeoutMs + 2_000);

    function fail(error: ServelabError): void {
      if (settled) return;
      settled = true;
      clearTimeout(backstop);
      client.end();
      reject(error);
    }

    const hostVerifier = (key: Buffer, verify: (valid: boolean) => void): void => {
      // Must return undefined: ssh2 treats any returned value (a Promise included) as the verdict.
      verifyHostKey(target, key, opts.knownHosts).then(
        (failure) => {
          hostKeyFailure = failure;
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

    const config: ConnectConfig = {
      host: target.host,
      port: target.port,
      username: target.user,
      readyTimeout: timeoutMs,
      keepaliveInterval: KEEPALIVE_INTERVAL_MS,
      keepaliveCountMax: KEEPALIVE_COUNT_MAX,
      hostVerifier,
      ...auth.config,
    };
    if (serverHostKey) config.algorithms = { serverHostKey };

    client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) => {
      // Servers that only offer keyboard-interactive still ask for the password through a single prompt.
      finish(target.password !== undefined && prompts.length === 1 ? [target.password] : prompts.map(() => ''));
    });
    client.on('error', (error: Error & { level?: string; code?: string }) => {
      if (settled) return;
      fail(hostKeyFailure ?? connectError(error, target, auth.methods));
    });
    client.on('close', () => {
      if (settled) return;
      fail(hostKeyFailure ?? new ServelabError('CONNECT_FAILED', `${where(target)} closed the connection during the SSH handshake.`));
    });
    client.on('ready', () => {
      if (settled) {
        client.end();
        return;
      }
      settled = true;
      clearTimeout(backstop);
      // Later failures (keepalive timeout, reset) surface as 'close' to whoever is using the connection.
      client.on('error', () => {});
      resolve(client);
    });

    try {
      client.connect(config);
    } catch (error) {
      fail(new ServelabError('CONNECT_FAILED', `Cannot connect to ${where(target)}: ${(error as Error).message}`));
    }
  });
}

/** `user@host:port`, the way messages name a target. */
function where(target: SshTarget): string {
  return `${target.user}@${target.host}:${target.port}`;
}

async function verifyHostKey(target: SshTarget, key: Buffer, knownHosts: KnownHostsStore): Promise<ServelabError | undefined> {
  const keyType = keyTypeOf(key);
  const fingerprint = fingerprintSha256(key);
  const result = await knownHosts.check(target.host, target.port, keyType, key);
  const name = knownHostsName(target.host, target.port);
  const label = keyTypeLabel(keyType);
  switch (result.status) {
    case 'known':
      return undefined;
    case 'unknown':
      return new ServelabError(
        'HOST_KEY_UNKNOWN',
        `The authenticity of host '${name}' can't be established: it is not in known_hosts. ` +
          `${label} key fingerprint is ${fingerprint}. Accept it only if it matches the key of the box ` +
          `(on the box: ssh-keygen -lf /etc/ssh/ssh_host_${label.toLowerCase()}_key.pub).`,
        { details: { host: target.host, port: target.port, keyType, fingerprint, publicKey: key.toString('base64') } },
      );
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
        ...result.expected.map((e) => `Offending ${keyTypeLabel(e.keyType)} key in ${e.file}:${e.line}`),
        `Host key for ${name} has changed and Servelab requires strict host key checking.`,
        'Host key verification failed.',
      ];
      return new ServelabError('HOST_KEY_CHANGED', lines.join('\n'), {
        details: { host: target.host, port: target.port, keyType, fingerprint, ...(expected ? { expectedFingerprint: expected.fingerprint } : {}) },
      });
    }
    case 'revoked':
      return new ServelabError(
        'HOST_KEY_REVOKED',
        [
          '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
          '@       WARNING: REVOKED HOST KEY DETECTED!               @',
          '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
          `The ${label} host key for ${name} is marked as revoked in ${result.file}:${result.line}.`,
          'This could mean that a stolen key is being used to impersonate this host.',
          `${label} key fingerprint is ${fingerprint}.`,
          'Host key verification failed.',
        ].join('\n'),
        { details: { host: target.host, port: target.port, keyType, fingerprint, file: result.file, line: result.line } },
      );
  }
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

interface AuthConfig {
  config: Pick<ConnectConfig, 'privateKey' | 'passphrase' | 'password' | 'tryKeyboard'>;
  /** The methods offered to the server, for the auth-failure message. */
  methods: string[];
}

async function authConfig(target: SshTarget): Promise<AuthConfig> {
  const config: AuthConfig['config'] = {};
  const methods: string[] = [];
  if (target.identityFile) {
    config.privateKey = await readPrivateKey(target);
    if (target.passphrase) config.passphrase = target.passphrase;
    methods.push(`publickey (${target.identityFile})`);
  }
  if (target.password !== undefined) {
    config.password = target.password;
    config.tryKeyboard = true;
    methods.push('password', 'keyboard-interactive');
  }
  if (methods.length === 0) {
    throw new ServelabError('AUTH_FAILED', `No identity file or password is set for ${where(target)}; give one of them to log in.`);
  }
  return { config, methods };
}

async function readPrivateKey(target: SshTarget): Promise<Buffer> {
  const path = target.identityFile as string;
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'cannot be read (permission denied)' : code === 'EISDIR' ? 'is a folder' : `cannot be read (${(error as Error).message})`;
    throw new ServelabError('AUTH_FAILED', `Identity file ${path} ${reason}.`, { details: { identityFile: path } });
  }
  const parsed = ssh2.utils.parseKey(data, target.passphrase);
  if (parsed instanceof Error) {
    if (/no passphrase given/i.test(parsed.message)) {
      throw new ServelabError('AUTH_FAILED', `Identity file ${path} is encrypted; a passphrase is needed to use it.`, {
        details: { identityFile: path, needsPassphrase: true },
      });
    }
    if (target.passphrase) {
      throw new ServelabError('AUTH_FAILED', `Identity file ${path} could not be decrypted with the passphrase given (${parsed.message}).`, {
        details: { identityFile: path },
      });
    }
    throw new ServelabError('AUTH_FAILED', `Identity file ${path} is not a private key Servelab can read (${parsed.message}).`, {
      details: { identityFile: path },
    });
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key || !key.isPrivateKey()) {
    throw new ServelabError('AUTH_FAILED', `Identity file ${path} holds a public key; give the private key file (without .pub).`, {
      details: { identityFile: path },
    });
  }
  return data;
}

function connectError(error: Error & { level?: string; code?: string }, target: SshTarget, methods: string[]): ServelabError {
  const hostPort = `${target.host}:${target.port}`;
  if (error.level === 'client-authentication') {
    const hints = ['Check the user name'];
    if (target.identityFile) hints.push("that the public key is in the user's ~/.ssh/authorized_keys on the box");
    if (target.password !== undefined) hints.push('the password, and that the server allows password login');
    return new ServelabError(
      'AUTH_FAILED',
      `Permission denied for ${target.user}@${target.host} (port ${target.port}); tried ${methods.join(', ')}. ${hints.join(', ')}.`,
      { details: { host: target.host, port: target.port, user: target.user, methods } },
    );
  }
  if (error.level === 'client-timeout' || error.code === 'ETIMEDOUT') {
    return new ServelabError('TIMEOUT', `Timed out connecting to ${hostPort} (${error.message}).`, { details: { host: target.host, port: target.port } });
  }
  const details = { host: target.host, port: target.port, cause: error.code ?? error.message };
  switch (error.code) {
    case 'ECONNREFUSED':
      return new ServelabError('CONNECT_FAILED', `Connection refused by ${hostPort}: is sshd running there and is the port right?`, { details });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new ServelabError('CONNECT_FAILED', `Cannot resolve the host name "${target.host}".`, { details });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new ServelabError('CONNECT_FAILED', `${target.host} is unreachable from this machine (${error.code}).`, { details });
    case 'ECONNRESET':
      return new ServelabError('CONNECT_FAILED', `${hostPort} reset the connection during the SSH handshake.`, { details });
  }
  if (error.level === 'client-dns') {
    return new ServelabError('CONNECT_FAILED', `Cannot resolve the host name "${target.host}": ${error.message}`, { details });
  }
  return new ServelabError('CONNECT_FAILED', `SSH connection to ${hostPort} failed: ${error.message}`, { details });
}
