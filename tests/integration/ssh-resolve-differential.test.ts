// `servelab ssh resolve --json` against OpenSSH 9.2 itself, on every scenario of tests/fixtures/ssh-config-scenarios,
// for both ways Servelab resolves a host: asking ssh (`--resolver ssh`) and its own reader (`--resolver built-in`).
// Each scenario has its own local user, home, host name and hosts file (nss_wrapper), and every process (ssh, the
// oracle's, the CLI) runs in a network namespace with no way out (tests/helpers/ssh-oracle.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, repoRoot } from '../helpers/repo';
import { SshOracle, type ExpectedResolveJson, type OracleAnswer } from '../helpers/ssh-oracle';
import { layOutScenario, type LaidOutScenario, type ScenarioSplit, type SshScenario } from '../helpers/ssh-scenarios';
import { SCENARIO_SOURCES, SSH_CONFIG_SCENARIOS } from '../fixtures/ssh-config-scenarios';

const CONCURRENCY = 4;
// Its few hundred short ssh and CLI processes are pure CPU: at nice 10 they fill the CPU the suites that wait on
// sshd and the simulated GPU leave idle, and give way to those suites' processes when they need it.
const NICENESS = 10;
const RESOLVERS = ['ssh', 'built-in'] as const;
type Resolver = (typeof RESOLVERS)[number];
const SOURCE_OF: Record<Resolver, string> = { ssh: 'ssh -G', 'built-in': 'built-in' };
const JSON_KEYS: (keyof ExpectedResolveJson | 'source')[] = [
  'hostname',
  'port',
  'user',
  'identityFiles',
  'identitiesOnly',
  'identityAgent',
  'certificateFiles',
  'proxyJump',
  'proxyCommand',
  'hostKeyAlias',
  'strictHostKeyChecking',
  'userKnownHostsFiles',
  'connectTimeout',
  'serverAliveInterval',
  'serverAliveCountMax',
  'source',
];

interface Disagreement {
  id: string;
  resolver: Resolver;
  field: string;
  expected: unknown;
  got: unknown;
}

let oracle: SshOracle;
/** Each scenario laid out once, with OpenSSH's answer for it. */
const prepared = new Map<string, { laid: LaidOutScenario; answer: OracleAnswer }>();

beforeAll(async () => {
  oracle = await SshOracle.start({ niceness: NICENESS });
});

afterAll(async () => {
  for (const { laid } of prepared.values()) await laid.identity.remove();
  await oracle?.stop();
});

/** Runs `work` over `items`, at most `limit` at a time. */
async function eachLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function prepare(scenario: SshScenario): Promise<{ laid: LaidOutScenario; answer: OracleAnswer }> {
  const known = prepared.get(scenario.id);
  if (known) return known;
  const laid = await layOutScenario(scenario);
  const answer = await oracle.resolve({ args: laid.args, destination: laid.destination, env: laid.env, cwd: laid.cwd }).catch(async (error: unknown) => {
    await laid.identity.remove();
    throw error;
  });
  prepared.set(scenario.id, { laid, answer });
  // SSH_ORACLE_DUMP=1 prints OpenSSH's answers, to review new scenarios.
  if (process.env.SSH_ORACLE_DUMP === '1') process.stdout.write(`${scenario.id}: ${JSON.stringify(answer)}\n`);
  return { laid, answer };
}

function compare(id: string, resolver: Resolver, answer: OracleAnswer, run: { code: number | null; stdout: string; stderr: string }): Disagreement[] {
  const out = (field: string, expected: unknown, got: unknown): Disagreement[] => [{ id, resolver, field, expected, got }];
  if (!answer.accepted) {
    if (run.code === 0) return out('(refusal)', `exit non-zero: ${answer.message}`, `exit 0: ${run.stdout.trim()}`);
    const where = answer.location;
    if (where !== null && !(run.stderr.includes(where.file) && new RegExp(`\\bline ${where.line}\\b`).test(run.stderr))) {
      return out('(refusal location)', `${where.file} line ${where.line}`, run.stderr.trim());
    }
    return [];
  }
  if (run.code !== 0) return out('(exit)', 0, `${run.code}: ${run.stderr.trim()}`);
  let got: Record<string, unknown>;
  try {
    got = JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    return out('(json)', 'one JSON object', run.stdout.trim());
  }
  const expected: Record<string, unknown> = { ...answer.json, source: SOURCE_OF[resolver] };
  const found: Disagreement[] = [];
  if (JSON.stringify(Object.keys(got)) !== JSON.stringify(JSON_KEYS)) found.push(...out('(keys)', JSON_KEYS, Object.keys(got)));
  for (const key of JSON_KEYS) {
    if (JSON.stringify(got[key]) !== JSON.stringify(expected[key])) found.push(...out(key, expected[key], got[key]));
  }
  return found;
}

function runCli(laid: LaidOutScenario, resolver: Resolver) {
  const env = { ...laid.env, SERVELAB_DATA_DIR: join(laid.identity.root, 'servelab-data') };
  return oracle.exec(process.execPath, [cliPath, 'ssh', 'resolve', ...laid.args, laid.destination, '--json', '--resolver', resolver], { env, cwd: laid.cwd });
}

function splitOf(scenario: SshScenario): ScenarioSplit {
  const source = SCENARIO_SOURCES[scenario.source];
  if (source === undefined) throw new Error(`scenario ${scenario.id} names an unknown source ${scenario.source}`);
  return source.split;
}

describe('ssh host resolution against OpenSSH', () => {
  it('has enough distinct scenarios, each from a known source, split by source', () => {
    const ids = SSH_CONFIG_SCENARIOS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(170);
    const counts = { dev: 0, heldout: 0 };
    for (const scenario of SSH_CONFIG_SCENARIOS) counts[splitOf(scenario)]++;
    expect(counts.heldout).toBeGreaterThan(ids.length / 5);
    expect(counts.dev).toBeGreaterThan(counts.heldout);
  });

  it(
    'each scenario is accepted or refused by ssh as its data says',
    async () => {
      const wrong = await eachLimited(SSH_CONFIG_SCENARIOS, CONCURRENCY, async (scenario) => {
        const { answer } = await prepare(scenario);
        return answer.accepted === scenario.accepted ? null : `${scenario.id}: ssh ${answer.accepted ? 'accepts it' : `refuses it: ${answer.message}`}`;
      });
      expect(wrong.filter((line) => line !== null)).toEqual([]);
    },
    600_000,
  );

  it(
    'servelab ssh resolve --json agrees with ssh on every field, through ssh -G and through the built-in reader',
    async () => {
      if (!existsSync(join(repoRoot, 'out', 'main', 'cli.js'))) throw new Error('The CLI is not built: run `npm run build` (npm test does it first).');
      // SSH_SCENARIO_IDS=id1,id2 compares only those (to look at one disagreement); the summary says so.
      const only = process.env.SSH_SCENARIO_IDS?.split(',').filter((id) => id !== '');
      const chosen = only === undefined ? SSH_CONFIG_SCENARIOS : SSH_CONFIG_SCENARIOS.filter((s) => only.includes(s.id));
      const results = await eachLimited(chosen, CONCURRENCY, async (scenario) => {
        const { laid, answer } = await prepare(scenario);
        const byResolver = {} as Record<Resolver, Disagreement[]>;
        for (const resolver of RESOLVERS) byResolver[resolver] = compare(scenario.id, resolver, answer, await runCli(laid, resolver));
        return { scenario, byResolver };
      });
      const summary: string[] = [];
      for (const split of ['dev', 'heldout'] as const) {
        const inSplit = results.filter((r) => splitOf(r.scenario) === split);
        const score = (resolver: Resolver) => `${inSplit.filter((r) => r.byResolver[resolver].length === 0).length}/${inSplit.length}`;
        summary.push(`${split}: ssh -G ${score('ssh')}, built-in ${score('built-in')}`);
      }
      process.stdout.write(`ssh resolve differential${only === undefined ? '' : ` (only ${chosen.length} chosen scenarios)`}: ${summary.join('; ')}\n`);
      const disagreements = results.flatMap((r) => RESOLVERS.flatMap((resolver) => r.byResolver[resolver]));
      const listed = disagreements.map((d) => `${d.id} [${d.resolver}] ${d.field}: expected ${JSON.stringify(d.expected)}, got ${JSON.stringify(d.got)}`);
      expect(listed).toEqual([]);
    },
    1_200_000,
  );
});
