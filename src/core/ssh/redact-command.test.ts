import { describe, it, expect } from 'vitest';
import { redactCommandText } from './redact-command';

describe('redactCommandText', () => {
  it('hides the password of proxytunnel -P user:pass and keeps host:port values', () => {
    expect(redactCommandText('proxytunnel -p proxy:8080 -P alice:s3cret -d gpu1:22')).toBe('proxytunnel -p proxy:8080 -P alice:<redacted> -d gpu1:22');
    expect(redactCommandText('curl --proxy-user=bob:hunter2 x')).toBe('curl --proxy-user=bob:<redacted> x');
  });

  it('hides user:password@ in URLs and addresses', () => {
    expect(redactCommandText('corkscrew http://alice:pa55@proxy.example 3128 %h %p')).toBe('corkscrew http://alice:<redacted>@proxy.example 3128 %h %p');
    expect(redactCommandText('nc -X connect -x bob:pw@proxy:3128 h 22')).toBe('nc -X connect -x bob:<redacted>@proxy:3128 h 22');
    expect(redactCommandText('ssh -W gpu1:22 me@bastion')).toBe('ssh -W gpu1:22 me@bastion');
  });

  it('hides values of flags named like a secret or token, and token-shaped words', () => {
    expect(redactCommandText('cloudflared access ssh --hostname h --service-token-id abc --service-token-secret XYZ123')).toBe(
      "cloudflared access ssh --hostname h --service-token-id abc --service-token-secret '<redacted>'",
    );
    expect(redactCommandText('helper --token=abcdef')).toBe('helper --token=<redacted>');
    expect(redactCommandText(`helper ${'ghp_' + 'a'.repeat(30)}`)).toBe('helper <redacted>');
  });

  it("hides sshpass's -p password", () => {
    expect(redactCommandText('sshpass -p hunter2 ssh -W %h:%p bastion')).toBe('sshpass -p <redacted> ssh -W %h:%p bastion');
    expect(redactCommandText("/usr/bin/sshpass -e -p 'a b' ssh bastion")).toBe('/usr/bin/sshpass -e -p <redacted> ssh bastion');
  });
});
