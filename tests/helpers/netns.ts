// A small lab of real OpenSSH hosts for jump-host tests: a jump host the test process reaches over a bridge,
// and two GPU hosts on a second bridge inside the jump host's network namespace, so they are reachable only
// through the jump host. Each host has its own sshd, host key and host name (UTS namespace).
//
//   root ns ── bridge slXXXXf (10.231.F.1) ── veth ── jump ns eth0 (10.231.F.2)
//                                                    jump ns bridge brb (10.231.B.1) ── veth ── gpu1 ns (10.231.B.11)
//                                                                                    └─ veth ── gpu2 ns (10.231.B.12)
//
// Without CAP_NET_ADMIN (or with SERVELAB_LAB_LOOPBACK=1) it falls back to three sshd on 127.0.0.1 ports and
// says so on stderr.
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomInt } from 'node:crypto';
import { startTestSshd, type TestSshd } from './sshd';

export interface SshLab {
  /** 'netns' as described above; 'loopback' when namespaces could not be created (nothing is isolated then). */
  mode: 'netns' | 'loopback';
  jump: TestSshd;
  gpu1: TestSshd;
  gpu2: TestSshd;
  /** A client key every host of the lab accepts for its test user. */
  clientKey: string;
  /** netns mode: takes the test process's link to the jump host down or up, as a network drop would. */
  setJumpLink(up: boolean): void;
  stop(): Promise<void>;
}

function ip(args: string[]): void {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')} failed (${result.status}): ${result.stderr.trim()}`);
}

/** A /24 pair under 10.231.0.0/16 that no route uses yet, so parallel labs do not collide. */
function freeSubnets(): { front: number; back: number } {
  const routes = spawnSync('ip', ['-4', 'route', 'show'], { encoding: 'utf8' }).stdout ?? '';
  for (let tries = 0; tries < 50; tries++) {
    const n = randomInt(0, 127);
    const front = 2 * n;
    const back = front + 1;
    if (!routes.includes(`10.231.${front}.`) && !routes.includes(`10.231.${back}.`)) return { front, back };
  }
  throw new Error('no free 10.231.x.0/24 subnet for the SSH lab');
}

export async function startSshLab(opts: { nvidiaSmi?: boolean } = {}): Promise<SshLab> {
  const keyDir = await mkdtemp(join(tmpdir(), 'servelab-lab-'));
  const clientKey = join(keyDir, 'id_lab');
  const keygen = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'servelab-lab', '-f', clientKey], { encoding: 'utf8' });
  if (keygen.status !== 0) throw new Error(`ssh-keygen failed: ${keygen.stderr}`);
  const authorizedKeys = [(await readFile(`${clientKey}.pub`, 'utf8')).trim()];
  const nvidiaSmi = opts.nvidiaSmi ?? false;

  const id = randomBytes(2).toString('hex');
  const ns = { jump: `sl${id}j`, gpu1: `sl${id}g1`, gpu2: `sl${id}g2` };
  const bridge = `sl${id}f`;
  const jumpVeth = `sl${id}jh`;
  const created: { namespaces: string[]; bridge: boolean } = { namespaces: [], bridge: false };

  const removeNetwork = () => {
    for (const name of created.namespaces.splice(0)) spawnSync('ip', ['netns', 'del', name]);
    if (created.bridge) spawnSync('ip', ['link', 'del', bridge]);
    created.bridge = false;
  };
  // A crashed run must not leave namespaces or links behind (the sshd helper cleans its own part).
  process.once('exit', removeNetwork);

  let subnets: { front: number; back: number } | undefined;
  try {
    // Lets the fallback be exercised on a machine that has namespaces.
    if (process.env.SERVELAB_LAB_LOOPBACK === '1') throw new Error('SERVELAB_LAB_LOOPBACK=1 asks for the loopback lab');
    subnets = freeSubnets();
    ip(['netns', 'add', ns.jump]);
    created.namespaces.push(ns.jump);
  } catch (error) {
    process.removeListener('exit', removeNetwork);
    removeNetwork();
    process.stderr.write(
      `\n[ssh lab] FALLBACK: cannot create network namespaces (${(error as Error).message.split('\n')[0]}).\n` +
        '[ssh lab] Using three sshd on 127.0.0.1 ports instead: the GPU hosts are NOT isolated behind the jump host,\n' +
        '[ssh lab] and host names are not separate.\n\n',
    );
    return startLoopbackLab(keyDir, clientKey, authorizedKeys, nvidiaSmi);
  }

  const sshds: TestSshd[] = [];
  try {
    const front = `10.231.${subnets.front}`;
    const back = `10.231.${subnets.back}`;
    for (const name of [ns.gpu1, ns.gpu2]) {
      ip(['netns', 'add', name]);
      created.namespaces.push(name);
    }
    ip(['link', 'add', bridge, 'type', 'bridge']);
    created.bridge = true;
    // No IPv6 link-local addresses on the test process's side: each one appears a second or so after its link comes
    // up (duplicate address detection), and a browser under test sees that address change as the network changing,
    // aborting whatever it is fetching (net::ERR_NETWORK_CHANGED).
    ip(['link', 'set', bridge, 'addrgenmode', 'none']);
    ip(['addr', 'add', `${front}.1/24`, 'dev', bridge]);
    ip(['link', 'set', bridge, 'up']);
    ip(['link', 'add', jumpVeth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns.jump]);
    ip(['link', 'set', jumpVeth, 'addrgenmode', 'none']);
    ip(['link', 'set', jumpVeth, 'master', bridge, 'up']);
    ip(['-n', ns.jump, 'addr', 'add', `${front}.2/24`, 'dev', 'eth0']);
    ip(['-n', ns.jump, 'link', 'set', 'eth0', 'up']);
    ip(['-n', ns.jump, 'link', 'set', 'lo', 'up']);
    // The back bridge lives inside the jump host's namespace: nothing else can reach the GPU hosts.
    ip(['-n', ns.jump, 'link', 'add', 'brb', 'type', 'bridge']);
    ip(['-n', ns.jump, 'addr', 'add', `${back}.1/24`, 'dev', 'brb']);
    ip(['-n', ns.jump, 'link', 'set', 'brb', 'up']);
    for (const [index, name] of [ns.gpu1, ns.gpu2].entries()) {
      const port = `g${index + 1}`;
      ip(['-n', ns.jump, 'link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', name]);
      ip(['-n', ns.jump, 'link', 'set', port, 'master', 'brb', 'up']);
      ip(['-n', name, 'addr', 'add', `${back}.1${index + 1}/24`, 'dev', 'eth0']);
      ip(['-n', name, 'link', 'set', 'eth0', 'up']);
      ip(['-n', name, 'link', 'set', 'lo', 'up']);
    }

    const start = (netns: string, listenAddress: string, hostname: string) =>
      startTestSshd({ netns, listenAddress, port: 22, hostname, authorizedKeys, nvidiaSmi }).then((sshd) => {
        sshds.push(sshd);
        return sshd;
      });
    const [jump, gpu1, gpu2] = await Promise.all([start(ns.jump, `${front}.2`, 'jump'), start(ns.gpu1, `${back}.11`, 'gpu1'), start(ns.gpu2, `${back}.12`, 'gpu2')]);

    let stopped = false;
    return {
      mode: 'netns',
      jump,
      gpu1,
      gpu2,
      clientKey,
      setJumpLink(up) {
        ip(['link', 'set', jumpVeth, up ? 'up' : 'down']);
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          await Promise.all(sshds.map((sshd) => sshd.stop()));
        } finally {
          removeNetwork();
          process.removeListener('exit', removeNetwork);
          await rm(keyDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await Promise.all(sshds.map((sshd) => sshd.stop().catch(() => {})));
    removeNetwork();
    process.removeListener('exit', removeNetwork);
    await rm(keyDir, { recursive: true, force: true });
    throw error;
  }
}

async function startLoopbackLab(keyDir: string, clientKey: string, authorizedKeys: string[], nvidiaSmi: boolean): Promise<SshLab> {
  const sshds: TestSshd[] = [];
  try {
    for (let i = 0; i < 3; i++) sshds.push(await startTestSshd({ authorizedKeys, nvidiaSmi }));
  } catch (error) {
    await Promise.all(sshds.map((sshd) => sshd.stop().catch(() => {})));
    await rm(keyDir, { recursive: true, force: true });
    throw error;
  }
  const [jump, gpu1, gpu2] = sshds as [TestSshd, TestSshd, TestSshd];
  let stopped = false;
  return {
    mode: 'loopback',
    jump,
    gpu1,
    gpu2,
    clientKey,
    setJumpLink() {
      throw new Error('setJumpLink needs network namespaces');
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await Promise.all(sshds.map((sshd) => sshd.stop()));
      } finally {
        await rm(keyDir, { recursive: true, force: true });
      }
    },
  };
}
