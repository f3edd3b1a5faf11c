import { describe, expect, it } from 'vitest';
import { joinArgs, splitArgs } from './argv-text';

describe('splitArgs / joinArgs', () => {
  it('keeps a quoted JSON value or a path with spaces as one word, and expands nothing', () => {
    expect(splitArgs(`--speculative-config '{"method": "eagle3", "num_speculative_tokens": 4}' --x "a b" $HOME c\\ d`).words).toEqual([
      '--speculative-config',
      '{"method": "eagle3", "num_speculative_tokens": 4}',
      '--x',
      'a b',
      '$HOME',
      'c d',
    ]);
  });

  it('joins a backslash-continued line and says when a quote is left open', () => {
    expect(splitArgs('--a 1 \\\n  --b 2').words).toEqual(['--a', '1', '--b', '2']);
    expect(splitArgs(`--x 'open`)).toEqual({ words: ['--x', 'open'], unterminated: "'" });
  });

  it('round-trips any words', () => {
    const words = ['--x', '', "it's", 'a b', '{"k": [1, 2]}', '=y', '--speculative-config.method=eagle3', 'tab\there', '$(no)'];
    expect(splitArgs(joinArgs(words)).words).toEqual(words);
  });
});
