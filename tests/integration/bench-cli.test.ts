// `servelab bench …` over a real sshd with the simulated box: a new host key accepted with --accept-new, ShareGPT
// uploaded into the box's cache, a workload run against a launched server and kept in the results library.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchReadyVllm, startSimboxOverSsh, type SimboxOverSsh } from '../helpers/simbox-ssh';
import { runCaptured } from '../helpers/cli';
import { repoRoot } from '../helpers/repo';
import { runBench } from '../../src/cli/commands/bench';
import type { RunningServer } from '../../src/core/engines/server-launcher';
import { ResultEntrySchema } from '../../src/shared/results/result-entry';

let lab: SimboxOverSsh;
let server: RunningServer;
let env: NodeJS.ProcessEnv;
let boxArgs: string[];

beforeAll(async () => {
  lab = await startSimboxOverSsh({ hostId: 'bench-cli' });
  env = { ...process.env, HOME: lab.scratch, SERVELAB_DATA_DIR: join(lab.scratch, 'data') };
  // A known_hosts of its own that starts empty: the first command must accept the key.
  boxArgs = ['--host', `${lab.sshd.user}@${lab.sshd.host}`, '-p', String(lab.sshd.port), '-i', lab.sshd.identityFile, '--known-hosts', join(lab.scratch, 'cli_known_hosts')];
  server = await launchReadyVllm(lab.box);
}, 240_000);

afterAll(async () => {
  await server?.stop().catch(() => {});
  await lab?.stop();
});

const bench = (args: string[]) => runCaptured((io) => runBench(args, io), env, lab.scratch);

describe('servelab bench', () => {
  it('refuses an unknown host key with its fingerprint, then accepts it with --accept-new', async () => {
    const refused = await bench(['datasets', ...boxArgs]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/host key of .* is not known \(ED25519 SHA256:[A-Za-z0-9+/]{43}\).*--accept-new/);
    const accepted = await bench(['datasets', ...boxArgs, '--accept-new']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toMatch(/Permanently added '\[127\.0\.0\.1\]:\d+'/);
    expect(accepted.stdout).toBe("No dataset in the box's cache.\n");
  });

  it('uploads ShareGPT into the cache and lists it with its SHA-256', async () => {
    const local = join(lab.scratch, 'sg.json');
    const made = spawnSync(process.execPath, [join(repoRoot, 'resources/simbox/bin/simbox'), 'make-sharegpt', local, '--count', '200'], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const sha = spawnSync('sha256sum', [local], { encoding: 'utf8' }).stdout.slice(0, 64);
    const fetched = await bench(['fetch-sharegpt', '--file', local, ...boxArgs, '--json']);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(JSON.parse(fetched.stdout)).toMatchObject({ file: 'ShareGPT_V3_unfiltered_cleaned_split.json', sha256: sha, source: 'upload' });
    const listed = await bench(['datasets', ...boxArgs]);
    expect(listed.stdout).toContain(`sha256 ${sha}`);
  });

  it('runs a preset against the server, prints the result and keeps it in the library', async () => {
    const run = await bench(['run', '--server', server.serverId, '--workload', 'sharegpt-c4', '--num-prompts', '12', ...boxArgs]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('servelab: 12/12 requests');
    expect(run.stdout).toMatch(/^ShareGPT, 12 prompts, concurrency 4 · vllm 0\.11\.0 · Qwen\/Qwen3-8B on .*\[simulated box\]$/m);
    expect(run.stdout).toMatch(/completed 12, failed 0, duration \d+\.\d\d s/);
    const library = JSON.parse(await readFile(join(lab.scratch, 'data', 'results', 'library.json'), 'utf8')) as { entries: unknown[] };
    const entry = ResultEntrySchema.parse(library.entries.at(-1));
    expect(entry.result.metrics).toMatchObject({ completed: 12, max_concurrency: 4 });
    expect(entry.result.provenance).toMatchObject({ engine: 'vllm', simulated: true, gpu: { model: 'NVIDIA H100 80GB HBM3', count: 1 } });
  }, 120_000);

  it('records a failed run and exits 1 with the client error', async () => {
    const workload = join(lab.scratch, 'custom.json');
    await import('node:fs/promises').then((fs) => fs.writeFile(workload, JSON.stringify({ id: 'missing', dataset: { kind: 'custom', path: '/no/such/file.jsonl' }, numPrompts: 3 })));
    const run = await bench(['run', '--server', server.serverId, '--workload', workload, ...boxArgs, '--json']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/The dataset file \/no\/such\/file\.jsonl does not exist on the box/);
  });

  it('explains its usage', async () => {
    const noServer = await bench(['run', '--workload', 'sharegpt-c4', ...boxArgs]);
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toMatch(/run needs --server/);
    const badPreset = await bench(['run', '--server', 'x', '--workload', 'nope', ...boxArgs]);
    expect(badPreset.code).toBe(2);
    expect(badPreset.stderr).toMatch(/"nope" is not a preset \(sharegpt-c1, .*\) nor a \.json file/);
    const presets = await bench(['presets']);
    expect(presets.stdout).toMatch(/^random-32000-100\s+random 32000 in \/ 100 out, 100 prompts, unbounded concurrency$/m);
  });
});
