import { describe, expect, it } from 'vitest';
import { SshDiagnostics } from './diagnostics';
import { percentDollarExpand, percentExpand, tildeExpand } from './tokens';

// misc.c percent_expand / percent_dollar_expand / tilde_expand (OpenSSH 9.2).
describe('token expansion', () => {
  it('expands %-tokens and %%', () => {
    expect(percentExpand('%h-%%-%p', { h: 'box', p: '22' }, new SshDiagnostics())).toBe('box-%-22');
  });

  it('fails on an unknown token with ssh\'s lines', () => {
    const diag = new SshDiagnostics();
    expect(() => percentExpand('%z', { h: 'x' }, diag)).toThrow('vdollar_percent_expand: unknown key %z\npercent_expand: failed');
  });

  it('expands ${VAR} and fails on an unset one', () => {
    expect(percentDollarExpand('${A}/%u', { u: 'me' }, { A: '/a' }, new SshDiagnostics())).toBe('/a/me');
    expect(() => percentDollarExpand('${NOPE}', {}, {}, new SshDiagnostics())).toThrow(
      'vdollar_percent_expand: env var ${NOPE} has no value\ninvalid environment variable expansion',
    );
  });

  it('expands ~ like tilde_expand, with a slash after the home', () => {
    const ctx = { home: '/home/me', passwdFile: '/nonexistent' };
    expect(tildeExpand('~', ctx, new SshDiagnostics())).toBe('/home/me/');
    expect(tildeExpand('~//x', ctx, new SshDiagnostics())).toBe('/home/me/x');
    expect(tildeExpand('/abs', ctx, new SshDiagnostics())).toBe('/abs');
    expect(tildeExpand('~nobody-here/x', ctx, new SshDiagnostics())).toBeNull();
  });
});
