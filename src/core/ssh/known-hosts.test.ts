import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  KnownHostsStore,
  fingerprintSha256,
  hashKnownHostsName,
  hostFieldMatches,
  keyTypeOf,
  knownHostsName,
  wildcardMatch,
} from './known-hosts';

function sshString(value: Buffer | string): Buffer {
  const body = typeof value === 'string' ? Buffer.from(value) : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

/** A fresh ed25519 public key blob in SSH wire format. */
function ed25519Blob(): Buffer {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  return Buffer.concat([sshString('ssh-ed25519'), sshString(raw)]);
}

const b64 = (blob: Buffer) => blob.toString('base64');
const hasSshKeygen = existsSync('/usr/bin/ssh-keygen');

describe('fingerprint helpers', () => {
  it('reads the key type from the blob', () => {
    expect(keyTypeOf(ed25519Blob())).toBe('ssh-ed25519');
    expect(() => keyTypeOf(Buffer.from([0, 0]))).toThrow();
    expect(() => keyTypeOf(Buffer.from([0, 0, 0, 200, 1]))).toThrow();
  });

  it('formats SHA256 fingerprints without padding', () => {
    const fp = fingerprintSha256(ed25519Blob());
    expect(fp).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it.skipIf(!hasSshKeygen)('equals ssh-keygen -lf', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'servelab-fp-'));
    try {
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'key')]);
      const pub = await readFile(join(dir, 'key.pub'), 'utf8');
      const blob = Buffer.from(pub.split(' ')[1]!, 'base64');
      const printed = execFileSync('ssh-keygen', ['-lf', join(dir, 'key.pub')], { encoding: 'utf8' }).split(' ')[1];
      expect(fingerprintSha256(blob)).toBe(printed);
      expect(keyTypeOf(blob)).toBe('ssh-ed25519');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('host patterns', () => {
  it('names non-22 ports in brackets', () => {
    expect(knownHostsName('Example.COM', 22)).toBe('example.com');
    expect(knownHostsName('10.0.0.1', 2222)).toBe('[10.0.0.1]:2222');
  });

  it('matches * and ? wildcards', () => {
    expect(wildcardMatch('gpu1.lab.example', '*.lab.example')).toBe(true);
    expect(wildcardMatch('gpu1.lab.example', 'gpu?.lab.example')).toBe(true);
    expect(wildcardMatch('gpu10.lab.example', 'gpu?.lab.example')).toBe(false);
    expect(wildcardMatch('anything', '*')).toBe(true);
    expect(wildcardMatch('abc', 'a*c*')).toBe(true);
    expect(wildcardMatch('abc', 'a*d')).toBe(false);
    expect(wildcardMatch('', '*')).toBe(true);
  });

  it('lets a negated pattern exclude the whole line', () => {
    expect(hostFieldMatches('*.lab,!bad.lab', 'good.lab')).toBe(true);
    expect(hostFieldMatches('*.lab,!bad.lab', 'bad.lab')).toBe(false);
    expect(hostFieldMatches('!bad.lab', 'good.lab')).toBe(false);
    expect(hostFieldMatches('GPU1,gpu2', 'gpu1')).toBe(true);
    expect(hostFieldMatches('[gpu1]:2222', '[gpu1]:2222')).toBe(true);
    expect(hostFieldMatches('gpu1', '[gpu1]:2222')).toBe(false);
  });

  it('matches hashed names', () => {
    const salt = randomBytes(20);
    const field = hashKnownHostsName('[10.0.0.1]:2222', salt);
    expect(hostFieldMatches(field, '[10.0.0.1]:2222')).toBe(true);
    expect(hostFieldMatches(field, '10.0.0.1')).toBe(false);
    expect(hostFieldMatches('|1|garbage', '10.0.0.1')).toBe(false);
  });
});

describe('KnownHostsStore', () => {
  let dir: string;
  let appFile: string;
  let userFile: string;
  const key = ed25519Blob();
  const otherKey = ed25519Blob();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'servelab-kh-'));
    appFile = join(dir, 'data', 'sub', 'known_hosts');
    userFile = join(dir, 'user_known_hosts');
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports unknown when no file exists', async () => {
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [userFile] });
    expect(await store.check('gpu1', 22, 'ssh-ed25519', key)).toEqual({ status: 'unknown', certAuthorities: [] });
  });

  it('adds a line to the app file (0600, folders created) and then knows the key', async () => {
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [] });
    await store.add({ host: '127.0.0.1', port: 2222, keyType: 'ssh-ed25519', publicKey: b64(key) });
    await store.add({ host: '127.0.0.1', port: 2222, keyType: 'ssh-ed25519', publicKey: b64(key) });
    const text = await readFile(appFile, 'utf8');
    expect(text).toBe(`[127.0.0.1]:2222 ssh-ed25519 ${b64(key)}\n`);
    expect((await stat(appFile)).mode & 0o777).toBe(0o600);
    expect(await store.check('127.0.0.1', 2222, 'ssh-ed25519', key)).toEqual({ status: 'known' });
    expect(await store.check('127.0.0.1', 22, 'ssh-ed25519', key)).toEqual({ status: 'unknown', certAuthorities: [] });
  });

  it('appends after existing content without a trailing newline', async () => {
    await writeFile(join(dir, 'kh'), `# mine\ngpu9 ssh-ed25519 ${b64(otherKey)}`);
    const store = new KnownHostsStore({ appFile: join(dir, 'kh'), readOnlyFiles: [] });
    await store.add({ host: 'gpu1', port: 22, keyType: 'ssh-ed25519', publicKey: b64(key) });
    expect(await readFile(join(dir, 'kh'), 'utf8')).toBe(`# mine\ngpu9 ssh-ed25519 ${b64(otherKey)}\ngpu1 ssh-ed25519 ${b64(key)}\n`);
  });

  it('replaces a changed key only in the app file, keeping other hosts and comments', async () => {
    await writeFile(join(dir, 'kh'), `# mine\ngpu1 ssh-ed25519 ${b64(otherKey)}\ngpu9 ssh-ed25519 ${b64(otherKey)}\n`);
    await writeFile(userFile, `gpu1 ssh-ed25519 ${b64(otherKey)}\n`);
    const store = new KnownHostsStore({ appFile: join(dir, 'kh'), readOnlyFiles: [userFile] });
    expect((await store.check('gpu1', 22, 'ssh-ed25519', key)).status).toBe('changed');
    await store.replace({ host: 'gpu1', port: 22, keyType: 'ssh-ed25519', publicKey: b64(key) });
    expect(await readFile(join(dir, 'kh'), 'utf8')).toBe(`# mine\ngpu9 ssh-ed25519 ${b64(otherKey)}\ngpu1 ssh-ed25519 ${b64(key)}\n`);
    expect(await readFile(userFile, 'utf8')).toBe(`gpu1 ssh-ed25519 ${b64(otherKey)}\n`);
    expect(await store.check('gpu1', 22, 'ssh-ed25519', key)).toEqual({ status: 'known' });
  });

  it('refuses to write a key that does not match its type or a host with pattern characters', async () => {
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [] });
    await expect(store.add({ host: 'gpu1', port: 22, keyType: 'ssh-rsa', publicKey: b64(key) })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(store.add({ host: 'gpu*,x', port: 22, keyType: 'ssh-ed25519', publicKey: b64(key) })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(store.add({ host: 'gpu1', port: 22, keyType: 'ssh-ed25519', publicKey: 'not base64!' })).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(existsSync(appFile)).toBe(false);
  });

  it('gives a target its own read-only files over the same app file and write queue', async () => {
    const targetFile = join(dir, 'target_known_hosts');
    await writeFile(userFile, `gpu1 ssh-ed25519 ${b64(key)}\n`);
    await writeFile(targetFile, `box-alias ssh-ed25519 ${b64(otherKey)}\n`);
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [userFile] });
    const view = store.withReadOnlyFiles([targetFile]);
    expect(view.writableFile).toBe(appFile);
    expect((await view.check('gpu1', 22, 'ssh-ed25519', key)).status).toBe('unknown');
    expect(await view.checkName('box-alias', 'ssh-ed25519', otherKey)).toEqual({ status: 'known' });
    expect(await view.knownKeyTypesNamed('box-alias')).toEqual(['ssh-ed25519']);
    await Promise.all([view.add({ host: 'a', port: 22, keyType: 'ssh-ed25519', publicKey: b64(key) }), store.add({ host: 'b', port: 22, keyType: 'ssh-ed25519', publicKey: b64(key) })]);
    expect((await readFile(appFile, 'utf8')).trim().split('\n')).toHaveLength(2);
    expect(await readFile(targetFile, 'utf8')).toBe(`box-alias ssh-ed25519 ${b64(otherKey)}\n`);
  });

  it('serialises concurrent adds', async () => {
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [] });
    await Promise.all(
      Array.from({ length: 5 }, (_, i) => store.add({ host: `gpu${i}`, port: 22, keyType: 'ssh-ed25519', publicKey: b64(ed25519Blob()) })),
    );
    expect((await readFile(appFile, 'utf8')).trim().split('\n')).toHaveLength(5);
  });

  it('reads read-only files, wildcards, hashed names and comments', async () => {
    const salt = randomBytes(20);
    await writeFile(
      userFile,
      [
        '# comment',
        '',
        `  ${hashKnownHostsName('[gpu1.lab]:2222', salt)} ssh-ed25519 ${b64(key)} hashed`,
        `*.farm,!evil.farm ssh-ed25519 ${b64(key)}`,
        '1024 35 12345 old-rsa1-line',
        `@cert-authority * ssh-ed25519 ${b64(otherKey)}`,
      ].join('\n'),
    );
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [userFile] });
    expect(await store.check('gpu1.lab', 2222, 'ssh-ed25519', key)).toEqual({ status: 'known' });
    expect(await store.check('GPU1.LAB', 2222, 'ssh-ed25519', key)).toEqual({ status: 'known' });
    expect(await store.check('node7.farm', 22, 'ssh-ed25519', key)).toEqual({ status: 'known' });
    // The CA line (pattern *) is not a host key for any host, but says the host is meant to show a certificate.
    const ca = { file: userFile, line: 6, keyType: 'ssh-ed25519', fingerprint: fingerprintSha256(otherKey) };
    expect(await store.check('evil.farm', 22, 'ssh-ed25519', key)).toEqual({ status: 'unknown', certAuthorities: [ca] });
    expect(await store.check('other', 22, 'ssh-ed25519', otherKey)).toEqual({ status: 'unknown', certAuthorities: [ca] });
    expect(await store.knownKeyTypes('gpu1.lab', 2222)).toEqual(['ssh-ed25519']);
    // The same CA line, for checking a host certificate; no @revoked line here.
    const { authorities, revoked } = await store.certificateAuthoritiesNamed('[evil.farm]:2200');
    expect(authorities.map((e) => [e.line, e.key.equals(otherKey)])).toEqual([[6, true]]);
    expect(revoked).toEqual([]);
  });

  it('reports a changed key with every expected entry and where it is', async () => {
    await writeFile(userFile, `# first\n[gpu1]:2222 ssh-ed25519 ${b64(key)}\n`);
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [userFile] });
    const result = await store.check('gpu1', 2222, 'ssh-ed25519', otherKey);
    expect(result).toEqual({
      status: 'changed',
      expected: [{ keyType: 'ssh-ed25519', fingerprint: fingerprintSha256(key), file: userFile, line: 2 }],
    });
  });

  it('treats a known host presenting a key of another type as changed', async () => {
    const rsaLike = Buffer.concat([sshString('ssh-rsa'), sshString(randomBytes(3)), sshString(randomBytes(64))]);
    await writeFile(userFile, `gpu1 ssh-rsa ${b64(rsaLike)}\n`);
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [userFile] });
    const result = await store.check('gpu1', 22, 'ssh-ed25519', key);
    expect(result.status).toBe('changed');
  });

  it('reports revoked keys before known ones', async () => {
    await writeFile(userFile, `gpu1 ssh-ed25519 ${b64(key)}\n@revoked * ssh-ed25519 ${b64(key)}\n`);
    const store = new KnownHostsStore({ appFile, readOnlyFiles: [userFile] });
    expect(await store.check('gpu1', 22, 'ssh-ed25519', key)).toEqual({ status: 'revoked', file: userFile, line: 2 });
    expect(await store.check('gpu2', 22, 'ssh-ed25519', key)).toEqual({ status: 'revoked', file: userFile, line: 2 });
    expect(await store.check('gpu1', 22, 'ssh-ed25519', otherKey)).toMatchObject({ status: 'changed' });
  });

  it.skipIf(!hasSshKeygen)('agrees with ssh-keygen -F on hashed files it wrote', async () => {
    const file = join(dir, 'hashed');
    await writeFile(file, `[10.1.2.3]:2200 ssh-ed25519 ${b64(key)}\n`);
    execFileSync('ssh-keygen', ['-q', '-H', '-f', file], { stdio: 'ignore' });
    const hashed = await readFile(file, 'utf8');
    expect(hashed.startsWith('|1|')).toBe(true);
    const store = new KnownHostsStore({ appFile: join(dir, 'none'), readOnlyFiles: [file] });
    expect(await store.check('10.1.2.3', 2200, 'ssh-ed25519', key)).toEqual({ status: 'known' });
    expect(await store.check('10.1.2.3', 22, 'ssh-ed25519', key)).toEqual({ status: 'unknown', certAuthorities: [] });
  });
});
