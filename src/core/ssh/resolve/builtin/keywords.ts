// The keyword table of the ssh client this reader stands in for: OpenSSH 9.2p1 readconf.c `keywords[]`, as built
// by Debian 12 (GSSAPI and PKCS#11 enabled; the GSSAPI key-exchange and keep-alive patches add their keywords,
// checked against `ssh -G` of openssh-client 1:9.2p1-2+deb12u10). Names are matched in lower case.

export type Opcode =
  | 'ignore'
  | 'deprecated'
  | 'unsupported'
  | 'flag'
  | 'time'
  | 'int'
  | 'string'
  | 'command'
  | 'hostfiles'
  | 'logverbose'
  | 'identityfile'
  | 'certificatefile'
  | 'identityagent'
  | 'forwardagent'
  | 'port'
  | 'proxycommand'
  | 'proxyjump'
  | 'host'
  | 'match'
  | 'include'
  | 'ciphers'
  | 'macs'
  | 'kexalgorithms'
  | 'gsskexalgorithms'
  | 'keytypes'
  | 'loglevel'
  | 'logfacility'
  | 'forward'
  | 'permitremoteopen'
  | 'escapechar'
  | 'sendenv'
  | 'setenv'
  | 'controlpersist'
  | 'tunneldevice'
  | 'ipqos'
  | 'canonicaldomains'
  | 'permittedcnames'
  | 'streamlocalbindmask'
  | 'fingerprinthash'
  | 'addkeystoagent'
  | 'rekeylimit'
  | { multistate: keyof typeof MULTISTATE };

export interface Keyword {
  op: Opcode;
  /** The option the value sets (aliases share one), where ssh keeps a value this reader reports. */
  option: string;
}

/** readconf.c multistate tables: accepted words (case-insensitive) → the value, first word per value is ssh's name for it. */
export const MULTISTATE = {
  flag: { true: 1, false: 0, yes: 1, no: 0 },
  yesnoask: { true: 1, false: 0, yes: 1, no: 0, ask: 2 },
  strict: { true: 1, false: 0, yes: 1, no: 0, ask: 2, off: 0, 'accept-new': 3 },
  yesnoaskconfirm: { true: 1, false: 0, yes: 1, no: 0, ask: 2, confirm: 3 },
  addressfamily: { inet: 2, inet6: 10, any: 0 },
  controlmaster: { true: 1, yes: 1, false: 0, no: 0, auto: 2, ask: 3, autoask: 4 },
  tunnel: { ethernet: 2, 'point-to-point': 1, true: 1, yes: 1, false: 0, no: 0 },
  requesttty: { true: 1, yes: 1, false: 0, no: 0, force: 3, auto: 2 },
  sessiontype: { none: 0, subsystem: 1, default: 2 },
  canonicalizehostname: { true: 1, false: 0, yes: 1, no: 0, always: 2 },
  pubkeyauth: { true: 3, false: 0, yes: 3, no: 0, unbound: 1, 'host-bound': 2 },
  compression: { yes: 1, no: 0 },
} as const satisfies Record<string, Record<string, number>>;

const ms = (multistate: keyof typeof MULTISTATE): Opcode => ({ multistate });

const TABLE: [string, Opcode, string?][] = [
  ['protocol', 'ignore'],
  ['cipher', 'deprecated'],
  ['fallbacktorsh', 'deprecated'],
  ['globalknownhostsfile2', 'deprecated'],
  ['rhostsauthentication', 'deprecated'],
  ['useblacklistedkeys', 'deprecated'],
  ['userknownhostsfile2', 'deprecated'],
  ['useroaming', 'deprecated'],
  ['usersh', 'deprecated'],
  ['useprivilegedport', 'deprecated'],
  ['afstokenpassing', 'unsupported'],
  ['kerberosauthentication', 'unsupported'],
  ['kerberostgtpassing', 'unsupported'],
  ['rsaauthentication', 'unsupported'],
  ['rhostsrsaauthentication', 'unsupported'],
  ['compressionlevel', 'unsupported'],
  ['gssapiauthentication', 'flag'],
  ['gssapikeyexchange', 'flag'],
  ['gssapidelegatecredentials', 'flag'],
  ['gssapitrustdns', 'flag'],
  ['gssapiclientidentity', 'string'],
  ['gssapiserveridentity', 'string'],
  ['gssapirenewalforcesrekey', 'flag'],
  ['gssapikexalgorithms', 'gsskexalgorithms'],
  ['pkcs11provider', 'string'],
  ['smartcarddevice', 'string', 'pkcs11provider'],
  ['forwardagent', 'forwardagent'],
  ['forwardx11', 'flag'],
  ['forwardx11trusted', 'flag'],
  ['forwardx11timeout', 'time'],
  ['exitonforwardfailure', 'flag'],
  ['xauthlocation', 'string'],
  ['gatewayports', 'flag'],
  ['passwordauthentication', 'flag'],
  ['kbdinteractiveauthentication', 'flag'],
  ['kbdinteractivedevices', 'string'],
  ['challengeresponseauthentication', 'flag', 'kbdinteractiveauthentication'],
  ['skeyauthentication', 'flag', 'kbdinteractiveauthentication'],
  ['tisauthentication', 'flag', 'kbdinteractiveauthentication'],
  ['pubkeyauthentication', ms('pubkeyauth')],
  ['dsaauthentication', ms('pubkeyauth'), 'pubkeyauthentication'],
  ['hostbasedauthentication', 'flag'],
  ['identityfile', 'identityfile'],
  ['identityfile2', 'identityfile', 'identityfile'],
  ['identitiesonly', 'flag'],
  ['certificatefile', 'certificatefile'],
  ['addkeystoagent', 'addkeystoagent'],
  ['identityagent', 'identityagent'],
  ['hostname', 'string'],
  ['hostkeyalias', 'string'],
  ['proxycommand', 'proxycommand'],
  ['port', 'port'],
  ['ciphers', 'ciphers'],
  ['macs', 'macs'],
  ['remoteforward', 'forward'],
  ['localforward', 'forward'],
  ['permitremoteopen', 'permitremoteopen'],
  ['user', 'string'],
  ['host', 'host'],
  ['match', 'match'],
  ['escapechar', 'escapechar'],
  ['globalknownhostsfile', 'hostfiles'],
  ['userknownhostsfile', 'hostfiles'],
  ['connectionattempts', 'int'],
  ['batchmode', 'flag'],
  ['checkhostip', 'flag'],
  ['stricthostkeychecking', ms('strict')],
  ['compression', ms('compression')],
  ['tcpkeepalive', 'flag'],
  ['keepalive', 'flag', 'tcpkeepalive'],
  ['numberofpasswordprompts', 'int'],
  ['syslogfacility', 'logfacility'],
  ['loglevel', 'loglevel'],
  ['logverbose', 'logverbose'],
  ['dynamicforward', 'forward'],
  ['preferredauthentications', 'string'],
  ['hostkeyalgorithms', 'keytypes'],
  ['casignaturealgorithms', 'keytypes'],
  ['bindaddress', 'string'],
  ['bindinterface', 'string'],
  ['clearallforwardings', 'flag'],
  ['enablesshkeysign', 'flag'],
  ['verifyhostkeydns', ms('yesnoask')],
  ['nohostauthenticationforlocalhost', 'flag'],
  ['rekeylimit', 'rekeylimit'],
  ['connecttimeout', 'time'],
  ['addressfamily', ms('addressfamily')],
  ['serveraliveinterval', 'time'],
  ['serveralivecountmax', 'int'],
  ['sendenv', 'sendenv'],
  ['setenv', 'setenv'],
  ['controlpath', 'string'],
  ['controlmaster', ms('controlmaster')],
  ['controlpersist', 'controlpersist'],
  ['hashknownhosts', 'flag'],
  ['include', 'include'],
  ['tunnel', ms('tunnel')],
  ['tunneldevice', 'tunneldevice'],
  ['localcommand', 'command'],
  ['permitlocalcommand', 'flag'],
  ['remotecommand', 'command'],
  ['visualhostkey', 'flag'],
  ['kexalgorithms', 'kexalgorithms'],
  ['ipqos', 'ipqos'],
  ['requesttty', ms('requesttty')],
  ['sessiontype', ms('sessiontype')],
  ['stdinnull', 'flag'],
  ['forkafterauthentication', 'flag'],
  ['proxyusefdpass', 'flag'],
  ['canonicaldomains', 'canonicaldomains'],
  ['canonicalizefallbacklocal', 'flag'],
  ['canonicalizehostname', ms('canonicalizehostname')],
  ['canonicalizemaxdots', 'int'],
  ['canonicalizepermittedcnames', 'permittedcnames'],
  ['streamlocalbindmask', 'streamlocalbindmask'],
  ['streamlocalbindunlink', 'flag'],
  ['revokedhostkeys', 'string'],
  ['fingerprinthash', 'fingerprinthash'],
  ['updatehostkeys', ms('yesnoask')],
  ['hostbasedacceptedalgorithms', 'keytypes'],
  ['hostbasedkeytypes', 'keytypes', 'hostbasedacceptedalgorithms'],
  ['pubkeyacceptedalgorithms', 'keytypes'],
  ['pubkeyacceptedkeytypes', 'keytypes', 'pubkeyacceptedalgorithms'],
  ['ignoreunknown', 'string'],
  ['proxyjump', 'proxyjump'],
  ['securitykeyprovider', 'string'],
  ['knownhostscommand', 'command'],
  ['requiredrsasize', 'int'],
  ['enableescapecommandline', 'flag'],
  // Debian's keep-alive patch: both spell ServerAliveInterval.
  ['protocolkeepalives', 'time', 'serveraliveinterval'],
  ['setuptimeout', 'time', 'serveraliveinterval'],
];

export const KEYWORDS: ReadonlyMap<string, Keyword> = new Map(TABLE.map(([name, op, option]) => [name, { op, option: option ?? name }]));

// Algorithm names this ssh accepts (`ssh -Q cipher|mac|kex|key-sig` of the same build), for the list keywords'
// validation. A list may start with + ^ (checked) or - (not checked).
export const CIPHERS = new Set(
  '3des-cbc aes128-cbc aes192-cbc aes256-cbc aes128-ctr aes192-ctr aes256-ctr aes128-gcm@openssh.com aes256-gcm@openssh.com chacha20-poly1305@openssh.com'.split(' '),
);
export const MACS = new Set(
  ('hmac-sha1 hmac-sha1-96 hmac-sha2-256 hmac-sha2-512 hmac-md5 hmac-md5-96 umac-64@openssh.com umac-128@openssh.com hmac-sha1-etm@openssh.com ' +
    'hmac-sha1-96-etm@openssh.com hmac-sha2-256-etm@openssh.com hmac-sha2-512-etm@openssh.com hmac-md5-etm@openssh.com hmac-md5-96-etm@openssh.com ' +
    'umac-64-etm@openssh.com umac-128-etm@openssh.com').split(' '),
);
export const KEX = new Set(
  ('diffie-hellman-group1-sha1 diffie-hellman-group14-sha1 diffie-hellman-group14-sha256 diffie-hellman-group16-sha512 diffie-hellman-group18-sha512 ' +
    'diffie-hellman-group-exchange-sha1 diffie-hellman-group-exchange-sha256 ecdh-sha2-nistp256 ecdh-sha2-nistp384 ecdh-sha2-nistp521 curve25519-sha256 ' +
    'curve25519-sha256@libssh.org sntrup761x25519-sha512 sntrup761x25519-sha512@openssh.com').split(' '),
);
export const GSS_KEX = new Set('gss-group14-sha256- gss-group16-sha512- gss-nistp256-sha256- gss-curve25519-sha256- gss-group14-sha1- gss-gex-sha1- gss-group1-sha1-'.split(' '));
export const KEY_TYPES = new Set(
  ('ssh-ed25519 ssh-ed25519-cert-v01@openssh.com sk-ssh-ed25519@openssh.com sk-ssh-ed25519-cert-v01@openssh.com ecdsa-sha2-nistp256 ' +
    'ecdsa-sha2-nistp256-cert-v01@openssh.com ecdsa-sha2-nistp384 ecdsa-sha2-nistp384-cert-v01@openssh.com ecdsa-sha2-nistp521 ' +
    'ecdsa-sha2-nistp521-cert-v01@openssh.com sk-ecdsa-sha2-nistp256@openssh.com sk-ecdsa-sha2-nistp256-cert-v01@openssh.com ' +
    'webauthn-sk-ecdsa-sha2-nistp256@openssh.com ssh-dss ssh-dss-cert-v01@openssh.com ssh-rsa ssh-rsa-cert-v01@openssh.com rsa-sha2-256 ' +
    'rsa-sha2-256-cert-v01@openssh.com rsa-sha2-512 rsa-sha2-512-cert-v01@openssh.com').split(' '),
);
