// Reading ssh_config files line by line as OpenSSH 9.2 readconf.c does (process_config_line_depth,
// read_config_file_depth): every line is checked even inside blocks that do not apply, bad lines are reported
// and counted, and a file with bad lines ends the resolution after its last line.
import { readFileSync, statSync, type Stats } from 'node:fs';
import { securePermissions, type AccountFiles } from './file-permissions';
import { isAbsolute } from 'node:path';
import type { ConfigOrigin } from '../types';
import type { SshDiagnostics } from './diagnostics';
import { glob } from './glob';
import { KEYWORDS, type Opcode } from './keywords';
import { lexLine } from './lexer';
import { evaluateMatch, type MatchEnvironment } from './match';
import type { SshOptions } from './options';
import { matchPattern, matchPatternList } from './patterns';
import { parseValue } from './parse-value';

export const SSHCONF_CHECKPERM = 1;
export const SSHCONF_USERCONF = 2;
export const SSHCONF_FINAL = 4;
export const SSHCONF_NEVERMATCH = 8;
const READCONF_MAX_DEPTH = 16;

export interface ReaderEnvironment extends MatchEnvironment {
  options: SshOptions;
  diag: SshDiagnostics;
  uid: number;
  /** The passwd and group databases, for the permission check. */
  accounts: AccountFiles;
  /** For ${VAR} checks. */
  env: NodeJS.ProcessEnv;
  /** Set when a `Match final`/`canonical` asks for the second pass. */
  wantFinalPass: boolean;
  /** glob(3)'s `~`: $HOME when set. */
  globHome: string;
  userHome: (user: string) => string | null;
  /** Every file opened, in order (for the alias list). */
  onFileRead?: (file: string) => void;
}

export interface LineState {
  active: boolean;
}

const ERRNO_TEXT: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
};

export class ConfigReadError extends Error {
  constructor(readonly errno: string) {
    super(errno);
  }
}

export function errnoText(code: string): string {
  return ERRNO_TEXT[code] ?? code;
}

/** read_config_file_depth: false when the file cannot be opened (the errno is in `error`). */
export async function readConfigFile(
  env: ReaderEnvironment,
  file: string,
  flags: number,
  state: LineState,
  depth: number,
): Promise<{ opened: true } | { opened: false; errno: string }> {
  if (depth < 0 || depth > READCONF_MAX_DEPTH) env.diag.fatal('Too many recursive configuration includes');
  let text: string;
  let st: Stats;
  try {
    st = statSync(file);
    text = st.isDirectory() ? '' : readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string') return { opened: false, errno: code };
    throw err;
  }
  if (flags & SSHCONF_CHECKPERM && !securePermissions(st, env.uid, env.accounts)) env.diag.fatal(`Bad owner or permissions on ${file}`);
  env.onFileRead?.(file);
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let bad = 0;
  for (let i = 0; i < lines.length; i++) {
    const ok = await processConfigLine(env, lines[i] as string, file, i + 1, state, flags, depth);
    if (!ok) bad++;
  }
  if (bad > 0) env.diag.fatal(`${file}: terminating, ${bad} bad configuration options`);
  return { opened: true };
}

/** process_config_line_depth; `state` is null for a command-line option (-o). Returns false for a bad line. */
export async function processConfigLine(
  env: ReaderEnvironment,
  raw: string,
  file: string,
  linenum: number,
  state: LineState | null,
  flags: number,
  depth: number,
): Promise<boolean> {
  const { diag, options } = env;
  const cmdline = state === null;
  const st: LineState = state ?? { active: true };
  const lexed = lexLine(raw);
  if (lexed.kind === 'empty') return true;
  if (lexed.kind === 'no-argument') {
    diag.error(`${file} line ${linenum}: no argument after keyword "${lexed.keyword}"`);
    return false;
  }
  const keyword = lexed.keyword;
  const entry = KEYWORDS.get(keyword);
  let ignoredUnknown = false;
  if (!entry) {
    const ignore = options.str('ignoreunknown');
    if (ignore !== undefined && matchPatternList(keyword, ignore, true) === 1) ignoredUnknown = true;
    else diag.error(`${file}: line ${linenum}: Bad configuration option: ${keyword}`);
  }
  if (lexed.kind === 'invalid-quotes') {
    diag.error(`${file} line ${linenum}: invalid quotes`);
    return false;
  }
  if (ignoredUnknown) return true;
  if (!entry) return false;
  const origin: ConfigOrigin | undefined = cmdline ? undefined : { file, line: linenum };
  const args = [...lexed.args];
  const where = `${file} line ${linenum}`;
  const op: Opcode = entry.op;

  switch (op) {
    case 'host': {
      if (cmdline) {
        diag.error('Host directive not supported as a command-line option');
        return false;
      }
      st.active = false;
      while (args.length > 0) {
        let arg = args.shift() as string;
        if (arg === '') {
          diag.error(`${where}: keyword ${keyword} empty argument`);
          return false;
        }
        if (flags & SSHCONF_NEVERMATCH) {
          args.length = 0;
          break;
        }
        const negated = arg.startsWith('!');
        if (negated) arg = arg.slice(1);
        if (matchPattern(env.host, arg)) {
          if (negated) {
            st.active = false;
            args.length = 0;
            break;
          }
          st.active = true;
        }
      }
      break;
    }
    case 'match': {
      if (cmdline) {
        diag.error('Host directive not supported as a command-line option');
        return false;
      }
      const value = await evaluateMatch(env, lexed.rest, (flags & SSHCONF_FINAL) !== 0, file, linenum);
      if (value < 0) {
        diag.error(`${where}: Bad Match condition`);
        return false;
      }
      st.active = flags & SSHCONF_NEVERMATCH ? false : value === 1;
      args.length = 0;
      break;
    }
    case 'include': {
      if (cmdline) {
        diag.error('Include directive not supported as a command-line option');
        return false;
      }
      while (args.length > 0) {
        const arg = args.shift() as string;
        if (arg === '') {
          diag.error(`${where}: keyword ${keyword} empty argument`);
          return false;
        }
        const userConf = (flags & SSHCONF_USERCONF) !== 0;
        if (arg.startsWith('~') && !userConf) {
          diag.error(`${where}: bad include path ${arg}.`);
          return false;
        }
        const pattern = !isAbsolute(arg) && !arg.startsWith('~') ? `${userConf ? '~/.ssh' : '/etc/ssh'}/${arg}` : arg;
        const paths = glob(pattern, { tildeHome: env.globHome, userHome: env.userHome });
        const outerActive = st.active;
        for (const path of paths) {
          const r = await readConfigFile(env, path, flags | SSHCONF_CHECKPERM | (outerActive ? 0 : SSHCONF_NEVERMATCH), st, depth + 1);
          if (!r.opened && r.errno !== 'ENOENT') {
            diag.error(`Can't open user config file ${path.slice(0, 100)}: ${errnoText(r.errno)}`);
            return false;
          }
          // A Match inside the included file does not change the including file's state.
          st.active = outerActive;
        }
      }
      break;
    }
    default: {
      const ok = parseValue(env, { op, option: entry.option, keyword, rest: lexed.rest, args, where, active: st.active, cmdline, flags, origin });
      if (!ok) return false;
    }
  }
  if (args.length > 0) {
    diag.error(`${where}: keyword ${keyword} extra arguments at end of line`);
    return false;
  }
  return true;
}
