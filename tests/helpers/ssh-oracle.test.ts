// The oracle's readings of ssh's output, on lines ssh 9.2 really prints.
import { describe, expect, it } from 'vitest';
import { hopRequest, identityAgent, parseDump, refusal, withoutImplicitCertificates } from './ssh-oracle';

describe('ssh oracle readings', () => {
  it('reads the implicit ProxyJump argv of a hop, without -v and -W', () => {
    expect(hopRequest(['-l', 'bob', '-p', '2200', '-F', 'cfg', '-v', '-W', '[gpu1]:22', 'jump1'])).toEqual({ args: ['-l', 'bob', '-p', '2200', '-F', 'cfg'], destination: 'jump1' });
    expect(hopRequest(['-J', 'alice@a:2200', '-vvv', '-W', '[dest]:22', 'b'])).toEqual({ args: ['-J', 'alice@a:2200'], destination: 'b' });
  });

  it('drops the -cert tries ssh makes when no CertificateFile is set, and refuses an unexpected order', () => {
    expect(withoutImplicitCertificates(['/h/.ssh/a', '/h/.ssh/a-cert', '/h/.ssh/b-cert', '/h/.ssh/b-cert-cert'])).toEqual(['/h/.ssh/a', '/h/.ssh/b-cert']);
    expect(() => withoutImplicitCertificates(['/h/.ssh/a', '/h/.ssh/b'])).toThrow(/a-cert/);
  });

  it('finds the agent as ssh does', () => {
    const env = { SSH_AUTH_SOCK: '/tmp/agent', LAB: '/tmp/lab' };
    expect(identityAgent(undefined, env)).toBe('/tmp/agent');
    expect(identityAgent(undefined, {})).toBe('none');
    expect(identityAgent('SSH_AUTH_SOCK', env)).toBe('/tmp/agent');
    expect(identityAgent('$LAB', env)).toBe('/tmp/lab');
    expect(identityAgent('$UNSET', env)).toBe('none');
    expect(identityAgent('none', env)).toBe('none');
    expect(identityAgent('/run/user/1000/ssh-agent.socket', env)).toBe('/run/user/1000/ssh-agent.socket');
  });

  it('reads ssh -G output keyword by keyword, keeping repeated lines in order', () => {
    const dump = parseDump('user ops\nidentityfile ~/.ssh/a\nidentityfile ~/.ssh/%h\nproxycommand ssh -W %h:%p bastion\n');
    expect(dump.get('identityfile')).toEqual(['~/.ssh/a', '~/.ssh/%h']);
    expect(dump.get('proxycommand')).toEqual(['ssh -W %h:%p bastion']);
  });

  it('takes the file and line from both forms of ssh messages', () => {
    const unknown = refusal('/h/.ssh/config: line 3: Bad configuration option: usekeychain\n/h/.ssh/config: terminating, 1 bad configuration options\n');
    expect(unknown).toMatchObject({ accepted: false, location: { file: '/h/.ssh/config', line: 3 } });
    const badValue = refusal("/h/.ssh/config line 2: Bad port '70000'.\n/h/.ssh/config: terminating, 1 bad configuration options\n");
    expect(badValue).toMatchObject({ location: { file: '/h/.ssh/config', line: 2 } });
    expect(refusal("Bad port '99999'\n")).toMatchObject({ location: null });
  });
});
