import { describe, it, expect } from 'vitest';
import { completeUtf8Length, Utf8ChunkDecoder } from './utf8-decoder';

const SAMPLE = 'a é € 𝄞 😀 e\u0301 ひらがな 🇫🇷 z';

describe('Utf8ChunkDecoder', () => {
  it('never splits a character, whatever the piece boundaries', () => {
    const bytes = Buffer.from(SAMPLE, 'utf8');
    for (let size = 1; size <= 7; size++) {
      const decoder = new Utf8ChunkDecoder();
      let text = '';
      let counted = 0;
      for (let i = 0; i < bytes.length; i += size) {
        const piece = decoder.push(bytes.subarray(i, i + size));
        expect(piece.text).not.toContain('\uFFFD');
        expect(Buffer.byteLength(piece.text, 'utf8')).toBe(piece.bytes);
        text += piece.text;
        counted += piece.bytes;
        expect(counted + decoder.pendingBytes).toBe(Math.min(i + size, bytes.length));
      }
      expect(decoder.end()).toEqual({ text: '', bytes: 0 });
      expect(text).toBe(SAMPLE);
    }
  });

  it('lets invalid bytes through as U+FFFD instead of holding them back', () => {
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.push(Buffer.from([0x61, 0xff, 0x80, 0x62]))).toEqual({ text: 'a\uFFFD\uFFFDb', bytes: 4 });
    expect(decoder.pendingBytes).toBe(0);
  });

  it('decodes a truncated character at the end of the stream as U+FFFD', () => {
    const decoder = new Utf8ChunkDecoder();
    expect(decoder.push(Buffer.from([0x61, 0xf0, 0x9f]))).toEqual({ text: 'a', bytes: 1 });
    expect(decoder.end()).toEqual({ text: '\uFFFD', bytes: 2 });
  });

  it('forgets held-back bytes on reset', () => {
    const decoder = new Utf8ChunkDecoder();
    decoder.push(Buffer.from([0xe2, 0x82]));
    decoder.reset();
    expect(decoder.push(Buffer.from('ok'))).toEqual({ text: 'ok', bytes: 2 });
  });
});

describe('completeUtf8Length', () => {
  it('holds back only an unfinished multi-byte character', () => {
    expect(completeUtf8Length(Buffer.from([]))).toBe(0);
    expect(completeUtf8Length(Buffer.from('abc'))).toBe(3);
    expect(completeUtf8Length(Buffer.from([0x61, 0xc3]))).toBe(1);
    expect(completeUtf8Length(Buffer.from([0x61, 0xe2, 0x82]))).toBe(1);
    expect(completeUtf8Length(Buffer.from([0xf0, 0x9f, 0x98]))).toBe(0);
    expect(completeUtf8Length(Buffer.from([0xf0, 0x9f, 0x98, 0x80]))).toBe(4);
    expect(completeUtf8Length(Buffer.from([0x80, 0x80, 0x80, 0x80]))).toBe(4);
    expect(completeUtf8Length(Buffer.from([0x61, 0xf8]))).toBe(2);
  });
});
