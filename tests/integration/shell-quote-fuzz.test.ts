// Every string shellQuote accepts must reach a remote process byte-for-byte, through the real sshd and `sh -s`.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'ssh2';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import { shellCommand, shellQuote } from '../../src/shared/shell-quote';
import { execBinary } from '../../src/core/jobs/exec-binary';

const COUNT = 10_000;
const MAX_ARGS_PER_EXEC = 200;
// Well under Linux's ARG_MAX (2 MiB with the default stack limit) once quoting has grown the words.
const MAX_BATCH_BYTES = 256 * 1024;

let sshd: TestSshd;
let scratch: string;
let client: Client;

/** mulberry32: small, fast and good enough to make a failing case reproducible from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SHELL_PIECES = [
  "'", '"', "''", '"\'"', '$(', ')', '$(id)', '`', '`id`', '${HOME}', '$HOME', '$1', '$@', '$*', '$$', '$?', '$#', ';', '&&', '||', '&', '|',
  '\n', '\r', '\r\n', '\t', ' ', '  ', '*', '?', '[', ']', '[a-z]', '{a,b}', '~', '~root', '#', '!', '!!', '\\', '\\\\', '\\n', '-', '--', '-e',
  '%', '%s', '%%', '%n', '<', '>', '>>', '<<EOF', '(', ')', '=', 'a=b', '^', ',', '.', '..', '/', '\u00a0', '\u2028', '\ufeff',
];

function randomCodePoint(random: () => number): string {
  const kind = random();
  if (kind < 0.45) return String.fromCharCode(0x20 + Math.floor(random() * 0x5f)); // printable ASCII
  if (kind < 0.55) return String.fromCharCode(1 + Math.floor(random() * 0x1f)); // control characters, never NUL
  if (kind < 0.65) return String.fromCharCode(0x300 + Math.floor(random() * 0x70)); // combining marks
  if (kind < 0.8) {
    // Any BMP character outside the surrogate range, so the string stays valid UTF-16 (and UTF-8).
    let cp = 0x80 + Math.floor(random() * (0xffff - 0x80));
    if (cp >= 0xd800 && cp <= 0xdfff) cp -= 0x800;
    return String.fromCodePoint(cp);
  }
  if (kind < 0.9) return String.fromCodePoint(0x1f300 + Math.floor(random() * 0x300)); // emoji and friends
  return String.fromCodePoint(0x10000 + Math.floor(random() * (0x10ffff - 0x10000))); // any astral code point
}

function randomString(random: () => number): string {
  const shape = random();
  if (shape < 0.03) return '';
  const length = shape < 0.05 ? 1000 + Math.floor(random() * 3000) : Math.floor(random() * 24);
  let out = shape < 0.1 ? '-' : '';
  while (out.length < length) {
    out += random() < 0.4 ? (SHELL_PIECES[Math.floor(random() * SHELL_PIECES.length)] as string) : randomCodePoint(random);
  }
  return out;
}

function batches(strings: string[]): string[][] {
  const out: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const s of strings) {
    const size = Buffer.byteLength(shellQuote(s), 'utf8') + 1;
    if (current.length > 0 && (current.length >= MAX_ARGS_PER_EXEC || bytes + size > MAX_BATCH_BYTES)) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(s);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}

beforeAll(async () => {
  sshd = await startTestSshd({ nvidiaSmi: false });
  scratch = await mkdtemp(join(tmpdir(), 'servelab-fuzz-'));
  const knownHosts = new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] });
  const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
  await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
  client = await openSshClient({ host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile }, { knownHosts, timeoutSeconds: 10 });
});

afterAll(async () => {
  client?.end();
  await sshd?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('shellQuote over a real sshd', () => {
  it(`carries ${COUNT} random strings to a remote process byte-for-byte`, { timeout: 60_000 }, async () => {
    const seed = Number(process.env.SHELL_QUOTE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
    console.log(`shell-quote fuzz seed: ${seed} (SHELL_QUOTE_FUZZ_SEED=${seed} to repeat)`);
    const random = prng(seed);
    const strings = Array.from({ length: COUNT }, () => randomString(random));
    expect(strings.some((s) => s.length >= 1000)).toBe(true);
    expect(strings).toContain('');

    const groups = batches(strings);
    let checked = 0;
    // A few channels at once: the connection multiplexes them and the box has cores to spare.
    const queue = [...groups];
    const worker = async () => {
      for (let batch = queue.shift(); batch; batch = queue.shift()) {
        const script = `${shellCommand(['/usr/bin/printf', '%s\\0', ...batch])}\n`;
        const result = await execBinary(client, 'sh -s', { stdin: script, timeoutMs: 30_000 });
        expect(result.stderr, `seed ${seed}`).toBe('');
        expect(result.code, `seed ${seed}`).toBe(0);
        const received = splitNul(result.stdout);
        expect(received.length, `seed ${seed}`).toBe(batch.length);
        batch.forEach((sent, i) => {
          const expected = Buffer.from(sent, 'utf8');
          if (!expected.equals(received[i] as Buffer)) {
            throw new Error(`seed ${seed}: argument ${JSON.stringify(sent)} arrived as ${JSON.stringify((received[i] as Buffer).toString('utf8'))}`);
          }
        });
        checked += batch.length;
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    expect(checked).toBe(COUNT);
  });

  it('refuses NUL, which no argument can carry', () => {
    expect(() => shellQuote('a\0b')).toThrow(/NUL/);
    expect(() => shellCommand(['ok', '\0'])).toThrow(/NUL/);
  });
});

function splitNul(data: Buffer): Buffer[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = data.indexOf(0); i >= 0; i = data.indexOf(0, start)) {
    parts.push(data.subarray(start, i));
    start = i + 1;
  }
  expect(start).toBe(data.length);
  return parts;
}
