// The value half of readconf.c process_config_line_depth: each keyword kind's syntax check and message, and
// where an applying line stores its value (first one wins). Messages are ssh 9.2's, word for word.
import type { ConfigOrigin } from '../types';
import { CIPHERS, GSS_KEX, KEX, KEY_TYPES, MACS, MULTISTATE, type Opcode } from './keywords';
import { parseJump } from './jump';
import { asciiLower, matchPatternList } from './patterns';
import { dollarExpand, dollarExpandIsValid } from './tokens';
import { validForward } from './forward';
import { a2port, atoiErr, convtime, strtonum, validDomainError, validEnvName } from './values';
import type { ReaderEnvironment } from './read-config';
import { SSHCONF_USERCONF } from './read-config';

export interface ValueLine {
  op: Opcode;
  option: string;
  keyword: string;
  /** The text after the keyword (ProxyCommand and the like take it whole). */
  rest: string;
  /** The words not consumed yet; what is left afterwards is "extra arguments". */
  args: string[];
  where: string;
  active: boolean;
  cmdline: boolean;
  flags: number;
  origin: ConfigOrigin | undefined;
}

const SSH_MAX_IDENTITY_FILES = 100;
const SSH_MAX_CERTIFICATE_FILES = 100;
const SSH_MAX_HOSTS_FILES = 32;
const MAX_CANON_DOMAINS = 32;
const LOG_LEVELS = ['QUIET', 'FATAL', 'ERROR', 'INFO', 'VERBOSE', 'DEBUG', 'DEBUG1', 'DEBUG2', 'DEBUG3'];
const LOG_FACILITIES = ['DAEMON', 'USER', 'AUTH', 'AUTHPRIV', 'LOCAL0', 'LOCAL1', 'LOCAL2', 'LOCAL3', 'LOCAL4', 'LOCAL5', 'LOCAL6', 'LOCAL7'];
const DIGESTS = ['md5', 'sha1', 'sha256', 'sha384', 'sha512'];
const IPQOS = ['none', 'af11', 'af12', 'af13', 'af21', 'af22', 'af23', 'af31', 'af32', 'af33', 'af41', 'af42', 'af43', 'cs0', 'cs1', 'cs2', 'cs3', 'cs4', 'cs5', 'cs6', 'cs7', 'ef', 'le', 'lowdelay', 'throughput', 'reliability'];

export function parseValue(env: ReaderEnvironment, p: ValueLine): boolean {
  const { diag, options } = env;
  const next = (): string | undefined => p.args.shift();
  const setIfActive = (value: string | number): void => {
    if (p.active) options.setFirst(p.option, value, p.origin);
  };
  const missing = (text = 'Missing argument.'): false => {
    diag.error(`${p.where}: ${text}`);
    return false;
  };
  const op = p.op;

  if (typeof op === 'object') return parseMultistate(MULTISTATE[op.multistate]);

  function parseMultistate(table: Record<string, number>): boolean {
    const arg = next();
    let value = -1;
    if (arg === undefined || arg === '') diag.error(`${p.where}: missing argument.`);
    else value = lookup(table, arg);
    if (value === -1) {
      diag.error(`${p.where}: unsupported option "${arg ?? '(null)'}".`);
      return false;
    }
    setIfActive(value);
    return true;
  }

  switch (op) {
    case 'ignore':
    case 'deprecated':
      p.args.length = 0;
      return true;
    case 'unsupported':
      diag.error(`${p.where}: Unsupported option "${p.keyword}"`);
      p.args.length = 0;
      return true;
    case 'flag':
      return parseMultistate(MULTISTATE.flag);
    case 'time': {
      const arg = next();
      if (arg === undefined || arg === '') return missing('missing time value.');
      const value = arg === 'none' ? -1 : convtime(arg);
      if (arg !== 'none' && value === -1) return missing('invalid time value.');
      // `none` leaves the option unset, so a later line may still set it (readconf.c stores -1).
      if (value !== -1) setIfActive(value);
      return true;
    }
    case 'int': {
      const n = atoiErr(next());
      if ('error' in n) return missing(`integer value ${n.error}.`);
      setIfActive(n.value);
      return true;
    }
    case 'string': {
      const arg = next();
      if (arg === undefined || arg === '') return missing();
      setIfActive(arg);
      return true;
    }
    case 'command':
    case 'proxycommand': {
      const value = p.rest.replace(/^[ \t\r\n=]+/, '');
      if (p.active) options.setFirst(p.option, value, p.origin);
      p.args.length = 0;
      return true;
    }
    case 'proxyjump':
      return parseProxyJump();
    case 'hostfiles':
      return parseCharArray(SSH_MAX_HOSTS_FILES, true);
    case 'logverbose':
      return parseCharArray(Number.MAX_SAFE_INTEGER, true);
    case 'identityfile':
    case 'certificatefile': {
      const arg = next();
      if (arg === undefined || arg === '') return missing();
      if (p.active) {
        const list = op === 'identityfile' ? options.identityFiles : options.certificateFiles;
        if (list.length >= (op === 'identityfile' ? SSH_MAX_IDENTITY_FILES : SSH_MAX_CERTIFICATE_FILES)) {
          return missing(
            op === 'identityfile'
              ? `Too many identity files specified (max ${SSH_MAX_IDENTITY_FILES}).`
              : `Too many certificate files specified (max ${SSH_MAX_CERTIFICATE_FILES}).`,
          );
        }
        options.addFile(list, { path: arg, userProvided: p.flags & SSHCONF_USERCONF, ...(p.origin ? { origin: p.origin } : {}) });
      }
      return true;
    }
    case 'identityagent': {
      const arg = next();
      if (arg === undefined || arg === '') return missing();
      return parseAgentPath(arg, 'identityagent');
    }
    case 'forwardagent': {
      const arg = next();
      if (arg === undefined || arg === '') return missing('missing argument.');
      const value = lookup(MULTISTATE.flag, arg);
      if (value !== -1) {
        setIfActive(value);
        return true;
      }
      setIfActive(1);
      return parseAgentPath(arg, 'forwardagentsockpath');
    }
    case 'port': {
      const arg = next();
      if (arg === undefined || arg === '') return missing();
      const port = a2port(arg);
      if (port <= 0) return missing(`Bad port '${arg}'.`);
      setIfActive(port);
      return true;
    }
    case 'ciphers':
      return parseAlgorithms(CIPHERS, (a) => `Bad SSH2 cipher spec '${a}'.`);
    case 'macs':
      return parseAlgorithms(MACS, (a) => `Bad SSH2 MAC spec '${a}'.`);
    case 'kexalgorithms':
      return parseAlgorithms(KEX, (a) => `Bad SSH2 KexAlgorithms '${a}'.`, { namesCulprit: true });
    case 'gsskexalgorithms':
      return parseAlgorithms(GSS_KEX, (a) => `Bad GSSAPI KexAlgorithms '${a}'.`, { namesCulprit: true, prefixes: false });
    case 'keytypes':
      return parseAlgorithms(KEY_TYPES, (a) => `Bad key types '${a}'.`, { wildcards: true });
    case 'loglevel': {
      const arg = next();
      if (arg === undefined || !LOG_LEVELS.includes(arg.toUpperCase())) return missing(`unsupported log level '${arg ?? '<NONE>'}'`);
      setIfActive(arg.toUpperCase());
      return true;
    }
    case 'logfacility': {
      const arg = next();
      if (arg === undefined || !LOG_FACILITIES.includes(arg.toUpperCase())) return missing(`unsupported log facility '${arg ?? '<NONE>'}'`);
      return true;
    }
    case 'forward':
      return parseForward();
    case 'permitremoteopen':
      return parsePermitRemoteOpen();
    case 'escapechar': {
      const arg = next();
      if (arg === undefined || arg === '') return missing();
      const ok = arg === 'none' || arg.length === 1 || (arg.length === 2 && arg[0] === '^' && (arg.charCodeAt(1) >= 64 && arg.charCodeAt(1) < 128));
      if (!ok) return missing('Bad escape character.');
      return true;
    }
    case 'sendenv':
      while (p.args.length > 0) {
        const arg = next() as string;
        if (arg === '' || arg.includes('=')) return missing('Invalid environment name.');
      }
      return true;
    case 'setenv':
      while (p.args.length > 0) {
        const arg = next() as string;
        if (!arg.includes('=')) return missing('Invalid SetEnv.');
      }
      return true;
    case 'controlpersist': {
      const arg = next();
      if (arg === undefined || arg === '') return missing('Missing ControlPersist argument.');
      if (!['no', 'false', 'yes', 'true'].includes(arg) && convtime(arg) < 0) return missing('Bad ControlPersist argument.');
      return true;
    }
    case 'tunneldevice': {
      const arg = next();
      if (arg === undefined || arg === '') return missing();
      if (!validTunnel(arg)) return missing('Bad tun device.');
      return true;
    }
    case 'ipqos': {
      const first = next();
      if (!validIpqos(first)) {
        diag.error(`${p.where}: Bad IPQoS value: ${first ?? '(null)'}`);
        return false;
      }
      const second = next();
      if (second !== undefined && !validIpqos(second)) {
        diag.error(`${p.where}: Bad IPQoS value: ${second}`);
        return false;
      }
      return true;
    }
    case 'canonicaldomains':
      return parseCanonicalDomains();
    case 'permittedcnames':
      return parsePermittedCnames();
    case 'streamlocalbindmask': {
      const arg = next();
      if (arg === undefined || arg === '') return missing('Missing StreamLocalBindMask argument.');
      const m = /^[ \t]*[+-]?[0-7]+/.exec(arg);
      const value = m ? parseInt(m[0], 8) : NaN;
      if (!m || value < 0 || value > 0o777) return missing('Bad mask.');
      return true;
    }
    case 'fingerprinthash': {
      const arg = next();
      if (arg === undefined || arg === '') return missing();
      if (!DIGESTS.includes(arg.toLowerCase())) return missing(`Invalid hash algorithm "${arg}".`);
      return true;
    }
    case 'addkeystoagent':
      return parseAddKeysToAgent();
    case 'rekeylimit':
      return parseRekeyLimit();
    default:
      diag.error(`${p.where}: Unimplemented opcode`);
      return false;
  }

  function parseAgentPath(arg: string, option: string): boolean {
    if (!dollarExpandIsValid(arg, env.env, diag)) return missing(`Invalid environment expansion ${arg}.`);
    if (arg.startsWith('$') && arg[1] !== '{' && !validEnvName(arg.slice(1))) return missing(`Invalid environment name ${arg}.`);
    if (p.active) options.setFirst(option, arg, p.origin);
    return true;
  }

  function parseCharArray(max: number, noneAlone: boolean): boolean {
    const wasEmpty = !options.lists.has(p.option);
    const values: string[] = [];
    let i = 0;
    while (p.args.length > 0) {
      const arg = next() as string;
      if (arg === '') return missing(`keyword ${p.keyword} empty argument`);
      if (noneAlone && arg.toLowerCase() === 'none' && (i > 0 || p.args.length > 0)) return missing(`keyword ${p.keyword} "none" argument must appear alone.`);
      i++;
      if (p.active && wasEmpty) {
        if (values.length >= max) return missing(`too many ${p.keyword} entries.`);
        values.push(arg);
      }
    }
    if (p.active && wasEmpty && values.length > 0) options.setListFirst(p.option, values, p.origin);
    return true;
  }

  function parseProxyJump(): boolean {
    // Debian's 9.2p1-2+deb12u10 backports upstream's ProxyJump rework (readconf.c 1.411): ProxyJump and
    // ProxyCommand are first-match-wins between each other, and only the first word of the value is read
    // (`ssh -G` of that build prints `proxyjump a` for `ProxyJump a b`).
    const s = p.rest.replace(/^[ \t\r\n=]+/, '');
    p.args.length = 0;
    const active = p.active;
    if (s.toLowerCase() === 'none') {
      if (active && options.jump === null) options.jump = { spec: 'none', ...(p.origin ? { origin: p.origin } : {}) };
      return true;
    }
    const spec = parseJump(s, p.cmdline, (message) => diag.error(message));
    if (spec === null) return missing(`Invalid ProxyJump "${s}"`);
    if (active && options.jump === null && !options.has('proxycommand')) {
      options.jump = { spec, ...(p.origin ? { origin: p.origin } : {}) };
      // A ProxyJump turns a later ProxyCommand off.
      options.setFirst('proxycommand', 'none', p.origin);
    }
    return true;
  }

  /**
   * ciphers_valid / mac_valid / kex_names_valid / sshkey_names_valid2: the names up to the first empty one must be
   * known; a list starting with `-` is not checked, `+` and `^` are skipped. kex_names_valid names the culprit.
   */
  function parseAlgorithms(known: Set<string>, message: (arg: string) => string, opts: { wildcards?: boolean; namesCulprit?: boolean; prefixes?: boolean } = {}): boolean {
    const arg = next();
    if (arg === undefined || arg === '') return missing();
    const prefixes = opts.prefixes ?? true;
    if (!(prefixes && arg.startsWith('-'))) {
      const list = prefixes && (arg.startsWith('+') || arg.startsWith('^')) ? arg.slice(1) : arg;
      let valid = list !== '';
      for (const name of list.split(',')) {
        if (!valid || name === '') break;
        const ok = opts.wildcards && /[*?]/.test(name) ? [...known].some((k) => matchPatternList(k, name, false) !== 0) : known.has(name);
        if (!ok) {
          if (opts.namesCulprit) diag.error(`Unsupported KEX algorithm "${name.slice(0, 100)}"`);
          valid = false;
        }
      }
      if (!valid) {
        diag.error(`${p.where}: ${message(arg)}`);
        return false;
      }
    }
    setIfActive(arg);
    return true;
  }

  function parseForward(): boolean {
    const arg = next();
    if (arg === undefined || arg === '') return missing();
    const remote = p.keyword === 'remoteforward';
    let dynamic = p.keyword === 'dynamicforward';
    let spec = arg;
    if (!dynamic) {
      const target = next();
      if (target === undefined || target === '') {
        if (remote) dynamic = true;
        else return missing('Missing target argument.');
      } else spec = `${arg}:${target}`;
    }
    const expanded = dollarExpand(spec, env.env, diag);
    if (expanded === null || !validForward(expanded, dynamic, remote)) return missing('Bad forwarding specification.');
    return true;
  }

  function parsePermitRemoteOpen(): boolean {
    let i = 0;
    while (p.args.length > 0) {
      const arg = next() as string;
      const lower = arg.toLowerCase();
      if (lower === 'none' || lower === 'any') {
        if (i > 0 || p.args.length > 0) return missing(`keyword ${p.keyword} "${arg}" argument must appear alone.`);
      } else {
        // hpdelim(): host, then the port after a colon; a `/` first means no host.
        const m = /^(\[[^\]]*\]|[^:/]*)([:/]?)(.*)$/.exec(arg);
        if (!m || m[2] === '/' || (arg.startsWith('[') && !arg.includes(']'))) return diag.fatal(`${p.where}: missing host in permitremoteopen`);
        const port = m[2] === ':' ? (m[3] as string) : null;
        if (port === null || (port !== '*' && a2port(port) <= 0)) return diag.fatal(`${p.where}: bad port number in permitremoteopen`);
      }
      i++;
    }
    if (i === 0) diag.fatal(`${p.where}: missing permitremoteopen specification`);
    return true;
  }

  function parseCanonicalDomains(): boolean {
    const wasSet = options.lists.has('canonicaldomains');
    const values: string[] = [];
    let i = 0;
    while (p.args.length > 0) {
      const arg = next() as string;
      if (arg === '') return missing(`keyword ${p.keyword} empty argument`);
      if (arg.toLowerCase() === 'none' && (i > 0 || p.args.length > 0)) return missing(`keyword ${p.keyword} "none" argument must appear alone.`);
      i++;
      const err = validDomainError(arg);
      if (err !== null) return missing(err);
      if (!p.active || wasSet) continue;
      if (values.length >= MAX_CANON_DOMAINS) return missing('too many hostname suffixes.');
      // valid_domain() lower-cases the name and drops one trailing dot.
      values.push(asciiLower(arg).replace(/\.$/, ''));
    }
    if (p.active && !wasSet && values.length > 0) options.setListFirst('canonicaldomains', values, p.origin);
    return true;
  }

  function parsePermittedCnames(): boolean {
    const wasSet = options.permittedCnames.length > 0;
    let i = 0;
    while (p.args.length > 0) {
      const arg = next() as string;
      let source: string;
      let target: string;
      if (arg.toLowerCase() === 'none') {
        if (i > 0 || p.args.length > 0) return missing(`keyword ${p.keyword} "none" argument must appear alone.`);
        source = arg;
        target = '';
      } else if (arg === '*') {
        source = '*';
        target = '*';
      } else {
        const lower = asciiLower(arg);
        const colon = lower.indexOf(':');
        if (colon === -1 || colon === lower.length - 1) return missing(`Invalid permitted CNAME "${lower}"`);
        source = lower.slice(0, colon);
        target = lower.slice(colon + 1);
      }
      i++;
      if (!p.active || wasSet) continue;
      if (options.permittedCnames.length >= MAX_CANON_DOMAINS) return missing('too many permitted CNAMEs.');
      options.permittedCnames.push({ source, target });
    }
    return true;
  }

  function parseAddKeysToAgent(): boolean {
    const arg = next();
    const arg2 = next();
    let value = -1;
    if (arg === undefined || arg === '') diag.error(`${p.where}: missing argument.`);
    else value = lookup(MULTISTATE.yesnoaskconfirm, arg);
    if (value === 3 && arg2 !== undefined) {
      if (convtime(arg2) === -1) return missing('invalid time value.');
    } else if (value === -1 && arg2 === undefined) {
      if (arg === undefined || convtime(arg) === -1) return missing('unsupported option');
    } else if (value === -1 || arg2 !== undefined) {
      return missing('unsupported option');
    }
    return true;
  }

  function parseRekeyLimit(): boolean {
    const arg = next();
    if (arg === undefined || arg === '') return missing('Missing argument.');
    if (arg !== 'default') {
      const value = scanScaled(arg);
      if (value === null) return missing(`Bad number '${arg}': Invalid argument`);
      if (value !== 0 && value < 16) return missing('RekeyLimit too small');
    }
    if (p.args.length > 0) {
      if (p.args[0] === 'none') {
        next();
        return true;
      }
      const t = next() as string;
      if (t === '') return missing('missing time value.');
      if (convtime(t) === -1) return missing('invalid time value.');
    }
    return true;
  }
}

function lookup(table: Record<string, number>, arg: string): number {
  const value = table[arg.toLowerCase()];
  return value === undefined ? -1 : value;
}

function validIpqos(arg: string | undefined): boolean {
  if (arg === undefined) return false;
  if (IPQOS.includes(arg.toLowerCase())) return true;
  const n = /^(0x[0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.exec(arg);
  if (!n) return false;
  const v = Number(arg.startsWith('0x') ? parseInt(arg, 16) : arg.startsWith('0') && arg.length > 1 ? parseInt(arg, 8) : Number(arg));
  return v >= 0 && v <= 255;
}

function validTunnel(arg: string): boolean {
  const part = (s: string) => s === 'any' || ('value' in strtonum(s, 0, 0x7fffffff - 2));
  const colon = arg.indexOf(':');
  if (colon === -1) return part(arg);
  return part(arg.slice(0, colon)) && part(arg.slice(colon + 1));
}

/** OpenBSD scan_scaled: a decimal number with an optional fraction and one B/K/M/G/T/P/E suffix (powers of 1024). */
function scanScaled(s: string): number | null {
  const m = /^\s*([+-]?\d+)(?:\.(\d+))?([BbKkMmGgTtPpEe]?)$/.exec(s);
  if (!m) return null;
  const power = ' KMGTPE'.indexOf((m[3] ?? '').toUpperCase().replace('B', ' ')) ;
  const scale = 1024 ** Math.max(power, 0);
  const whole = Number(m[1]);
  const fraction = m[2] !== undefined ? Number(`0.${m[2]}`) * (whole < 0 ? -1 : 1) : 0;
  return Math.trunc((whole + fraction) * scale);
}
