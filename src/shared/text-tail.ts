/**
 * The last `maxChars` of a text that arrives in pieces (a job's log), for reading a failure at its end without
 * holding the whole log: at most twice the bound is held, and once cut the text starts at a whole line.
 */
export class TextTail {
  private parts: string[] = [];
  private size = 0;
  private cut = false;

  constructor(readonly maxChars: number) {}

  push(text: string): void {
    if (text === '') return;
    this.parts.push(text);
    this.size += text.length;
    if (this.size > 2 * this.maxChars) this.compact();
  }

  get text(): string {
    this.compact();
    return this.parts.join('');
  }

  /** Text was dropped from the front. */
  get truncated(): boolean {
    this.compact();
    return this.cut;
  }

  /** Characters held right now (for tests of the bound). */
  get heldChars(): number {
    return this.size;
  }

  private compact(): void {
    let all = this.parts.join('');
    if (all.length > this.maxChars) {
      all = all.slice(-this.maxChars);
      const newline = all.indexOf('\n');
      if (newline >= 0 && newline < all.length - 1) all = all.slice(newline + 1);
      this.cut = true;
    }
    this.parts = all === '' ? [] : [all];
    this.size = all.length;
  }
}
