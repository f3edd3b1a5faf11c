import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalBoxTransport } from '../box/local-box-transport';
import { agentScript, cancelRequestScript, isRequestId, parseReady, parseRelayEnd, readyScript, relayScript, RELAY_BUDGET_BYTES, stopAgentScript } from './agent-script';
import { SlurmJobBox } from './job-box';

const awkwardDir = "~/.servelab/slurm/it's $(here) `x`";

describe('agent and relay scripts', () => {
  it('are valid sh, with the mailbox path quoted', () => {
    const scripts = [
      agentScript({ dir: awkwardDir, idleSeconds: 60 }),
      relayScript({ dir: awkwardDir, id: 'abcdef0123456789', token: 'SLabc', timeoutSeconds: 5, login: true }),
      relayScript({ dir: awkwardDir, id: 'abcdef0123456789', token: 'SLabc', timeoutSeconds: 5, login: false, resume: { out: 10, err: 0 } }),
      cancelRequestScript(awkwardDir, 'abcdef0123456789'),
      stopAgentScript(awkwardDir),
      readyScript(awkwardDir),
    ];
    for (const script of scripts) {
      const check = spawnSync('sh', ['-n'], { input: script, encoding: 'utf8' });
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
      expect(script).toContain(`"$HOME"/'.servelab/slurm/it'\\''s $(here) \`x\`'`);
    }
  });

  it('refuse ids and tokens that would reach the shell unchecked', () => {
    expect(isRequestId('abcdef0123456789')).toBe(true);
    expect(isRequestId('../x')).toBe(false);
    expect(() => relayScript({ dir: '~/m', id: 'a b', token: 'SL1', timeoutSeconds: 1, login: true })).toThrow('not a request id');
    expect(() => relayScript({ dir: '~/m', id: 'abcdef0123456789', token: "x'", timeoutSeconds: 1, login: true })).toThrow('token');
    expect(() => cancelRequestScript('~/m', '$(x)')).toThrow('not a request id');
    expect(() => agentScript({ dir: '~/m', idleSeconds: 0 })).toThrow('idleSeconds');
  });

  it('parse the ready file and the relay end', () => {
    expect(parseReady('node=gpu1\ngpus=0,1\npid=42\n')).toEqual({ node: 'gpu1', gpus: ['0', '1'], pid: 42, ended: null });
    expect(parseReady('node=gpu1\ngpus=\npid=42\nended=idle\n')).toEqual({ node: 'gpu1', gpus: [], pid: 42, ended: 'idle' });
    expect(parseReady('')).toBeNull();
    expect(parseRelayEnd('rc 3')).toEqual({ kind: 'rc', code: 3 });
    expect(parseRelayEnd('rc lost')).toEqual({ kind: 'rc', code: null });
    expect(parseRelayEnd('gone ended signal TERM')).toEqual({ kind: 'gone', why: 'ended signal TERM' });
    expect(parseRelayEnd('timeout')).toEqual({ kind: 'timeout' });
    expect(parseRelayEnd('more 16777216 12')).toEqual({ kind: 'more', out: 16777216, err: 12 });
    expect(parseRelayEnd('more x')).toBeNull();
    expect(parseRelayEnd('what')).toBeNull();
  });
});

// The mailbox protocol end to end without Slurm: the agent as a local process, this machine as the login node.
describe('the agent on this machine', () => {
  it('runs requests from its mailbox and ends on stop, killing what its requests left running', async () => {
    const home = await mkdtemp(join(tmpdir(), 'servelab-agent-'));
    const login = new LocalBoxTransport({ hostId: 'here', home, env: { SLURM_JOB_ID: '' } });
    const job = { jobId: '1', dir: '~/mailbox' };
    const agent = spawn('sh', ['-s'], { env: { ...login.env, SLURM_JOB_ID: `local${process.pid}` }, stdio: ['pipe', 'ignore', 'pipe'] });
    agent.stdin.end(agentScript({ dir: job.dir, idleSeconds: 60 }));
    const exited = new Promise<number | null>((resolve) => agent.once('exit', resolve));
    const box = SlurmJobBox.attach(login, job, 'here');
    try {
      for (let i = 0; i < 100 && spawnSync('test', ['-f', join(home, 'mailbox', 'ready')]).status !== 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(parseReady(await readFile(join(home, 'mailbox', 'ready'), 'utf8'))).toMatchObject({ node: expect.any(String), pid: agent.pid });
      expect((await stat(join(home, 'mailbox'))).mode & 0o777).toBe(0o700);
      const result = await box.run('cat; echo oops >&2; exit 7', { stdin: 'in\n', timeoutSeconds: 10 });
      expect(result).toEqual({ stdout: 'in\n', stderr: 'oops\n', code: 7 });
      // More than one relay passes on: the app follows on where the first one stopped, byte for byte.
      const size = RELAY_BUDGET_BYTES + 3 * 1024 * 1024 + 5;
      const big = await box.run(`head -c ${size} /dev/zero | tr '\\0' x; echo done >&2`, { timeoutSeconds: 60 });
      expect(big.stdout.length).toBe(size);
      expect(/^x*$/.test(big.stdout)).toBe(true);
      expect(big.stderr).toBe('done\n');
      // A running request's relay hands over after its turn; the next one resumes where it stopped.
      const relay = async (resume?: { out: number; err: number }) => {
        const token = `T${Date.now()}`;
        const ran = await login.run(relayScript({ dir: job.dir, id: 'turnturn01', token, timeoutSeconds: 30, login: false, turnSeconds: 1, ...(resume ? { resume } : {}) }), {
          ...(resume ? {} : { stdin: 'for i in 1 2 3 4; do echo $i; sleep 0.5; done\n' }),
          timeoutSeconds: 30,
        });
        const lines = ran.stdout.split('\n').filter((l) => l.startsWith(token));
        const out = lines.filter((l) => l.startsWith(`${token}O `)).map((l) => Buffer.from(l.slice(token.length + 2), 'base64').toString()).join('');
        return { out, end: parseRelayEnd(lines.find((l) => l.startsWith(`${token}. `))?.slice(token.length + 2) ?? '') };
      };
      const first = await relay();
      expect(first.end).toMatchObject({ kind: 'more', err: 0 });
      let rest = '';
      for (let end = first.end; end?.kind === 'more'; ) {
        const next = await relay({ out: end.out, err: end.err });
        rest += next.out;
        end = next.end;
        if (end?.kind !== 'more') expect(end).toEqual({ kind: 'rc', code: 0 });
      }
      expect(first.out + rest).toBe('1\n2\n3\n4\n');
      const marker = `${process.pid}${Date.now()}`;
      expect((await box.run(`setsid sleep 3${marker} < /dev/null > /dev/null 2>&1 & echo ok`, { timeoutSeconds: 10 })).stdout).toBe('ok\n');
      const sleeping = () => spawnSync('pgrep', ['-f', `sleep 3${marker}`]).status === 0;
      expect(sleeping()).toBe(true);
      // Past its time limit a request is killed on the node, its whole process group.
      await expect(box.run(`sleep 4${marker} & sleep 5${marker}`, { timeoutSeconds: 1 })).rejects.toMatchObject({ code: 'TIMEOUT' });
      expect(spawnSync('pgrep', ['-f', `sleep [45]${marker}`]).status).toBe(1);
      // Remote jobs through the mailbox.
      const handle = await box.jobs().start({ command: ['sh', '-c', 'echo hello from a job; exit 4'] });
      let log = '';
      expect(await handle.stream((text) => (log += text))).toBe(4);
      expect(log).toBe('hello from a job\n');
      await login.run(stopAgentScript(job.dir), { timeoutSeconds: 10 });
      expect(await exited).toBe(0);
      expect(await readFile(join(home, 'mailbox', 'ended'), 'utf8')).toBe('stop\n');
      expect(sleeping()).toBe(false);
    } finally {
      agent.kill('SIGKILL');
      box.release();
      login.release();
      await rm(home, { recursive: true, force: true });
    }
  });
});
