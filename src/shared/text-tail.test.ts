import { describe, expect, it } from 'vitest';
import { TextTail } from './text-tail';

describe('TextTail', () => {
  it('keeps everything while under its bound', () => {
    const tail = new TextTail(100);
    tail.push('a\n');
    tail.push('b\n');
    expect(tail.text).toBe('a\nb\n');
    expect(tail.truncated).toBe(false);
  });

  it('keeps only the last whole lines of a long text, however much arrives', () => {
    const tail = new TextTail(1000);
    for (let i = 0; i < 200_000; i++) tail.push(`line ${i}\n`);
    expect(tail.text.length).toBeLessThanOrEqual(1000);
    expect(tail.text.endsWith('line 199999\n')).toBe(true);
    expect(tail.text.startsWith('line ')).toBe(true);
    expect(tail.truncated).toBe(true);
    expect(tail.heldChars).toBeLessThanOrEqual(2000);
  });

  it('cuts a single endless line at the bound', () => {
    const tail = new TextTail(10);
    tail.push('x'.repeat(50));
    expect(tail.text).toBe('x'.repeat(10));
  });
});
