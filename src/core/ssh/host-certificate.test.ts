import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { certificateSignatureValid, hostCertificateProblem, parseHostCertificate } from './host-certificate';

let dir: string;
let n = 0;

function run(args: string[]): void {
  const result = spawnSync('ssh-keygen', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ssh-keygen ${args.join(' ')} failed: ${result.stderr}`);
}
const blobOf = async (file: string) => Buffer.from((await readFile(file, 'utf8')).trim().split(' ')[1]!, 'base64');

/** A fresh key of `type` signed by `ca` with ssh-keygen's own options; returns the certificate and plain key blobs. */
async function certified(type: string, ca: string, options: string[]): Promise<{ cert: Buffer; plain: Buffer }> {
  const key = join(dir, `key${++n}`);
  run(['-q', '-t', type, '-N', '', '-f', key]);
  run(['-q', '-s', ca, '-I', `id-${n}`, ...options, `${key}.pub`]);
  return { cert: await blobOf(`${key}-cert.pub`), plain: await blobOf(`${key}.pub`) };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'servelab-hostcert-'));
  for (const [name, type] of [['ca_ed', 'ed25519'], ['ca_ec', 'ecdsa'], ['ca_rsa', 'rsa']] as const) run(['-q', '-t', type, '-N', '', '-f', join(dir, name)]);
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('parseHostCertificate', () => {
  it('reads what ssh-keygen -h wrote: the certified key, principals, validity, CA and a signature that verifies', async () => {
    for (const [type, ca] of [['ed25519', 'ca_ed'], ['ecdsa', 'ca_ec'], ['ecdsa', 'ca_rsa']] as const) {
      const { cert, plain } = await certified(type, join(dir, ca), ['-h', '-n', 'box,127.0.0.1', '-z', '42', '-V', '20200101:20991231']);
      const parsed = parseHostCertificate(cert);
      expect(parsed.plainKey.equals(plain)).toBe(true);
      expect(parsed).toMatchObject({ kind: 2, serial: 42n, keyId: `id-${n}`, principals: ['box', '127.0.0.1'] });
      expect(parsed.caKey.equals(await blobOf(join(dir, `${ca}.pub`)))).toBe(true);
      expect(certificateSignatureValid(parsed)).toBe(true);
      expect(hostCertificateProblem(parsed, 'box')).toBeNull();
    }
  });

  it('refuses a tampered certificate and malformed blobs', async () => {
    const { cert } = await certified('ed25519', join(dir, 'ca_ed'), ['-h', '-n', 'box']);
    const tampered = Buffer.from(cert);
    const principal = tampered.indexOf(Buffer.from('box'));
    tampered.write('bot', principal, 'latin1');
    expect(hostCertificateProblem(parseHostCertificate(tampered), 'bot')).toBe('Certificate invalid: signature does not verify');
    expect(() => parseHostCertificate(cert.subarray(0, cert.length - 5))).toThrow();
  });
});

describe('hostCertificateProblem', () => {
  it('says what OpenSSH says: not a host certificate, not yet valid, expired, name not listed; no principals means any host', async () => {
    const ca = join(dir, 'ca_ed');
    const user = parseHostCertificate((await certified('ed25519', ca, ['-n', 'box'])).cert);
    expect(hostCertificateProblem(user, 'box')).toBe('Certificate invalid: not a host certificate');
    const window = parseHostCertificate((await certified('ed25519', ca, ['-h', '-n', 'box', '-V', '20300101:20300201'])).cert);
    expect(hostCertificateProblem(window, 'box', new Date('2029-12-31T00:00:00Z'))).toBe('Certificate invalid: not yet valid');
    expect(hostCertificateProblem(window, 'box', new Date('2030-01-15T00:00:00Z'))).toBeNull();
    expect(hostCertificateProblem(window, 'box', new Date('2030-03-01T00:00:00Z'))).toBe('Certificate invalid: expired');
    expect(hostCertificateProblem(window, 'other', new Date('2030-01-15T00:00:00Z'))).toBe('Certificate invalid: name is not a listed principal');
    const anyHost = parseHostCertificate((await certified('ed25519', ca, ['-h'])).cert);
    expect(anyHost.principals).toEqual([]);
    expect(hostCertificateProblem(anyHost, 'whatever')).toBeNull();
  });
});
