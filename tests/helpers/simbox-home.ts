// Puts the simulated GPU box on a test sshd user's PATH: the part of the set-up that needs no test runner, so that
// vitest suites (through simbox-ssh.ts) and Playwright specs share it.
import { spawnSync } from 'node:child_process';
import { appendFile, cp } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestSshd } from './sshd';
import { repoRoot } from './repo';

export interface SimboxHomeOptions {
  /** SERVELAB_SIMBOX_TIME_SCALE of the box's sessions. */
  timeScale?: number;
  /** When given, the box is configured with this simulated GPU (h100, h200, a100) before the first login. */
  gpu?: string;
  /** GPU count with `gpu` (default 1). */
  count?: number;
  /** More lines for the test user's ~/.profile. */
  extraProfile?: string;
}

/**
 * Copies resources/simbox into the test user's home and puts its bin/ first on the login PATH, with the box's state
 * in `~/.servelab-simbox` unless the session already names one (a Slurm job's node box, exported by the TaskProlog,
 * stays when its script runs `sh -l`). The copy lives in the home so the test user can read it whoever owns the repository.
 * The engine flag tables go next to it, where the simulated engines read them (resources/engine-flags beside
 * resources/simbox, as in the packaged app).
 */
export async function installSimboxHome(sshd: TestSshd, opts: SimboxHomeOptions = {}): Promise<void> {
  await cp(join(repoRoot, 'resources', 'simbox'), join(sshd.homeDir, 'simbox'), { recursive: true });
  await cp(join(repoRoot, 'resources', 'engine-flags'), join(sshd.homeDir, 'engine-flags'), { recursive: true });
  await appendFile(
    join(sshd.homeDir, '.profile'),
    `PATH="$HOME/simbox/bin:$PATH"\nexport SERVELAB_SIMBOX_HOME="\${SERVELAB_SIMBOX_HOME:-$HOME/.servelab-simbox}"\nexport SERVELAB_SIMBOX_TIME_SCALE=${opts.timeScale ?? 0.0005}\n${opts.extraProfile ?? ''}`,
  );
  if (opts.gpu) {
    // The box's own `simbox config`, run here on the state folder the sessions will use.
    const configured = spawnSync(process.execPath, [join(sshd.homeDir, 'simbox', 'bin', 'simbox'), 'config', '--gpu', opts.gpu, '--count', String(opts.count ?? 1)], {
      encoding: 'utf8',
      env: { ...process.env, SERVELAB_SIMBOX_HOME: join(sshd.homeDir, '.servelab-simbox') },
    });
    if (configured.status !== 0) throw new Error(`simbox config failed (${configured.status ?? configured.signal}): ${configured.stderr}`);
  }
  if (sshd.dedicatedUser) spawnSync('chown', ['-R', `${sshd.user}:`, sshd.homeDir]);
}
