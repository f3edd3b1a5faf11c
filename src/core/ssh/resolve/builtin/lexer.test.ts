import { describe, expect, it } from 'vitest';
import { argvSplit, lexLine } from './lexer';

// readconf.c process_config_line_depth + misc.c strdelim/argv_split (OpenSSH 9.2).
describe('ssh_config line lexer', () => {
  it('splits keyword and words, with = and quotes', () => {
    expect(lexLine('  HostName = "a b"  ')).toEqual({ kind: 'directive', keyword: 'hostname', rest: '"a b"', args: ['a b'] });
    expect(lexLine('Port=22')).toMatchObject({ keyword: 'port', args: ['22'] });
    expect(lexLine('User\tx # comment')).toMatchObject({ args: ['x'] });
  });

  it('treats comments and blank lines as nothing', () => {
    expect(lexLine('# Host x')).toEqual({ kind: 'empty' });
    expect(lexLine('   ')).toEqual({ kind: 'empty' });
    expect(lexLine('\r')).toEqual({ kind: 'empty' });
  });

  it('reports a keyword without argument and unterminated quotes', () => {
    expect(lexLine('Host')).toEqual({ kind: 'no-argument', keyword: 'host' });
    expect(lexLine('User "abc')).toEqual({ kind: 'invalid-quotes', keyword: 'user' });
  });

  it('keeps the rest of the line as written for ProxyCommand', () => {
    expect(lexLine('ProxyCommand  nc  %h   %p # c')).toMatchObject({ rest: 'nc  %h   %p # c' });
  });

  it('handles backslash escapes like argv_split', () => {
    expect(argvSplit('a\\ b "c d" \'e\\\'f\' g\\h')).toEqual(['a b', 'c d', "e'f", 'g\\h']);
  });
});
