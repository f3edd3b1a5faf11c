// The POSIX sh scripts that run on the box for remote jobs. Each is sent to `sh -s` on stdin, so neither the
// user's login shell nor `ps` ever sees them, and every value spliced in goes through shellQuote.
import { randomBytes } from 'node:crypto';
import { redactCredentialArgs } from '../../shared/engines/credentials';
import { shellCommand, shellQuote } from '../../shared/shell-quote';

/** Where job folders live on the box, relative to the remote HOME. */
export const REMOTE_JOBS_ROOT = '.servelab/jobs';

const JOB_ID = /^[0-9]{8}T[0-9]{9}Z-[0-9a-f]{8}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `20250102T030405678Z-1a2b3c4d`: sorts by start time, then random; only [0-9A-Za-z-]. */
export function newJobId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  return `${stamp}-${randomBytes(4).toString('hex')}`;
}

export function isJobId(value: string): boolean {
  return JOB_ID.test(value);
}

export function isEnvName(value: string): boolean {
  return ENV_NAME.test(value);
}

/** A folder for sh: `~` and `~/…` become "$HOME"…, anything else is quoted as is. */
export function remotePathExpr(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${shellQuote(path.slice(2) || '.')}`;
  return shellQuote(path);
}

export interface LaunchParams {
  id: string;
  argv: readonly string[];
  cwd?: string;
  env: Record<string, string>;
  secretEnv: Record<string, string>;
}

/** What the `command` file holds: a line that reruns the job by hand, without any secret value (nor a credential flag's, M2). */
export function commandFileText(params: Pick<LaunchParams, 'argv' | 'cwd' | 'env' | 'secretEnv'>): string {
  const assignments = Object.entries(params.env).map(([name, value]) => `${name}=${shellQuote(value)}`);
  const line = [...assignments, shellCommand(redactCredentialArgs(params.argv))].join(' ');
  const cd = params.cwd === undefined ? '' : `cd ${remotePathExpr(params.cwd)} && `;
  const secretNames = Object.keys(params.secretEnv);
  const note = secretNames.length > 0 ? `# secret environment (values not stored): ${secretNames.join(' ')}\n` : '';
  return `${note}${cd}${line}`;
}

// Runs as the job's session leader (setsid), so its pid is the process group id. It traps TERM only to outlive
// the job long enough to record how it ended; a trap with a command (not '') is reset to default in the job.
const WRAPPER = `dir=$1; shift
: >> "$dir/log"
date -u +%Y-%m-%dT%H:%M:%SZ > "$dir/started"
echo $$ > "$dir/pgid.tmp" && mv -f "$dir/pgid.tmp" "$dir/pgid"
echo $$ > "$dir/pid.tmp" && mv -f "$dir/pid.tmp" "$dir/pid"
trap 'stopping=1' TERM INT
"$@" >> "$dir/log" 2>&1 < /dev/null
code=$?
echo "$code" > "$dir/exit.tmp" && mv -f "$dir/exit.tmp" "$dir/exit"
`;

/**
 * Creates the job folder and starts the job detached (setsid + nohup, stdin from /dev/null), then waits for its
 * pid file. Secret values are exported by this script only: it travels on stdin, so they never reach a command
 * line or a file. Running it twice with the same id starts the job once (the `.launch` folder is the claim),
 * which makes a launch whose connection dropped safe to retry.
 */
export function launchScript(params: LaunchParams): string {
  const lines = [
    'set -u',
    `root="$HOME"/${shellQuote(REMOTE_JOBS_ROOT)}`,
    `dir="$root"/${shellQuote(params.id)}`,
  ];
  if (params.cwd !== undefined) {
    lines.push(`cd ${remotePathExpr(params.cwd)} 2>/dev/null || { printf 'servelab: cannot enter the working folder %s\\n' ${shellQuote(params.cwd)} >&2; exit 2; }`);
  }
  lines.push(
    `mkdir -p "$root" && mkdir -p -m 700 "$dir" || { echo 'servelab: cannot create the job folder' >&2; exit 3; }`,
    'if mkdir "$dir/.launch" 2>/dev/null; then',
    `  printf '%s\\n' ${shellQuote(commandFileText(params))} > "$dir/command"`,
    `  cat /proc/sys/kernel/random/boot_id > "$dir/boot" 2>/dev/null || rm -f "$dir/boot"`,
    ...Object.entries(params.env).map(([name, value]) => `  ${name}=${shellQuote(value)}; export ${name}`),
    ...Object.entries(params.secretEnv).map(([name, value]) => `  ${name}=${shellQuote(value)}; export ${name}`),
    // setsid -f forks without making the job an asynchronous list, which would start it with SIGINT ignored.
    `  if setsid -f true >/dev/null 2>&1; then`,
    `    setsid -f nohup /bin/sh -c ${shellQuote(WRAPPER)} servelab-job "$dir" ${shellCommand(params.argv)} < /dev/null > /dev/null 2>&1`,
    '  else',
    `    setsid nohup /bin/sh -c ${shellQuote(WRAPPER)} servelab-job "$dir" ${shellCommand(params.argv)} < /dev/null > /dev/null 2>&1 &`,
    '  fi',
    'fi',
    'i=0',
    'while [ ! -s "$dir/pid" ]; do',
    `  if [ "$i" -ge 200 ]; then echo 'servelab: the job did not start within 10 s' >&2; exit 4; fi`,
    '  sleep 0.05; i=$((i + 1))',
    'done',
    `printf 'started %s\\n' "$dir"`,
  );
  return lines.join('\n') + '\n';
}

// Shared by the scripts that must tell a running job from a dead one. A zombie counts as dead (a box whose init
// does not reap would otherwise keep it "running"), and so does a pid recorded during an earlier boot.
const ALIVE_FUNCTIONS = `boot_now=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || :)
boot_then=$(cat boot 2>/dev/null || :)
pid=$(cat pid 2>/dev/null || :)
alive() {
  case $pid in ''|*[!0-9]*) return 1 ;; esac
  if [ -n "$boot_then" ] && [ -n "$boot_now" ] && [ "$boot_then" != "$boot_now" ]; then return 1; fi
  kill -s 0 "$pid" 2>/dev/null || return 1
  if [ -r "/proc/$pid/status" ] && grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null; then return 1; fi
  return 0
}
`;

/** One line: `running`, `exited <code>` or `lost <reason>`. */
export function statusScript(remoteDir: string): string {
  return `cd ${remotePathExpr(remoteDir)} 2>/dev/null || { echo 'lost the job folder is gone'; exit 0; }
${ALIVE_FUNCTIONS}
if [ -e exit ]; then printf 'exited %s\\n' "$(cat exit)"; exit 0; fi
if alive; then echo running; exit 0; fi
if [ -e exit ]; then printf 'exited %s\\n' "$(cat exit)"; exit 0; fi
echo 'lost the process is gone and left no exit code (killed, or the box rebooted)'
`;
}

export interface StreamScriptParams {
  remoteDir: string;
  offset: number;
  maxFrameBytes: number;
  /** Seconds between polls while the log is not growing, e.g. 0.1. */
  pollSeconds: number;
  /** Idle polls between two heartbeat lines. */
  heartbeatPolls: number;
}

/**
 * Streams the log from a byte offset as frames on stdout until the job has ended and the log is read:
 * `D <n>\n` + n bytes of log, `H\n` heartbeat while idle, then `X <code>\n` (exited) or `L <reason>\n` (lost).
 * The exit file is looked at before the log size, so once it is seen every byte the job wrote is already counted.
 */
export function streamScript(p: StreamScriptParams): string {
  const poll = p.pollSeconds.toFixed(3);
  const slowPoll = (p.pollSeconds * 4).toFixed(3);
  return `cd ${remotePathExpr(p.remoteDir)} 2>/dev/null || { printf 'L the job folder is gone\\n'; exit 0; }
${ALIVE_FUNCTIONS}
off=${integer(p.offset)}
max=${integer(p.maxFrameBytes)}
idle=0
quiet=0
while :; do
  if [ -e exit ]; then ended=1; else ended=0; fi
  size=$(wc -c < log 2>/dev/null || echo 0)
  size=$((size + 0))
  if [ "$size" -gt "$off" ]; then
    n=$((size - off))
    if [ "$n" -gt "$max" ]; then n=$max; fi
    printf 'D %s\\n' "$n"
    tail -c +$((off + 1)) log | head -c "$n"
    off=$((off + n))
    idle=0
    quiet=0
    if [ "$n" -eq "$max" ]; then continue; fi
  elif [ "$ended" = 1 ]; then
    printf 'X %s\\n' "$(cat exit)"
    exit 0
  else
    idle=$((idle + 1))
    quiet=$((quiet + 1))
    if [ $((idle % 10)) -eq 0 ] && ! alive && [ ! -e exit ]; then
      echo 'L the process is gone and left no exit code (killed, or the box rebooted)'
      exit 0
    fi
    if [ "$quiet" -ge ${integer(p.heartbeatPolls)} ]; then printf 'H\\n'; quiet=0; fi
  fi
  if [ "$idle" -ge 50 ]; then sleep ${slowPoll}; else sleep ${poll}; fi
done
`;
}

/**
 * TERM to the whole process group, up to `graceSeconds` for it to go, then KILL; prints `gone <how>` or
 * `survivors` followed by the processes still there. Records an exit code when the job could not write one.
 */
export function cancelScript(remoteDir: string, graceSeconds: number): string {
  const graceTicks = Math.max(1, Math.round(graceSeconds * 10));
  return `cd ${remotePathExpr(remoteDir)} 2>/dev/null || { echo 'missing'; exit 0; }
pgid=$(cat pgid 2>/dev/null || :)
case $pgid in ''|*[!0-9]*) echo 'missing'; exit 0 ;; esac
group_alive() {
  kill -s 0 -- "-$pgid" 2>/dev/null || return 1
  # Zombies stay in the group until reaped but are gone for our purpose.
  if command -v ps >/dev/null 2>&1; then
    [ -n "$(ps -e -o pgid=,stat= | awk -v g="$pgid" '$1 == g && $2 !~ /^Z/ { print; exit }')" ]
  fi
}
how=none
if group_alive; then
  : > cancelled
  how=TERM
  kill -s TERM -- "-$pgid" 2>/dev/null
  i=0
  while group_alive && [ "$i" -lt ${graceTicks} ]; do sleep 0.1; i=$((i + 1)); done
  if group_alive; then
    how=KILL
    kill -s KILL -- "-$pgid" 2>/dev/null
    i=0
    while group_alive && [ "$i" -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
  fi
fi
if group_alive; then
  echo survivors
  ps -e -o pid=,pgid=,stat=,args= 2>/dev/null | awk -v g="$pgid" '$2 == g && $3 !~ /^Z/'
  exit 0
fi
if [ ! -e exit ] && [ "$how" != none ]; then
  if [ "$how" = KILL ]; then code=137; else code=143; fi
  echo "$code" > exit.tmp && mv -f exit.tmp exit
fi
echo "gone $how"
`;
}

function integer(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`expected a non-negative integer, got ${value}`);
  return String(value);
}
