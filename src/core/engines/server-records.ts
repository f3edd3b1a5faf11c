import { z } from 'zod';
import { ServelabError } from '../../shared/contract';
import { ENGINE_IDS } from '../../shared/engines';
import { shellQuote } from '../../shared/shell-quote';
import { isJobId, JOB_ALIVE_FUNCTIONS } from '../jobs/job-scripts';
import { runChecked, SERVERS_ROOT, type EngineBox } from './engine-box';
import type { ServerRecord } from './server-launcher';

export interface RecordedServer extends ServerRecord {
  /** Its process group (or, in docker mode, its container) is still there. */
  running: boolean;
}

/** What a launch writes to `~/.servelab/servers/<id>/server.json`; read back from the box, so parsed, never cast. */
const ServerRecordSchema = z.object({
  serverId: z.string().regex(/^srv-[0-9a-z]+-[0-9a-f]{8}$/, 'is not a server id'),
  hostId: z.string(),
  engine: z.enum(ENGINE_IDS),
  version: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  jobId: z.string().refine(isJobId, 'is not a job id'),
  jobDir: z.string().min(1),
  command: z.string(),
  startedAt: z.string(),
  mode: z.enum(['env', 'docker']).optional(),
  container: z.string().regex(/^servelab-srv-[0-9a-z]+-[0-9a-f]{8}$/, 'is not a Servelab container name').optional(),
  model: z.string().optional(),
  servedModelName: z.string().optional(),
  argv: z.array(z.string()).optional(),
  envNames: z.array(z.string()).optional(),
  gpus: z.array(z.string()).optional(),
  owner: z.string().optional(),
});

/**
 * A server record as the box holds it. Throws REMOTE_COMMAND_FAILED naming the file and what is wrong in it (not
 * an INTERNAL crash later on) when it is not JSON or not a record this version can stop.
 */
export function parseServerRecord(text: string, where: string): ServerRecord {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `The server record ${where} on the box is not valid JSON (cut short, or edited by hand); remove it if the server is gone.`);
  }
  const parsed = ServerRecordSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'record'} ${i.message}`).join('; ');
    throw new ServelabError('REMOTE_COMMAND_FAILED', `The server record ${where} on the box is damaged: ${problems}. Remove it if the server is gone, or stop the server by hand.`, {
      details: { where, issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })) },
    });
  }
  return parsed.data as ServerRecord;
}

/**
 * Every server launched on this box by any Servelab (the app in an earlier session, the CLI), from the records in
 * `~/.servelab/servers/`, each with whether it still runs (job_alive: a record from before a reboot, or whose pgid now
 * belongs to another process, is not running): what a user must be able to see and stop.
 */
export async function listServerRecords(box: EngineBox): Promise<RecordedServer[]> {
  // One line per record: its JSON, then whether its job's process group or its container is alive.
  const script = `${JOB_ALIVE_FUNCTIONS}
for f in "$HOME"/${shellQuote(SERVERS_ROOT)}/srv-*/server.json; do
  [ -f "$f" ] || continue
  rec=$(tr -d '\\n' < "$f")
  printf 'SERVELAB_RECORD %s\\n' "$rec"
  dir=$(printf '%s' "$rec" | sed -n 's/.*"jobDir":"\\([^"]*\\)".*/\\1/p')
  container=$(printf '%s' "$rec" | sed -n 's/.*"container":"\\([^"]*\\)".*/\\1/p')
  alive=no
  if [ -n "$container" ]; then
    [ -n "$(docker ps -q --filter "name=^/$container\\$" 2>/dev/null)" ] && alive=yes
  elif [ -n "$dir" ]; then
    job_id=\${dir##*/}
    (cd "$dir" 2>/dev/null && job_alive) && alive=yes
  fi
  printf 'SERVELAB_ALIVE %s\\n' "$alive"
done
:
`;
  const result = await runChecked(box, 'list the servers recorded on the box', script);
  const lines = result.stdout.split('\n');
  const out: RecordedServer[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^SERVELAB_RECORD (.*)$/.exec(lines[i] ?? '');
    if (!head) continue;
    const alive = /^SERVELAB_ALIVE (yes|no)$/.exec(lines[i + 1] ?? '')?.[1];
    try {
      out.push({ ...parseServerRecord(head[1] as string, 'in ~/.servelab/servers'), running: alive === 'yes' });
    } catch {
      // A record cut short by a crash or edited by hand: nothing this version can show or stop. Reading it by its
      // id (readServerRecord) says what is wrong with it.
    }
  }
  return out.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
}
