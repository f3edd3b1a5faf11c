// The two sides of a batch job that serves as a box (docs/ARCHITECTURE.md "Batch jobs as boxes"): the agent, the
// job's batch script, runs requests dropped into a mailbox folder on the shared HOME on its compute node; the relay,
// run on the login node for each request, drops one in and passes its output back as it grows.
//
// The mailbox (`dir`):
//   ready          node=…, gpus=… (CUDA_VISIBLE_DEVICES as Slurm set it), pid=…, written once, atomically
//   alive          a counter the agent rewrites every ~2 s (in place: an open revalidates it on NFS)
//   ended          why the agent ended (stop, idle, signal TERM), written before it exits
//   stop           asks the agent to end
//   tmp/<id>/      a request being written: `script`, and `login` when it runs as `sh -l -s`
//   new/<id>/      a request ready to run (renamed from tmp/, so the agent never sees half of it)
//   run/<id>/      a request the agent took: `out`, `err`, then `rc` (its exit status), written atomically
//   cancel/<id>    asks the agent to kill the request's process group (and drop its folder)
//
// Existence checks of files another node writes use a one-character bracket glob (`sto[p]`): that reads the folder
// (readdir), where a plain lookup could be answered from an NFS client's negative lookup cache.
import { shellQuote } from '../../shared/shell-quote';
import { remotePathExpr } from '../jobs/job-scripts';

/** How often the agent looks into the mailbox. */
export const AGENT_POLL_SECONDS = 0.1;
/** Agent loops between heartbeats (about 2 s). */
const BEAT_LOOPS = 20;
/** A heartbeat unchanged for this long means the agent is gone (NFS attribute caches can hold a value for seconds). */
export const AGENT_STALE_SECONDS = 30;
/** Default idle time after which an agent with nothing to do ends its job. */
export const DEFAULT_IDLE_MINUTES = 10;
/** Grace between SIGTERM and SIGKILL for what the agent's requests left running when it ends. */
const KILL_GRACE_TICKS = 50;

/** The environment variable every request (and what it detaches) carries: the agent's Slurm job id. */
export const AGENT_MARK = 'SERVELAB_AGENT_JOB';

export interface AgentScriptParams {
  /** The mailbox folder, `~/…` or absolute. */
  dir: string;
  /** Seconds with no request running or arriving after which the agent ends. */
  idleSeconds: number;
}

/** A request id: what the app and the agent name folders by. */
export function isRequestId(id: string): boolean {
  return /^[a-z0-9]{8,40}$/.test(id);
}

/**
 * The batch script. Requests run as `sh -l -s` (the login profile's PATH applies; a command channel's as `sh -s`,
 * as SSH runs a command, since remote job scripts parse their own output) in a session of their own, so that
 * a cancel kills the request's whole process group, and carry AGENT_MARK. When the agent ends it kills everything
 * carrying the mark, detached jobs included: with proctrack/linuxproc Slurm follows processes by parentage and loses
 * the ones that detached (setsid, reparented to init), and a server left holding GPU memory on a GPU Slurm gave to
 * the next job would break that job.
 */
export function agentScript(params: AgentScriptParams): string {
  if (!Number.isInteger(params.idleSeconds) || params.idleSeconds < 1) throw new Error('idleSeconds must be a positive integer');
  return `#!/bin/sh
# Servelab: runs the requests dropped into this job's mailbox on its node.
mb=${remotePathExpr(params.dir)}
idle_limit=${params.idleSeconds}
mark=\${SLURM_JOB_ID:-$$}
cd "$HOME" || exit 1
# Requests may carry secrets (a job's secret environment travels in its launch script): the mailbox is the user's only.
mkdir -p "$mb" && chmod 700 "$mb" && mkdir -p "$mb/tmp" "$mb/new" "$mb/run" "$mb/cancel" || exit 1
running=
beat=0
loops=0
sweeps=0
active=
last_active=$(date +%s)

ag_marked() {
  for p in /proc/[0-9]*; do
    q=\${p#/proc/}
    [ "$q" = "$$" ] && continue
    [ -O "$p" ] || continue
    tr '\\000' '\\n' < "$p/environ" 2>/dev/null | grep -qx "${AGENT_MARK}=$mark" && printf '%s ' "$q"
  done
}

ag_end() {
  trap '' TERM INT
  printf '%s\\n' "$1" > "$mb/ended.tmp" && mv -f "$mb/ended.tmp" "$mb/ended"
  for r in $running; do kill -s KILL -- "-\${r#*:}" 2>/dev/null; done
  left=$(ag_marked)
  if [ -n "$left" ]; then
    kill -s TERM $left 2>/dev/null
    i=0
    while [ "$i" -lt ${KILL_GRACE_TICKS} ] && [ -n "$(ag_marked)" ]; do sleep 0.1; i=$((i + 1)); done
    left=$(ag_marked)
    [ -z "$left" ] || kill -s KILL $left 2>/dev/null
  fi
  exit 0
}
trap 'ag_end "signal TERM"' TERM
trap 'ag_end "signal INT"' INT

ag_start() {
  ${AGENT_MARK}=$mark setsid /bin/sh -c 'cd "$HOME" || exit 1; if [ -e "$1/login" ]; then sh -l -s; else sh -s; fi < "$1/script" > "$1/out" 2> "$1/err"; printf "%s\\n" "$?" > "$1/rc.tmp" && mv -f "$1/rc.tmp" "$1/rc"' servelab-request "$mb/run/$1" < /dev/null > /dev/null 2>&1 &
  running="$running $1:$!"
}

# Kills a running request's group and drops its folder: whoever cancels does not want its result.
ag_cancel() {
  found=
  still=
  for r in $running; do
    if [ "\${r%:*}" = "$1" ]; then
      found=1
      kill -s KILL -- "-\${r#*:}" 2>/dev/null
      wait "\${r#*:}" 2>/dev/null
    else
      still="$still $r"
    fi
  done
  running=$still
  if [ -n "$found" ] || [ -d "$mb/run/$1" ]; then rm -rf "$mb/run/$1"; return 0; fi
  return 1
}

echo 0 > "$mb/alive"
{
  printf 'node=%s\\n' "\${SLURMD_NODENAME:-$(hostname)}"
  printf 'gpus=%s\\n' "\${CUDA_VISIBLE_DEVICES-}"
  printf 'pid=%s\\n' "$$"
} > "$mb/ready.tmp" && mv -f "$mb/ready.tmp" "$mb/ready" || exit 1

while :; do
  for n in "$mb"/new/*; do
    [ -d "$n" ] || continue
    id=\${n##*/}
    active=1
    if mv "$n" "$mb/run/$id" 2>/dev/null; then ag_start "$id"; fi
  done
  for c in "$mb"/cancel/*; do
    [ -e "$c" ] || continue
    if ag_cancel "\${c##*/}"; then rm -f "$c"; fi
  done
  if [ -n "$running" ]; then
    active=1
    still=
    for r in $running; do
      id=\${r%:*}
      pid=\${r#*:}
      set -- "$mb/run/$id"/r[c]
      if [ -f "$1" ]; then
        wait "$pid" 2>/dev/null
      elif kill -0 "$pid" 2>/dev/null; then
        still="$still $r"
      else
        # Ended without writing its status (killed from outside the agent).
        printf 'lost\\n' > "$mb/run/$id/rc.tmp" && mv -f "$mb/run/$id/rc.tmp" "$mb/run/$id/rc"
      fi
    done
    running=$still
  fi
  set -- "$mb"/sto[p]
  [ -e "$1" ] && ag_end stop
  loops=$((loops + 1))
  if [ "$loops" -ge ${BEAT_LOOPS} ]; then
    loops=0
    beat=$((beat + 1))
    echo "$beat" > "$mb/alive"
    now=$(date +%s)
    if [ -n "$active" ] || [ -n "$running" ]; then last_active=$now; active=; fi
    [ $((now - last_active)) -ge "$idle_limit" ] && ag_end idle
    sweeps=$((sweeps + 1))
    if [ "$sweeps" -ge 30 ]; then
      sweeps=0
      # Cancels for requests that never came, and results no relay collected within an hour (its connection died; a
      # follow-on relay may wait a while for a session of the login connection).
      find "$mb/cancel" -type f -mmin +2 -exec rm -f {} + 2>/dev/null
      find "$mb/run" -mindepth 2 -maxdepth 2 -name rc -mmin +60 -exec sh -c 'for f; do rm -rf "\${f%/rc}"; done' sh {} + 2>/dev/null
    fi
  fi
  sleep ${AGENT_POLL_SECONDS}
done
`;
}

/** How the relay's last line (`<token>. …`) ends a request. */
export type RelayEnd =
  | { kind: 'rc'; code: number | null }
  | { kind: 'more'; out: number; err: number }
  | { kind: 'cancelled' } | { kind: 'timeout' } | { kind: 'gone'; why: string } | { kind: 'failed'; why: string };

export interface RelayParams {
  dir: string;
  id: string;
  /** Random word that starts each line the relay prints, so that a login profile's chatter is told apart. */
  token: string;
  timeoutSeconds: number;
  /** Run as `sh -l -s` (BoxTransport.run), else as `sh -s` (a command channel's command, as SSH runs it). */
  login: boolean;
  /** Follows a request an earlier relay dropped in and left at these offsets (`more`), instead of sending one. */
  resume?: { out: number; err: number };
  /** Seconds before handing over a running request (default RELAY_TURN_SECONDS). */
  turnSeconds?: number;
}

/**
 * Bytes one relay passes on before it ends with `more <out> <err>` and the app follows on with another: a login
 * round trip keeps all it printed, and a server's log stream (a jobs() command) lasts as long as the server.
 */
export const RELAY_BUDGET_BYTES = 16 * 1024 * 1024;

/**
 * Seconds one relay of a running request lasts before it hands over (`more`) the same way: a login connection has
 * few session channels (ssh/session-gate.ts), and a benchmark or a server's log stream must not hold one for hours
 * while other requests wait for it.
 */
export const RELAY_TURN_SECONDS = 60;

/**
 * The login node's side of one request, run as `sh -l -s` with the request script on its stdin: writes it to tmp/,
 * renames it into new/, then relays `out` and `err` as they grow, each new piece one line `<token>O <base64>` or
 * `<token>E <base64>` on stdout (byte for byte: a remote job's log frames count bytes), and ends with
 * `<token>. rc <n>` (or why there is none). It polls fast at first (most requests are short), then every 0.1 s; it
 * gives up when the agent marked itself ended or its heartbeat stopped, and cancels the request at its time limit.
 * After RELAY_BUDGET_BYTES, or RELAY_TURN_SECONDS of a running request, it ends with `more` and the offsets reached,
 * for a relay that resumes there.
 */
export function relayScript(params: RelayParams): string {
  if (!isRequestId(params.id)) throw new Error(`"${params.id}" is not a request id`);
  if (!/^[A-Za-z0-9_]+$/.test(params.token)) throw new Error('bad relay token');
  const timeout = Math.max(1, Math.ceil(params.timeoutSeconds));
  const resume = params.resume;
  if (resume && !(Number.isSafeInteger(resume.out) && resume.out >= 0 && Number.isSafeInteger(resume.err) && resume.err >= 0)) throw new Error('bad relay offsets');
  const send = `set -- "$mb"/ende[d]
if [ -f "$1" ]; then read -r why < "$1"; sl_end gone ended "$why"; fi
umask 077
mkdir "$t" 2>/dev/null || sl_end failed cannot create "$t"
cat > "$t/script" || { rm -rf "$t"; sl_end failed cannot write "$t/script"; }
${params.login ? ': > "$t/login"\n' : ''}mv "$t" "$mb/new/$id" || { rm -rf "$t"; sl_end failed cannot move the request into "$mb/new"; }
`;
  return `# Servelab: one request to a Slurm job's node.
mb=${remotePathExpr(params.dir)}
id=${shellQuote(params.id)}
tok=${shellQuote(params.token)}
t="$mb/tmp/$id"
r="$mb/run/$id"
sl_end() { printf '\\n%s. %s\\n' "$tok" "$*"; exit 0; }
${resume ? '' : send}o=${resume?.out ?? 0}
e=${resume?.err ?? 0}
budget=$((o + e + ${RELAY_BUDGET_BYTES}))
i=0
hb=
started=${resume ? '1' : ''}
now=$(date +%s)
seen=$now
deadline=$((now + ${timeout}))
turn=$((now + ${Math.max(1, Math.ceil(params.turnSeconds ?? RELAY_TURN_SECONDS))}))
# One piece of a growing file as a line (at most 1 MiB at a time).
sl_piece() {
  [ -f "$r/$1" ] || return 0
  n=$(($(wc -c < "$r/$1")))
  [ "$n" -gt "$3" ] || return 0
  m=$((n - $3))
  [ "$m" -le 1048576 ] || m=1048576
  printf '\\n%s%s ' "$tok" "$2"
  tail -c +$(($3 + 1)) "$r/$1" | head -c "$m" | base64 -w 0
  echo
  pos=$(($3 + m))
}
sl_relay() {
  pos=$o; sl_piece out O "$o"; o=$pos
  pos=$e; sl_piece err E "$e"; e=$pos
  [ $((o + e)) -lt "$budget" ] || sl_end more "$o" "$e"
}
while :; do
  if [ -d "$r" ]; then
    started=1
    set -- "$r"/r[c]
    if [ -f "$1" ]; then
      while :; do
        po=$o
        pe=$e
        sl_relay
        [ "$o" = "$po" ] && [ "$e" = "$pe" ] && break
      done
      read -r rc < "$r/rc"
      rm -rf "$r"
      # Killed by a signal: when Slurm ends the job it signals every process in it, the agent too; its ended mark
      # then says why, rather than the exit status of a script that did not end on its own.
      case $rc in 1[3-9][0-9]|2[0-9][0-9])
        j=0
        while [ "$j" -lt 10 ]; do
          set -- "$mb"/ende[d]
          if [ -f "$1" ]; then read -r why < "$1"; sl_end gone ended "$why"; fi
          sleep 0.05
          j=$((j + 1))
        done
      esac
      sl_end rc "$rc"
    fi
    sl_relay
  elif [ -n "$started" ]; then
    sl_end cancelled
  fi
  set -- "$mb"/ende[d]
  if [ -f "$1" ]; then
    rm -rf "$mb/new/$id"
    read -r why < "$1"
    sl_end gone ended "$why"
  fi
  i=$((i + 1))
  if [ $((i % 10)) = 0 ]; then
    now=$(date +%s)
    b=
    read -r b 2>/dev/null < "$mb/alive"
    if [ -n "$b" ] && [ "$b" != "$hb" ]; then hb=$b; seen=$now; fi
    if [ $((now - seen)) -ge ${AGENT_STALE_SECONDS} ]; then rm -rf "$mb/new/$id"; sl_end gone stale; fi
    if [ -d "$r" ] && [ "$now" -ge "$turn" ] && [ "$now" -lt "$deadline" ]; then sl_end more "$o" "$e"; fi
    if [ "$now" -ge "$deadline" ]; then
      : > "$mb/cancel/$id"
      rm -rf "$mb/new/$id"
      j=0
      while [ -d "$r" ] && [ "$j" -lt 50 ]; do sleep 0.1; j=$((j + 1)); done
      sl_end timeout
    fi
  fi
  if [ "$i" -lt 25 ]; then sleep 0.02; else sleep ${AGENT_POLL_SECONDS}; fi
done
`;
}

/** Login-node script that asks the agent to kill a request and waits (up to 5 s) until it did. */
export function cancelRequestScript(dir: string, id: string): string {
  if (!isRequestId(id)) throw new Error(`"${id}" is not a request id`);
  return `# Servelab: cancel one request on a Slurm job's node.
mb=${remotePathExpr(dir)}
id=${shellQuote(id)}
: > "$mb/cancel/$id"
rm -rf "$mb/new/$id" "$mb/tmp/$id"
j=0
while [ -d "$mb/run/$id" ] && [ "$j" -lt 50 ]; do sleep 0.1; j=$((j + 1)); done
set -- "$mb"/ende[d]
[ -f "$1" ] && rm -f "$mb/cancel/$id"
exit 0
`;
}

/** Login-node script that asks the agent to end. */
export function stopAgentScript(dir: string): string {
  return `mb=${remotePathExpr(dir)}\n: > "$mb/stop"\n`;
}

export const READY_MARKER = '==SERVELAB-AGENT-READY==';

/** Prints the agent's `ready` file (and whether it ended) after READY_MARKER, for waitForAgent. */
export function readyScript(dir: string): string {
  return `mb=${remotePathExpr(dir)}
printf '\\n%s\\n' '${READY_MARKER}'
set -- "$mb"/read[y]
[ -f "$1" ] && cat "$1"
set -- "$mb"/ende[d]
if [ -f "$1" ]; then printf 'ended='; cat "$1"; fi
`;
}

/** The `ready` file: node name, GPUs and the agent's pid, or null when it is not there (yet). */
export function parseReady(text: string): { node: string; gpus: string[]; pid: number | null; ended: string | null } | null {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const eq = line.indexOf('=');
    if (eq > 0) fields.set(line.slice(0, eq), line.slice(eq + 1).trim());
  }
  const node = fields.get('node');
  if (!node) return null;
  const gpus = (fields.get('gpus') ?? '').split(',').map((gpu) => gpu.trim()).filter(Boolean);
  const pid = Number(fields.get('pid'));
  return { node, gpus, pid: Number.isInteger(pid) && pid > 0 ? pid : null, ended: fields.get('ended') ?? null };
}

/** The words of the relay's last line (after `<token>. `), or null when they say nothing known. */
export function parseRelayEnd(words: string): RelayEnd | null {
  const [kind, ...rest] = words.trim().split(' ');
  switch (kind) {
    case 'rc': {
      const code = Number(rest[0]);
      return { kind: 'rc', code: rest[0] !== undefined && /^\d+$/.test(rest[0]) ? code : null };
    }
    case 'cancelled':
      return { kind: 'cancelled' };
    case 'timeout':
      return { kind: 'timeout' };
    case 'gone':
      return { kind: 'gone', why: rest.join(' ') };
    case 'failed':
      return { kind: 'failed', why: rest.join(' ') };
    case 'more': {
      const [out, err] = rest.map(Number);
      return out !== undefined && err !== undefined && Number.isSafeInteger(out) && Number.isSafeInteger(err) ? { kind: 'more', out, err } : null;
    }
    default:
      return null;
  }
}
