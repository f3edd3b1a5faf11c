/**
 * A ProxyCommand (or any local command line) as it may be shown in the connection log or an error: the product's
 * credential redaction (flags named like a secret or token, token-shaped words), plus the shapes proxy commands use
 * for passwords: `user:password@host` in a URL or address, `user:password` after a proxy-auth flag (proxytunnel
 * `-P`, curl `-U`/`--proxy-user`), and `sshpass -p PASSWORD`. Host:port values (`-p proxy:8080`) are left alone.
 */
import { REDACTED, redactCredentialText } from '../../shared/engines/credentials';

// `user:secret@` (also inside scheme://…); the user part is kept so the message still says who logs in.
const USERINFO = /((?:^|[\s'"=/])[^\s'"@:/]+):([^\s'"@/]+)@/g;
// A proxy-auth flag's `user:secret` value, attached with `=` or as the next word.
const PROXY_AUTH = /((?:^|\s)(?:-P|-U|--proxyauth|--proxy-auth|--proxy-user|--user)(?:=|\s+)['"]?[^\s'":]+):([^\s'"]+)/g;
// sshpass's password, possibly after other sshpass options.
const SSHPASS = /((?:^|[\s/])sshpass(?:\s+-[^p\s]\S*)*\s+-p)(\s*)('[^']*'|"[^"]*"|\S+)/g;

export function redactCommandText(text: string): string {
  return redactCredentialText(text)
    .replace(SSHPASS, (_all, lead: string, sep: string) => `${lead}${sep || ' '}${REDACTED}`)
    .replace(PROXY_AUTH, (all, lead: string, secret: string) => (/^\d+$/.test(secret) || secret === REDACTED ? all : `${lead}:${REDACTED}`))
    .replace(USERINFO, (all, lead: string, secret: string) => (secret === REDACTED ? all : `${lead}:${REDACTED}@`));
}
