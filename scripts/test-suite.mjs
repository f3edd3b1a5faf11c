// `npm test`: the npm scripts named on the command line, in order, stopping at the first that fails (as `a && b`
// would), then a check that the run left no process behind (scripts/leftover-processes.mjs), which runs whatever
// they gave and fails the run when something is still alive. Everything the run starts carries
// SERVELAB_TEST_RUN=<id> in its environment, so the check tells the run's processes from anyone else's.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describeLeftovers, leftoverAfter, RUN_MARK, RUN_SINCE, statOf } from './leftover-processes.mjs';

const scripts = process.argv.slice(2);
const runId = randomUUID();
const since = statOf(process.pid)?.startTicks ?? 0;
const env = { ...process.env, [RUN_MARK]: runId, [RUN_SINCE]: String(since) };
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

let status = 0;
for (const script of scripts) {
  const result = spawnSync(npm, ['run', script], { stdio: 'inherit', env });
  status = result.status ?? 1;
  if (status !== 0) break;
}

const left = await leftoverAfter(20, { runId, since });
if (left.length > 0) {
  process.stderr.write(`\nThe tests left ${left.length} process${left.length === 1 ? '' : 'es'} running:\n${describeLeftovers(left)}\n`);
  if (status === 0) status = 1;
} else {
  process.stdout.write('\nNo process left behind by the tests.\n');
}
process.exit(status);
