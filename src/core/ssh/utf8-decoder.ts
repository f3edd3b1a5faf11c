/**
 * Decodes a UTF-8 byte stream that arrives in arbitrary pieces without ever splitting a character: the bytes of a
 * character that is still incomplete at the end of a piece are held back until the rest arrives. It counts bytes,
 * so a caller can tell exactly which byte offset the delivered text ends at.
 */
export class Utf8ChunkDecoder {
  private pending: Buffer = Buffer.alloc(0);

  /** Bytes received but held back because they end in an incomplete character. */
  get pendingBytes(): number {
    return this.pending.length;
  }

  /** Decodes what is complete so far; `bytes` is how many input bytes `text` stands for. */
  push(chunk: Uint8Array): { text: string; bytes: number } {
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const complete = completeUtf8Length(data);
    this.pending = Buffer.from(data.subarray(complete));
    return { text: data.toString('utf8', 0, complete), bytes: complete };
  }

  /** At the end of the stream: whatever is held back, decoded as is (an incomplete character becomes U+FFFD). */
  end(): { text: string; bytes: number } {
    const rest = this.pending;
    this.pending = Buffer.alloc(0);
    return { text: rest.toString('utf8'), bytes: rest.length };
  }

  /** Forgets held-back bytes, e.g. before reading the stream again from an earlier offset. */
  reset(): void {
    this.pending = Buffer.alloc(0);
  }
}

/**
 * Length of the longest prefix of `data` that does not end inside a multi-byte character. Only a valid lead byte
 * followed by too few continuation bytes is held back; invalid bytes are let through (they decode to U+FFFD), so a
 * binary log can never stall the stream.
 */
export function completeUtf8Length(data: Uint8Array): number {
  const length = data.length;
  // A character is at most 4 bytes, so only the last 3 bytes can belong to an unfinished one.
  for (let back = 1; back <= Math.min(3, length); back++) {
    const byte = data[length - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const needed = byte >= 0xf0 && byte <= 0xf4 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc2 && byte < 0xe0 ? 2 : 1;
    if (byte >= 0xf5) return length; // never a lead byte
    return needed > back ? length - back : length;
  }
  return length;
}
