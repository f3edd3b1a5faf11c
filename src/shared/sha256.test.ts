import { describe, expect, it } from 'vitest';
import { sha256Hex, utf8Length } from './sha256';

// Expected digests computed outside this code, with Python's hashlib (hashlib.sha256(text.encode()).hexdigest()).
describe('sha256Hex', () => {
  it('gives the FIPS 180-4 test vectors', () => {
    // FIPS 180-4 example digests (NIST CSRC "SHA256.pdf"): "abc" and the two-block message.
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe('248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1');
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('agrees with hashlib on every length around the block boundaries', () => {
    // The digest of the 200 digests of 'x' * n, n = 0…199, joined.
    const joined = Array.from({ length: 200 }, (_, n) => sha256Hex('x'.repeat(n))).join('');
    expect(sha256Hex(joined)).toBe('f61ffcc417e1f0e59eba2da7fa32fbe05b64e478b68c6bacf990455f00248b98');
  });

  it('hashes the UTF-8 bytes of every character width, a lone surrogate as U+FFFD', () => {
    const cases: [string, string, number][] = [
      ['{{ messages }}\r\n', '35bb4bd770a274a4d2df11e2c8ea588f8bd4e2f967b95ca2dff6783e2b664eb2', 16],
      ['Türkçe ığüşöç', 'b6ee5f4f245c09fb9f0f034c09e16b76b6cf3ee2305048ba01060ca0384353a7', 21],
      ['日本語のテンプレート', 'daf2f4d46b42fb52bd1a1e490fe2efc678a0e968f46a8357a90063009a1520a1', 30],
      ['🙂 emoji', '6548a7931400e866d463c8c443a688a8cb7a7be8c80ce23718aa8d99dda7f451', 10],
      [`${'ab'.repeat(40_000)}\n`, '17735a95bad329c8ea79895d92a7afed63603950a6a6152c992a009d758f3ca8', 80_001],
      ['lone \ud800 surrogate', 'dc12673580894e234a7f878d6c2c065ca6a14fe3833c4545417dacb2e196fe2c', 18],
    ];
    for (const [text, digest, bytes] of cases) {
      expect(sha256Hex(text)).toBe(digest);
      expect(utf8Length(text)).toBe(bytes);
    }
  });
});
