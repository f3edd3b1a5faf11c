// The POSIX sh scripts that run on the box for remote jobs. Each is sent to `sh -s` on stdin, so neither the
// user's login shell nor `ps` ever sees them, and every value spliced in goes through shellQuote.
import { randomBytes } from 'node:crypto';
import { redactCredentialArgs } from '../../shared/engines/credentials';
import { SHELL_ENV_NAME as ENV_NAME, shellCommand, shellQuote } from '../../shared/shell-quote';

/** Where job folders live on the box, relative to the remote HOME. */
export const REMOTE_JOBS_ROOT = '.servelab/jobs';

const JOB_ID = /^[0-9]{8}T[0-9]{9}Z-[0-9a-f]{8}$/;

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

/**
 * A folder for sh: `~` and `~/…` become "$HOME"…, anything else is quoted as is, except that a relative folder
 * starting with `-` gets `./` in front (cd would take it as an option, and `cd -` goes to the previous folder).
 */
export function remotePathExpr(path: string): string {
  if (path === '~') return '"$HOME"';
  if (path.startsWith('~/')) return `"$HOME"/${shellQuote(path.slice(2) || '.')}`;
  return shellQuote(path.startsWith('-') ? `./${path}` : path);
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

/** The folders under the remote HOME that Servelab writes to; each must be the user's and writable by no one else. */
export const REMOTE_TREE = ['.servelab', '.servelab/jobs', '.servelab/servers', '.servelab/bench', '.servelab/engines', '.servelab/datasets', '.servelab/files'] as const;

/**
 * The first lines of every script that creates something under `~/.servelab`: files and folders are private
 * (umask 077) whatever the login umask is, `~/.servelab` is created 0700, and the script stops (exit 6, a message
 * naming the folder, its owner and mode, and the fix) when one of the tree's folders belongs to someone else or is
 * group- or world-writable: whoever can write there could swap a job folder (and so what Stop signals), an engine's
 * programs or a result. An older `~/.servelab` of the user's is made 0700 too.
 */
export const REMOTE_TREE_GUARD = `umask 077
mkdir -p -m 700 "$HOME/.servelab" 2>/dev/null || :
for servelab_d in ${REMOTE_TREE.map((d) => `"$HOME"/${shellQuote(d)}`).join(' ')}; do
  [ -e "$servelab_d" ] || continue
  servelab_m=$(ls -ldL "$servelab_d" 2>/dev/null | cut -c1-10)
  case $servelab_m in
    ?????w????|????????w?) servelab_bad=1 ;;
    *) if [ -O "$servelab_d" ]; then servelab_bad=0; else servelab_bad=1; fi ;;
  esac
  if [ "$servelab_bad" = 1 ]; then
    servelab_o=$(ls -ldL "$servelab_d" 2>/dev/null | awk '{ print $3 ":" $4 }')
    printf 'servelab: %s is owned by %s with mode %s, so others may be able to change what Servelab runs and records there. Make it yours and private, e.g. chown -R %s %s && chmod 700 %s, then retry.\\n' "$servelab_d" "$servelab_o" "$servelab_m" "$(id -un 2>/dev/null || echo "\${USER:-you}")" "$servelab_d" "$servelab_d" >&2
    exit 6
  fi
done
chmod 700 "$HOME/.servelab" 2>/dev/null || :
`;

/** Finished job folders (and the records of servers whose job finished) older than this are removed at a launch. */
export const PRUNE_AFTER_DAYS = 14;
/** At most this many folders are removed per launch, so one launch stays quick whatever piled up. */
const PRUNE_PER_LAUNCH = 50;

// Removes finished job folders older than PRUNE_AFTER_DAYS (an `exit` file, or a boot id from an earlier boot: nothing
// of them can run), then server folders whose job folder is gone or finished and that are as old. A folder's mtime is
// when an entry was last added (the exit file, for a job). Bounded per launch.
const PRUNE = `servelab_now_boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || :)
find "$HOME"/${shellQuote(REMOTE_JOBS_ROOT)} -mindepth 1 -maxdepth 1 -type d -name '[0-9]*T*Z-*' -mtime +${PRUNE_AFTER_DAYS} 2>/dev/null | head -n ${PRUNE_PER_LAUNCH} | while IFS= read -r old; do
  if [ -e "$old/exit" ] || { [ -s "$old/boot" ] && [ -n "$servelab_now_boot" ] && [ "$(cat "$old/boot")" != "$servelab_now_boot" ]; }; then rm -rf -- "$old"; fi
done
find "$HOME"/.servelab/servers -mindepth 1 -maxdepth 1 -type d -name 'srv-*' -mtime +${PRUNE_AFTER_DAYS} 2>/dev/null | head -n ${PRUNE_PER_LAUNCH} | while IFS= read -r old; do
  job=$(sed -n 's/.*"jobDir":"\\([^"]*\\)".*/\\1/p' "$old/server.json" 2>/dev/null)
  case $job in "$HOME"/${shellQuote(REMOTE_JOBS_ROOT)}/*) ;; *) continue ;; esac
  if [ ! -e "$job" ] || [ -e "$job/exit" ]; then rm -rf -- "$old"; fi
done
`;

/** Free space (KiB) below which a launch is refused: the job could not even record its pid, let alone its log. */
export const MIN_FREE_KIB = 1024;

// Runs as the job's session leader (setsid), so its pid is the process group id. Before anything else it records its
// start time (field 22 of /proc/<pid>/stat: with the pid, what tells this process from a later one that reuses the
// pid), the pgid and the pid, each write checked: when one fails (a full disk) the job is never run, so nothing runs
// that the app cannot find and stop. It traps TERM only to outlive the job long enough to record how it ended; a
// trap with a command (not '') is reset to default in the job.
const WRAPPER = `dir=$1; shift
umask 077
start=$(sed -n 's/^.*) //p' "/proc/$$/stat" 2>/dev/null | cut -d' ' -f20)
{
  { [ -z "$start" ] || { printf '%s\\n' "$start" > "$dir/pgstart.tmp" && mv -f "$dir/pgstart.tmp" "$dir/pgstart"; }; } &&
  echo $$ > "$dir/pgid.tmp" && mv -f "$dir/pgid.tmp" "$dir/pgid" &&
  echo $$ > "$dir/pid.tmp" && mv -f "$dir/pid.tmp" "$dir/pid" &&
  : >> "$dir/log" &&
  date -u +%Y-%m-%dT%H:%M:%SZ > "$dir/started"
} 2>/dev/null || { rm -f "$dir/pid" "$dir/pgid" "$dir/pid.tmp" "$dir/pgid.tmp" 2>/dev/null; : > "$dir/unrecorded" 2>/dev/null; exit 125; }
trap 'stopping=1' TERM INT
# The job's own files (a Hugging Face cache shared with a group, outputs) get the login's umask, not Servelab's.
case \${SERVELAB_LOGIN_UMASK:-} in [0-7][0-7][0-7]|[0-7][0-7][0-7][0-7]) umask "$SERVELAB_LOGIN_UMASK" ;; esac
unset SERVELAB_LOGIN_UMASK
"$@" >> "$dir/log" 2>&1 < /dev/null
code=$?
echo "$code" > "$dir/exit.tmp" && mv -f "$dir/exit.tmp" "$dir/exit"
`;

/**
 * Shell functions shared by every script that must tell whether a job still runs, and what of it to signal; they
 * expect `job_id` set and, for job_alive, the job folder as the working folder.
 *
 * job_alive: the job's process group is still the one the launch started: no `exit` file, pgid > 1, the box has not
 * rebooted since (boot id), the group leader is not a zombie, has the start time recorded at launch (when one was:
 * folders from before it was recorded have none) and its command line still carries `servelab-job <dir>` for this
 * job's folder. Anything else (a pid reused after a reboot or a wrap) is some other process, never to be signalled.
 *
 * job_marked: pids of this user whose environment carries SERVELAB_JOB=<id>, which the launch exports to the job:
 * finds what left the group (setsid, a daemonizing worker) and a job whose folder is gone.
 */
export const JOB_ALIVE_FUNCTIONS = `proc_start() { sed -n 's/^.*) //p' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
proc_zombie() { grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
job_alive() {
  [ ! -e exit ] || return 1
  pgid=$(cat pgid 2>/dev/null || :)
  case $pgid in ''|*[!0-9]*) return 1 ;; esac
  [ "$pgid" -gt 1 ] || return 1
  boot_now=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || :)
  boot_then=$(cat boot 2>/dev/null || :)
  # A box that shows no boot id (restricted /proc) cannot have rebooted as far as this check can tell.
  [ -z "$boot_now" ] || [ "$boot_now" = "$boot_then" ] || return 1
  [ -r "/proc/$pgid/stat" ] || return 1
  ! proc_zombie "$pgid" || return 1
  if [ -e pgstart ]; then [ "$(proc_start "$pgid")" = "$(cat pgstart 2>/dev/null)" ] || return 1; fi
  tr '\\0' '\\n' < "/proc/$pgid/cmdline" 2>/dev/null | awk -v id="$job_id" 'prev == "servelab-job" { n = length($0) - length(id); if (n >= 1 && substr($0, n) == "/" id) found = 1 } { prev = $0 } END { exit !found }'
}
job_marked() {
  grep -lzxF "SERVELAB_JOB=$job_id" /proc/[0-9]*/environ 2>/dev/null | while IFS= read -r f; do
    p=\${f#/proc/}; p=\${p%/environ}
    [ "$p" != "$$" ] && [ -O "/proc/$p" ] && ! proc_zombie "$p" && echo "$p"
  done
  :
}
`;

function jobIdOf(remoteDir: string): string {
  const id = remoteDir.replace(/\/+$/, '').split('/').pop() ?? '';
  if (!isJobId(id)) throw new Error(`"${remoteDir}" is not a job folder`);
  return id;
}

/**
 * Creates the job folder and starts the job detached (setsid + nohup, stdin from /dev/null), then waits for its
 * pid file. Secret values are exported by this script only: it travels on stdin, so they never reach a command
 * line or a file. Running it twice with the same id starts the job once (the `.launch` folder is the claim),
 * which makes a launch whose connection dropped safe to retry.
 */
export function launchScript(params: LaunchParams): string {
  const lines = [
    'set -u',
    // Taken before the guard's umask 077, for the job itself (the wrapper restores it just before the job runs).
    'servelab_login_umask=$(umask)',
    REMOTE_TREE_GUARD,
    PRUNE,
    `root="$HOME"/${shellQuote(REMOTE_JOBS_ROOT)}`,
    `dir="$root"/${shellQuote(params.id)}`,
  ];
  if (params.cwd !== undefined) {
    lines.push(`cd ${remotePathExpr(params.cwd)} 2>/dev/null || { printf 'servelab: cannot enter the working folder %s\\n' ${shellQuote(params.cwd)} >&2; exit 2; }`);
  }
  lines.push(
    // A full disk would let the job run but not record its pid: refused up front, with what to clean.
    `avail=$(df -Pk "$HOME" 2>/dev/null | awk 'NR == 2 { print $4 }')`,
    `case $avail in ''|*[!0-9]*) ;; *) if [ "$avail" -lt ${MIN_FREE_KIB} ]; then printf 'servelab: the disk holding %s has only %s KiB free, too little to start a job; free some space (old job folders in ~/.servelab/jobs, the Hugging Face cache in ~/.cache/huggingface) and retry\\n' "$HOME" "$avail" >&2; exit 5; fi ;; esac`,
    `mkdir -p -m 700 "$root" && mkdir -p -m 700 "$dir" || { echo 'servelab: cannot create the job folder (is the disk full?)' >&2; exit 3; }`,
    'if mkdir "$dir/.launch" 2>/dev/null; then',
    `  printf '%s\\n' ${shellQuote(commandFileText(params))} > "$dir/command"`,
    `  cat /proc/sys/kernel/random/boot_id > "$dir/boot" 2>/dev/null || rm -f "$dir/boot"`,
    ...Object.entries(params.env).map(([name, value]) => `  ${name}=${shellQuote(value)}; export ${name}`),
    ...Object.entries(params.secretEnv).map(([name, value]) => `  ${name}=${shellQuote(value)}; export ${name}`),
    `  SERVELAB_JOB=${shellQuote(params.id)}; export SERVELAB_JOB`,
    '  SERVELAB_LOGIN_UMASK=$servelab_login_umask; export SERVELAB_LOGIN_UMASK',
    // setsid -f forks without making the job an asynchronous list, which would start it with SIGINT ignored.
    `  if setsid -f true >/dev/null 2>&1; then`,
    `    setsid -f nohup /bin/sh -c ${shellQuote(WRAPPER)} servelab-job "$dir" ${shellCommand(params.argv)} < /dev/null > /dev/null 2>&1`,
    '  else',
    `    setsid nohup /bin/sh -c ${shellQuote(WRAPPER)} servelab-job "$dir" ${shellCommand(params.argv)} < /dev/null > /dev/null 2>&1 &`,
    '  fi',
    // The launcher's own commands below must not carry the job's mark.
    '  unset SERVELAB_JOB SERVELAB_LOGIN_UMASK',
    'fi',
    `job_id=${shellQuote(params.id)}`,
    JOB_ALIVE_FUNCTIONS,
    'i=0',
    'while [ ! -s "$dir/pid" ]; do',
    // The job could not record itself (a full disk): it did not run. Or it never got that far: whatever of it runs
    // is found by its SERVELAB_JOB mark and killed, so nothing is left that the app could not see or stop.
    `  if [ -e "$dir/unrecorded" ]; then echo 'servelab: the job could not record its pid in its folder (is the disk full?) and was not run' >&2; exit 4; fi`,
    '  if [ "$i" -ge 200 ]; then',
    '    left=$(job_marked)',
    '    [ -z "$left" ] || kill -s KILL $left 2>/dev/null',
    '    sleep 0.2',
    '    left=$(job_marked)',
    `    if [ -n "$left" ]; then printf 'servelab: the job did not start within 10 s, and its processes %s are still running after SIGKILL\\n' "$(echo $left)" >&2`,
    `    else echo 'servelab: the job did not start within 10 s; nothing of it is left running' >&2; fi`,
    '    exit 4',
    '  fi',
    '  sleep 0.05; i=$((i + 1))',
    'done',
    `printf 'started %s\\n' "$dir"`,
  );
  return lines.join('\n') + '\n';
}


/** One line: `running`, `exited <code>` or `lost <reason>`. */
export function statusScript(remoteDir: string): string {
  return `cd ${remotePathExpr(remoteDir)} 2>/dev/null || { echo 'lost the job folder is gone'; exit 0; }
job_id=${shellQuote(jobIdOf(remoteDir))}
${JOB_ALIVE_FUNCTIONS}
if [ -e exit ]; then printf 'exited %s\\n' "$(cat exit)"; exit 0; fi
if job_alive; then echo running; exit 0; fi
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
job_id=${shellQuote(jobIdOf(p.remoteDir))}
${JOB_ALIVE_FUNCTIONS}
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
    if [ $((idle % 10)) -eq 0 ] && ! job_alive && [ ! -e exit ]; then
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
 * TERM to the job's process group and to every process carrying its SERVELAB_JOB mark (what left the group), up to
 * `graceSeconds` for them to go, then KILL; prints `gone <how>` or `survivors` followed by the processes still there,
 * or `missing` when neither a live group nor a marked process is found and the folder cannot tell how the job ended
 * (gone, or no pgid recorded): unknown, not clean. A group that fails job_alive (an exit code recorded, an earlier
 * boot, another start time or command line, pgid <= 1) is never signalled. Records an exit code when the job could
 * not write one.
 */
export function cancelScript(remoteDir: string, graceSeconds: number): string {
  const graceTicks = Math.max(1, Math.round(graceSeconds * 10));
  return `job_id=${shellQuote(jobIdOf(remoteDir))}
${JOB_ALIVE_FUNCTIONS}
if cd ${remotePathExpr(remoteDir)} 2>/dev/null; then in_dir=1; else in_dir=0; fi
group=
if [ "$in_dir" = 1 ] && job_alive; then group=$pgid; fi
marked=$(job_marked)
if [ -z "$group" ] && [ -z "$marked" ]; then
  if [ "$in_dir" = 1 ] && { [ -e exit ] || [ -s pgid ]; }; then echo 'gone none'; else echo 'missing'; fi
  exit 0
fi
# The group was checked once above; it keeps its pgid for as long as one of its processes lives.
group_alive() {
  [ -n "$group" ] || return 1
  kill -s 0 -- "-$group" 2>/dev/null || return 1
  # Zombies stay in the group until reaped but are gone for our purpose.
  if command -v ps >/dev/null 2>&1; then
    [ -n "$(ps -e -o pgid=,stat= | awk -v g="$group" '$1 == g && $2 !~ /^Z/ { print; exit }')" ]
  fi
}
any_alive() {
  group_alive && return 0
  for p in $marked; do kill -s 0 "$p" 2>/dev/null && ! proc_zombie "$p" && return 0; done
  return 1
}
signal_all() {
  [ -z "$group" ] || kill -s "$1" -- "-$group" 2>/dev/null
  for p in $marked; do kill -s "$1" "$p" 2>/dev/null; done
  :
}
how=none
if any_alive; then
  [ "$in_dir" = 0 ] || : > cancelled
  how=TERM
  signal_all TERM
  i=0
  while any_alive && [ "$i" -lt ${graceTicks} ]; do sleep 0.1; i=$((i + 1)); done
  marked=$(job_marked)
  if any_alive; then
    how=KILL
    signal_all KILL
    i=0
    while any_alive && [ "$i" -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
  fi
fi
marked=$(job_marked)
if any_alive; then
  echo survivors
  ps -e -o pid=,pgid=,stat=,args= 2>/dev/null | awk -v g="$group" -v m=" $(echo $marked) " '$3 !~ /^Z/ && ((g != "" && $2 == g) || index(m, " " $1 " ") > 0)'
  exit 0
fi
if [ "$in_dir" = 1 ] && [ -n "$group" ] && [ ! -e exit ] && [ "$how" != none ]; then
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
