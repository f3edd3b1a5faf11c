// The two example studies end to end over a real sshd with the simulated box on the test user's PATH: the same
// recommendations as on the demo lab, with the report, the CSV and one launch per server config per pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../../src/core/create-core';
import type { EventMessage } from '../../src/shared/contract';
import { ProjectFileSchema } from '../../src/shared/study/study';
import { DatasetStore, SHAREGPT_FILE } from '../../src/core/bench/dataset-store';
import { repoRoot } from '../helpers/repo';
import { startSimboxOverSsh, type SimboxOverSsh } from '../helpers/simbox-ssh';
import { checkOutcome, EXAMPLES, runThroughCore } from '../helpers/study-runs';

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'servelab-study-ssh-'));
});

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the example studies over SSH with the simulated box', () => {
  let lab: SimboxOverSsh;
  let core: Core;
  let hostId: string;
  const events: EventMessage[] = [];
  beforeAll(async () => {
    lab = await startSimboxOverSsh({ hostId: 'study-ssh', timeScale: 0.01 });
    core = await createCore({ dataDir: join(scratch, 'ssh-data'), userKnownHostsFiles: [], simboxBinDir: null });
    core.events.subscribe((e) => events.push(e));
    ({ id: hostId } = (await core.call('hosts:add', { address: '127.0.0.1', port: lab.sshd.port, user: lab.sshd.user, identityFile: lab.sshd.identityFile })) as { id: string });
    await core.call('hosts:acceptHostKey', { hostId, fingerprint: lab.sshd.hostKeyFingerprint }).catch(async () => {
      await core.call('hosts:connect', { hostId }).catch(() => {});
      await core.call('hosts:acceptHostKey', { hostId, fingerprint: lab.sshd.hostKeyFingerprint });
    });
    // The box has no internet: ShareGPT is uploaded into its cache, as a user would with `bench fetch-sharegpt --file`.
    const local = join(scratch, 'sharegpt.json');
    const made = spawnSync(process.execPath, [join(repoRoot, 'resources/simbox/bin/simbox'), 'make-sharegpt', local, '--count', '1000'], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    await new DatasetStore(lab.box).upload(local, SHAREGPT_FILE);
  }, 60_000);
  afterAll(async () => {
    await core?.close();
    await lab?.stop();
  });

  // Over SSH the latency example stands for both: what SSH adds (hosts, uploads, remote jobs) is the same for any
  // study, and the throughput example's decisions are checked on the demo lab and, over 20 seeds, in virtual time.
  for (const [name, example] of Object.entries({ latency: EXAMPLES.latency })) {
    it(`${name}: the same recommendation over SSH`, async () => {
      await lab.simbox(`config --gpu ${example.gpu} --count 1`);
      const source = ProjectFileSchema.parse(JSON.parse(await readFile(join(repoRoot, 'examples', example.file), 'utf8')));
      const { demoLab: _demo, ...study } = source.study;
      const path = join(scratch, `${name}-ssh.servelab`);
      await writeFile(path, JSON.stringify({ ...source, study: { ...study, hosts: [{ hostId }] } }));
      const state = await runThroughCore(core, events, path);
      await checkOutcome(core, path, state, example, scratch);
      expect(state.trials.find((t) => t.status === 'done')?.result?.result.provenance).toMatchObject({ simulated: true, gpu: { count: 1 } });
    }, 600_000);
  }
});

