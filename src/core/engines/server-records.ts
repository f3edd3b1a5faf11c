import { shellQuote } from '../../shared/shell-quote';
import { runChecked, SERVERS_ROOT, type EngineBox } from './engine-box';
import type { ServerRecord } from './server-launcher';

export interface RecordedServer extends ServerRecord {
  /** Its process group (or, in docker mode, its container) is still there. */
  running: boolean;
}

/**
 * Every server launched on this box by any Servelab (the app in an earlier session, the CLI), from the records in
 * `~/.servelab/servers/`, each with whether it still runs: what a user must be able to see and stop.
 */
export async function listServerRecords(box: EngineBox): Promise<RecordedServer[]> {
  // One line per record: its JSON, then whether its job's process group or its container is alive.
  const script = `for f in "$HOME"/${shellQuote(SERVERS_ROOT)}/srv-*/server.json; do
  [ -f "$f" ] || continue
  rec=$(tr -d '\\n' < "$f")
  printf 'SERVELAB_RECORD %s\\n' "$rec"
  dir=$(printf '%s' "$rec" | sed -n 's/.*"jobDir":"\\([^"]*\\)".*/\\1/p')
  container=$(printf '%s' "$rec" | sed -n 's/.*"container":"\\([^"]*\\)".*/\\1/p')
  alive=no
  if [ -n "$container" ]; then
    [ -n "$(docker ps -q --filter "name=^/$container\\$" 2>/dev/null)" ] && alive=yes
  else
    pgid=$(cat "$dir/pgid" 2>/dev/null || :)
    case $pgid in ''|*[!0-9]*) ;; *) kill -s 0 -- "-$pgid" 2>/dev/null && [ ! -f "$dir/exit" ] && alive=yes ;; esac
  fi
  printf 'SERVELAB_ALIVE %s\\n' "$alive"
done
:
`;
  const result = await runChecked(box, 'list the servers recorded on the box', script);
  const lines = result.stdout.split('\n');
  const out: RecordedServer[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^SERVELAB_RECORD (\{.*\})$/.exec(lines[i] ?? '');
    if (!head) continue;
    const alive = /^SERVELAB_ALIVE (yes|no)$/.exec(lines[i + 1] ?? '')?.[1];
    try {
      const record = JSON.parse(head[1] as string) as ServerRecord;
      if (typeof record.serverId === 'string' && typeof record.port === 'number') out.push({ ...record, running: alive === 'yes' });
    } catch {
      // A record cut short by a crash: nothing to show or stop.
    }
  }
  return out.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}
