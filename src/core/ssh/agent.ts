import { stat } from 'node:fs/promises';
import * as ssh2Module from 'ssh2';
import type { ParsedKey } from 'ssh2';

// ssh2 is CommonJS: Node's ESM loader exposes its classes only on the default export, bundlers on the namespace.
const ssh2: typeof ssh2Module = (ssh2Module as unknown as { default?: typeof ssh2Module }).default ?? ssh2Module;

/** Why an agent socket cannot be used, in words for the connection log; null when it looks usable. */
export async function agentSocketProblem(socketPath: string): Promise<string | null> {
  if (socketPath.startsWith('@')) return `the agent socket ${socketPath} is an abstract socket, which Servelab cannot use`;
  try {
    const info = await stat(socketPath);
    return info.isSocket() ? null : `${socketPath} is not a socket`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `the agent socket ${socketPath} does not exist` : `the agent socket ${socketPath} cannot be used (${code ?? (error as Error).message})`;
  }
}

export interface AgentOptions {
  /**
   * When set, only agent keys whose public blob is in this list are offered (IdentitiesOnly). An empty
   * list offers nothing.
   */
  onlyKeys?: Buffer[];
  /** Told how many keys the agent offers, after filtering, for the connection log. */
  onIdentities?: (offered: number, held: number) => void;
}

type IdentitiesCallback = (error: Error | null, keys?: ParsedKey[]) => void;

/** An OpenSSH agent client that can hide keys not named by IdentityFile, as `IdentitiesOnly yes` asks. */
export function createAgent(socketPath: string, opts: AgentOptions = {}): ssh2Module.BaseAgent {
  const agent = new ssh2.OpenSSHAgent(socketPath);
  const original = agent.getIdentities.bind(agent) as (cb: IdentitiesCallback) => void;
  (agent as unknown as { getIdentities: (cb: IdentitiesCallback) => void }).getIdentities = (cb) => {
    original((error, keys) => {
      if (error || !keys) return cb(error ?? new Error('The agent returned no key list'));
      const offered = opts.onlyKeys ? keys.filter((key) => opts.onlyKeys?.some((blob) => blob.equals(publicBlob(key)))) : keys;
      opts.onIdentities?.(offered.length, keys.length);
      cb(null, offered);
    });
  };
  return agent;
}

function publicBlob(key: ParsedKey | Buffer): Buffer {
  if (Buffer.isBuffer(key)) {
    const parsed = ssh2.utils.parseKey(key);
    const first = Array.isArray(parsed) ? parsed[0] : parsed;
    return first && !(first instanceof Error) ? first.getPublicSSH() : Buffer.alloc(0);
  }
  return key.getPublicSSH();
}

/** The agent's public keys, unfiltered (a CertificateFile may name any of them, IdentitiesOnly or not). */
export function agentIdentities(socketPath: string): Promise<ParsedKey[]> {
  return new Promise((resolve, reject) => {
    new ssh2.OpenSSHAgent(socketPath).getIdentities((error, keys) => (error ? reject(error) : resolve((keys ?? []).filter((key): key is ParsedKey => typeof (key as ParsedKey).getPublicSSH === 'function'))));
  });
}

type SignCallback = ssh2Module.SignCallback;

/**
 * An agent that holds one key only: `key`, an agent key already marked with its certificate (withCertificate), so
 * that ssh2's agent login offers the certificate and the real agent signs with the plain key, as ssh does for a
 * CertificateFile whose private key is only in the agent (sshconnect2.c pubkey_prepare).
 */
export function singleKeyAgent(socketPath: string, key: ParsedKey): ssh2Module.BaseAgent {
  const real = new ssh2.OpenSSHAgent(socketPath);
  class SingleKeyAgent extends ssh2.BaseAgent<ParsedKey> {
    getIdentities(cb: (error: Error | undefined, keys?: ParsedKey[]) => void): void {
      cb(undefined, [key]);
    }

    sign(pubKey: ParsedKey, data: Buffer, options: ssh2Module.SigningRequestOptions, cb?: SignCallback): void;
    sign(pubKey: ParsedKey, data: Buffer, cb: SignCallback): void;
    sign(pubKey: ParsedKey, data: Buffer, options: ssh2Module.SigningRequestOptions | SignCallback, cb?: SignCallback): void {
      if (typeof options === 'function') real.sign(pubKey, data, options);
      else real.sign(pubKey, data, options, cb);
    }
  }
  return new SingleKeyAgent() as ssh2Module.BaseAgent;
}
