// Every string shellQuote accepts must reach a remote process byte-for-byte, through the real sshd: as printf
// arguments to plain `sh -s`, as env values, and through the product's own paths (BoxTransport.run with its login
// profile and stdin wrapper, jobs().start with its cwd, env, secretEnv, nested `sh -c WRAPPER … "$@"` and `command`
// file). Each runs under three shells as the box's /bin/sh: dash (Debian), `bash --posix` and busybox ash. The seed
// is random per run and printed; SHELL_QUOTE_FUZZ_SEED=<seed> repeats a run.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from 'ssh2';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { KnownHostsStore } from '../../src/core/ssh/known-hosts';
import { openSshClient } from '../../src/core/ssh/connect';
import { SshConnectionPool } from '../../src/core/ssh/connection-pool';
import { SshBoxTransport } from '../../src/core/box/ssh-box-transport';
import { shellCommand, shellQuote } from '../../src/shared/shell-quote';
import { execBinary } from '../../src/core/jobs/exec-binary';
import { commandFileText } from '../../src/core/jobs/job-scripts';

const SEED = Number(process.env.SHELL_QUOTE_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const IS_ROOT = typeof process.getuid === 'function' && process.getuid() === 0;
const FAST_RETRY = { initialDelayMs: 20, maxDelayMs: 500, giveUpAfterMs: 20_000 };

interface ShellUnderTest {
  name: string;
  /** What to mount over /bin/sh for sshd's sessions; none for the box's own (Debian: dash). */
  binSh?: (scratch: string) => Promise<string>;
  /** /proc/<pid>/exe of a shell started as `sh`. */
  exe: string;
  /** Random strings sent as printf arguments to `sh -s`. */
  count: number;
  /** Scripts through BoxTransport.run, and jobs through jobs().start. */
  runs: number;
  jobs: number;
}

const SHELLS: ShellUnderTest[] = [
  { name: 'dash', exe: '/usr/bin/dash', count: 10_000, runs: 48, jobs: 24 },
  {
    name: 'bash --posix',
    // Named sh, as on boxes whose /bin/sh is bash: it reads the login profile, then parses everything in POSIX mode
    // (asserted below). `bash --posix -l` itself would skip ~/.profile, which no box's sh does.
    binSh: (scratch) => wrapper(scratch, 'bash-as-sh', '#!/usr/bin/bash\nexec -a sh /usr/bin/bash "$@"\n'),
    exe: '/usr/bin/bash',
    count: 10_000,
    runs: 32,
    jobs: 16,
  },
  {
    name: 'busybox ash',
    // A wrapper rather than the binary itself, so /proc/<pid>/exe names busybox instead of the mount point.
    binSh: (scratch) => wrapper(scratch, 'busybox-sh', '#!/usr/bin/busybox sh\nexec /usr/bin/busybox sh "$@"\n'),
    exe: '/usr/bin/busybox',
    count: 10_000,
    runs: 32,
    jobs: 16,
  },
];

const MAX_ARGS_PER_EXEC = 200;
// Well under Linux's ARG_MAX (2 MiB with the default stack limit) once quoting has grown the words.
const MAX_BATCH_BYTES = 256 * 1024;

async function wrapper(scratch: string, name: string, text: string): Promise<string> {
  const path = join(scratch, name);
  await writeFile(path, text, { mode: 0o755 });
  await chmod(path, 0o755);
  return path;
}

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


/** A generator of its own per shell and per check, so one seed reproduces each check on its own. */
function randomFor(shell: ShellUnderTest, check: string): () => number {
  let h = SEED >>> 0;
  for (const c of `${shell.name}/${check}`) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return prng(h);
}

/** The job's view of itself: which shells run it and its parent, its cwd, its argv, then the named env values. */
function dumpScript(envNames: string[]): string {
  return [
    'readlink "/proc/$PPID/exe"',
    'readlink "/proc/$$/exe"',
    // $(…) drops trailing newlines, which a folder name may end with: protect them with a final dot.
    'cwd=$(pwd -P; echo .); cwd=${cwd%?.}',
    "printf '%s\\0' \"$cwd\"",
    "printf '%s\\0' \"$@\"",
    "printf 'ENV\\0'",
    ...envNames.map((n) => `printf '%s\\0' "\${${n}-}"`),
    ':',
  ].join('\n');
}

/** A folder name (one path segment, at most 200 bytes) out of a random string. */
function randomFolderName(random: () => number): string {
  let name = randomString(random).replace(/\//g, '_');
  while (Buffer.byteLength(name, 'utf8') > 200) name = [...name].slice(0, -1).join('');
  return name === '' || name === '.' || name === '..' ? `d${name}` : name;
}

/** Random strings of a bounded total size, so a job's argv and env stay far below ARG_MAX. */
function randomStrings(random: () => number, count: number, maxBytes: number): string[] {
  const out: string[] = [];
  let bytes = 0;
  while (out.length < count) {
    const s = randomString(random);
    const size = Buffer.byteLength(s, 'utf8');
    if (bytes + size > maxBytes) continue;
    out.push(s);
    bytes += size;
  }
  return out;
}

async function parallel<T>(items: T[], workers: number, each: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await each(item);
    }),
  );
}

function show(text: string): string {
  return JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…` : text);
}

console.log(`shell-quote fuzz seed: ${SEED} (SHELL_QUOTE_FUZZ_SEED=${SEED} to repeat)`);

describe.each(SHELLS)('shellQuote over a real sshd with $name as /bin/sh', (shell) => {
  const needsRoot = shell.binSh !== undefined && !IS_ROOT;
  let sshd: TestSshd;
  let scratch: string;
  let client: Client;
  let pool: SshConnectionPool;
  let box: SshBoxTransport;
  let owner: { uid: number; gid: number };

  beforeAll(async () => {
    if (needsRoot) return;
    scratch = await mkdtemp(join(tmpdir(), 'servelab-fuzz-'));
    await chmod(scratch, 0o755);
    const binSh = shell.binSh ? await shell.binSh(scratch) : undefined;
    sshd = await startTestSshd({ nvidiaSmi: false, ...(binSh ? { binSh } : {}) });
    const knownHosts = new KnownHostsStore({ appFile: join(scratch, 'known_hosts'), readOnlyFiles: [] });
    const publicKey = (await readFile(join(sshd.dir, 'ssh_host_ed25519_key.pub'), 'utf8')).split(' ')[1] as string;
    await knownHosts.add({ host: sshd.host, port: sshd.port, keyType: sshd.hostKeyType, publicKey });
    const target = { host: sshd.host, port: sshd.port, user: sshd.user, identityFile: sshd.identityFile };
    client = await openSshClient(target, { knownHosts, timeoutSeconds: 10 });
    pool = new SshConnectionPool({ knownHosts, timeoutSeconds: 10 });
    box = new SshBoxTransport({ hostId: 'fuzz', pool, target, retry: FAST_RETRY });
    const home = await stat(sshd.homeDir);
    owner = { uid: home.uid, gid: home.gid };
  });

  afterAll(async () => {
    box?.release();
    await pool?.closeAll();
    client?.end();
    await sshd?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it.skipIf(needsRoot)('parses every script with that shell: sh -s, sh -l -s with and without stdin, and the job wrapper', { timeout: 30_000 }, async () => {
    const identify = 'readlink "/proc/$$/exe"; printf \'%s\\n\' "${SHELLOPTS-}"; :\n';
    const plain = await execBinary(client, 'sh -s', { stdin: identify, timeoutMs: 10_000 });
    expect(plain.stdout.toString('utf8').split('\n')[0]).toBe(shell.exe);
    if (shell.name === 'bash --posix') expect(plain.stdout.toString('utf8')).toMatch(/(^|:)posix(:|$)/m);
    for (const stdin of [undefined, 'x']) {
      const login = await box.run(identify, { timeoutSeconds: 10, ...(stdin !== undefined ? { stdin } : {}) });
      expect(login.stdout).toContain(`${shell.exe}\n`);
      if (shell.name === 'bash --posix') expect(login.stdout).toMatch(/(^|:)posix(:|$)/m);
      // The login profile ran (its chatter is on stdout).
      expect(login.stdout).toContain('profile noise');
    }
    const handle = await box.jobs().start({ command: ['/bin/sh', '-c', dumpScript([])] });
    let log = '';
    expect(await handle.stream((text) => (log += text))).toBe(0);
    expect(log.split('\n').slice(0, 2)).toEqual([shell.exe, shell.exe]);
  });

  it.skipIf(needsRoot)(`carries ${shell.count} random strings as arguments to sh -s byte-for-byte`, { timeout: 60_000 }, async () => {
    const random = randomFor(shell, 'printf');
    const strings = Array.from({ length: shell.count }, () => randomString(random));
    expect(strings.some((s) => s.length >= 1000)).toBe(true);
    expect(strings).toContain('');

    let checked = 0;
    // A few channels at once: the connection multiplexes them and the box has cores to spare.
    await parallel(batches(strings), 3, async (batch) => {
      const script = `${shellCommand(['/usr/bin/printf', '%s\\0', ...batch])}\n`;
      const result = await execBinary(client, 'sh -s', { stdin: script, timeoutMs: 30_000 });
      expect(result.stderr, `seed ${SEED}`).toBe('');
      expect(result.code, `seed ${SEED}`).toBe(0);
      const received = splitNul(result.stdout);
      expect(received.length, `seed ${SEED}`).toBe(batch.length);
      batch.forEach((sent, i) => {
        const expected = Buffer.from(sent, 'utf8');
        if (!expected.equals(received[i] as Buffer)) {
          throw new Error(`seed ${SEED}: argument ${show(sent)} arrived as ${show((received[i] as Buffer).toString('utf8'))}`);
        }
      });
      checked += batch.length;
    });
    expect(checked).toBe(shell.count);
  });

  it.skipIf(needsRoot)(`carries arguments, env values and stdin through ${shell.runs} BoxTransport.run scripts (sh -l -s)`, { timeout: 60_000 }, async () => {
    const random = randomFor(shell, 'run');
    await parallel(
      Array.from({ length: shell.runs }, (_, i) => i),
      3,
      async (i) => {
        const args = randomStrings(random, 60, 64 * 1024);
        const envValues = randomStrings(random, 8, 16 * 1024);
        // Every other script reads stdin: that one runs as the body of the stdin wrapper's function.
        const stdin = i % 2 === 0 ? randomStrings(random, 20, 16 * 1024).join('\0') : undefined;
        const script = [
          "printf 'BEGIN\\0'",
          ...envValues.map((v, n) => `FUZZ_${n}=${shellQuote(v)}; export FUZZ_${n}`),
          shellCommand(['printf', '%s\\0', ...args]),
          `/usr/bin/printf '%s\\0' ${envValues.map((_, n) => `"$FUZZ_${n}"`).join(' ')}`,
          ...(stdin !== undefined ? ['cat'] : []),
          '',
        ].join('\n');
        const result = await box.run(script, { timeoutSeconds: 30, ...(stdin !== undefined ? { stdin } : {}) });
        expect(result.stderr, `seed ${SEED}`).toBe('');
        expect(result.code, `seed ${SEED}`).toBe(0);
        const at = result.stdout.indexOf('BEGIN\0');
        expect(at, `seed ${SEED}: no output marker in ${show(result.stdout)}`).toBeGreaterThanOrEqual(0);
        const received = result.stdout.slice(at + 'BEGIN\0'.length);
        const expected = [...args, ...envValues].map((s) => `${s}\0`).join('') + (stdin ?? '');
        if (received !== expected) throw new Error(`seed ${SEED}: script ${i} sent ${show(expected)}, the box printed ${show(received)}`);
      },
    );
  });

  it.skipIf(needsRoot)(`starts ${shell.jobs} jobs with random argv, env, secretEnv and cwd, and reruns their command files`, { timeout: 90_000 }, async () => {
    const random = randomFor(shell, 'jobs');
    await parallel(
      Array.from({ length: shell.jobs }, (_, i) => i),
      3,
      async (i) => {
        // The working folder: below HOME given as ~/…, as an absolute path, or relative to HOME (which sh -s starts in).
        const form = i % 3;
        // A cwd of `~` alone means HOME, by design; as a folder name below HOME it is fine.
        const named = randomFolderName(random);
        const folder = form === 2 && named === '~' ? 'd~' : named;
        // Every draw before the first await, so a job's inputs depend on the seed alone, not on the workers' timing.
        const argv = randomStrings(random, 40, 48 * 1024);
        const env = Object.fromEntries(randomStrings(random, 6, 12 * 1024).map((v, n) => [`FUZZ_E${n}`, v]));
        const secretEnv = Object.fromEntries(randomStrings(random, 3, 6 * 1024).map((v, n) => [`FUZZ_S${n}`, v]));
        const relative = form === 2 ? folder : join(`fuzz-cwd-${i}`, folder);
        const absolute = join(sshd.homeDir, relative);
        await mkdir(absolute, { recursive: true });
        if (form !== 2) await chown(join(sshd.homeDir, `fuzz-cwd-${i}`), owner.uid, owner.gid);
        await chown(absolute, owner.uid, owner.gid);
        const cwd = form === 0 ? `~/${relative}` : form === 1 ? absolute : relative;
        const names = [...Object.keys(env), ...Object.keys(secretEnv)];
        const command = ['/bin/sh', '-c', dumpScript(names), 'servelab-fuzz', ...argv];
        const context = `seed ${SEED}, job ${i}, cwd ${show(cwd)}`;

        const handle = await box.jobs().start({ command, cwd, env, secretEnv, label: `fuzz ${i}` });
        let log = '';
        expect(await handle.stream((text) => (log += text)), context).toBe(0);
        const tail = (secrets: boolean) =>
          [absolute, ...argv, 'ENV', ...Object.values(env), ...Object.values(secretEnv).map((v) => (secrets ? v : ''))].map((s) => `${s}\0`).join('');
        const expected = `${shell.exe}\n${shell.exe}\n${tail(true)}`;
        if (log !== expected) throw new Error(`${context}: the job printed ${show(log)}, expected ${show(expected)}`);
        // The same bytes on disk, whatever the stream's decoding did.
        expect((await readFile(join(handle.remoteDir, 'log'))).equals(Buffer.from(expected, 'utf8')), context).toBe(true);

        // The command file reruns the job as it was, without the secret values (which were never written).
        const commandFile = await readFile(join(handle.remoteDir, 'command'), 'utf8');
        expect(commandFile, context).toBe(`${handle.command}\n`);
        // Secret values do not reach it: other values give the same text.
        const otherSecrets = Object.fromEntries(Object.keys(secretEnv).map((name) => [name, 'other']));
        expect(commandFileText({ argv: command, cwd, env, secretEnv: otherSecrets }), context).toBe(handle.command);
        const rerun = await box.run(`printf 'BEGIN\\0'\n${commandFile}`, { timeoutSeconds: 30 });
        expect(rerun.stderr, context).toBe('');
        expect(rerun.code, context).toBe(0);
        const rerunOutput = rerun.stdout.slice(rerun.stdout.indexOf('BEGIN\0') + 'BEGIN\0'.length);
        // Line 1 is the rerun's parent (the login sh); line 2 the job's own shell.
        const lines = rerunOutput.split('\n');
        expect(lines[1], context).toBe(shell.exe);
        const rerunTail = lines.slice(2).join('\n');
        if (rerunTail !== tail(false)) throw new Error(`${context}: the command file printed ${show(rerunTail)}, expected ${show(tail(false))}`);
      },
    );
  });

});

describe('shellQuote', () => {
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
