import { ServelabError } from '../../shared/contract';
import { getAdapter, type EngineId, type InstallSpec } from '../../shared/engines';
import { shellCommand, shellQuote } from '../../shared/shell-quote';
import {
  boxFacts,
  checkEngineVersion,
  ENGINES_ROOT,
  envName,
  inLoginEnv,
  MARKER_FILE,
  runChecked,
  streamInstallJob,
  type BoxFacts,
  type EngineBox,
  type EnvMarker,
  type EngineMode,
  type InstalledEnv,
  type InstallOptions,
  type InstallResult,
  type InstallStart,
  type StreamedInstall,
} from './engine-box';
import { InstallProgressParser, phasePercent } from './install-progress';
import type { RemoteJobHandle } from '../jobs/remote-job-runner';
import { isJobId, REMOTE_JOBS_ROOT } from '../jobs/job-scripts';
import { listEngineImages, pulledImage, startImagePull } from './docker-images';

const VERIFY_TIMEOUT_SECONDS = 120;

/**
 * Installs engine@version into its own environment, `~/.servelab/engines/<engine>-<version>/`, so versions live side by
 * side: uv when the box has it (it picks the torch build for the driver), else `python3 -m venv` + pip.
 */
export class EngineInstaller {
  constructor(private readonly box: EngineBox) {}

  async envDir(engine: EngineId, version: string): Promise<string> {
    return envDirOf(await boxFacts(this.box), engine, version);
  }

  /** Every environment with a marker, as the markers say, then the engine images docker has (when the box has docker). */
  async list(): Promise<InstalledEnv[]> {
    const envs = await this.listEnvs();
    const images = await listEngineImages(this.box);
    return [...envs, ...images.sort((a, b) => a.engine.localeCompare(b.engine) || a.version.localeCompare(b.version))];
  }

  private async listEnvs(): Promise<InstalledEnv[]> {
    const script = `for f in "$HOME"/${shellQuote(ENGINES_ROOT)}/*/${MARKER_FILE}; do
  [ -f "$f" ] || continue
  printf 'SERVELAB_ENV %s\\n' "$(dirname "$f")"
  tr -d '\\n' < "$f"; echo
done
`;
    const result = await runChecked(this.box, 'list the installed engines', script);
    const envs: InstalledEnv[] = [];
    const lines = result.stdout.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const head = /^SERVELAB_ENV (.+)$/.exec(lines[i] ?? '');
      if (!head) continue;
      const marker = parseMarker(lines[i + 1] ?? '');
      if (marker) envs.push({ ...marker, dir: head[1] as string, mode: 'env' });
    }
    return envs.sort((a, b) => a.engine.localeCompare(b.engine) || a.version.localeCompare(b.version));
  }

  /** The environment when its marker is there and the engine still imports at that version (docker: the image is there); else null. */
  async verified(engine: EngineId, version: string, mode: EngineMode = 'env'): Promise<InstalledEnv | null> {
    if (mode === 'docker') return pulledImage(this.box, engine, version);
    const dir = await this.envDir(engine, version);
    const read = await this.box.run(`cat ${shellQuote(`${dir}/${MARKER_FILE}`)} 2>/dev/null || :\n`, { timeoutSeconds: 30 });
    const marker = parseMarker(read.stdout.split('\n').find((l) => l.startsWith('{')) ?? '');
    if (!marker || marker.engine !== engine || marker.version !== version) return null;
    const found = await this.verify(dir, getAdapter(engine).installSpec(version));
    return found === version ? { ...marker, dir, mode: 'env' } : null;
  }

  /** Starts the install (or reports it as already done); `done` settles when it has finished and been verified. */
  async start(engineName: string, version: string, opts: InstallOptions = {}): Promise<InstallStart> {
    const engine = checkEngineVersion(engineName, version);
    if (opts.mode === 'docker') return startImagePull(this.box, engine, version, opts);
    const spec = getAdapter(engine).installSpec(version);
    const facts = await boxFacts(this.box);
    const dir = envDirOf(facts, engine, version);
    if (!opts.force) {
      const existing = await this.verified(engine, version);
      if (existing) {
        const message = `${getAdapter(engine).displayName} ${version} is already installed and verified in ${dir}; nothing to do (use --force to reinstall).`;
        opts.onProgress?.({ phase: 'done', percent: 100, line: message });
        return { jobId: null, done: Promise.resolve({ ok: true, skipped: true, message, env: existing }) };
      }
    }
    if (!facts.hasUv && !facts.hasPython3) {
      throw new ServelabError('NOT_SUPPORTED', 'The box has neither uv nor python3: install one of them to create engine environments.');
    }
    const tool = facts.hasUv ? 'uv' : 'pip';
    const running = await this.runningInstall(dir);
    if (running) {
      const line = `${getAdapter(engine).displayName} ${version} is already being installed into ${dir} (job ${running.id}, left by an earlier run or started by another Servelab); following it.`;
      opts.onProgress?.({ phase: 'environment', percent: phasePercent('environment'), line });
      return { jobId: running.id, done: this.follow(running, engine, version, dir, spec, tool, opts) };
    }
    const handle = await this.box.jobs().start({
      command: inLoginEnv(facts, ['sh', '-c', installScript(dir, spec, tool, version)]),
      label: `install ${engine} ${version}`,
    });
    const done = this.follow(handle, engine, version, dir, spec, tool, opts);
    return { jobId: handle.id, done };
  }

  async install(engine: string, version: string, opts: InstallOptions = {}): Promise<InstallResult> {
    return (await this.start(engine, version, opts)).done;
  }

  /** Deletes the environment folder; refuses anything that does not resolve to a folder inside ~/.servelab/engines. */
  async remove(engineName: string, version: string): Promise<{ removed: boolean; dir: string }> {
    const engine = checkEngineVersion(engineName, version);
    const dir = await this.envDir(engine, version);
    const script = `root="$HOME"/${shellQuote(ENGINES_ROOT)}
dir=${shellQuote(dir)}
[ -e "$dir" ] || { echo absent; exit 0; }
real=$(cd "$dir" && pwd -P) || exit 3
rootreal=$(cd "$root" && pwd -P) || exit 3
case "$real" in
  "$rootreal"/?*) case "\${real#"$rootreal"/}" in */*) echo refused; exit 0 ;; esac ;;
  *) echo refused; exit 0 ;;
esac
rm -rf -- "$real" && echo removed
`;
    const result = await runChecked(this.box, `remove ${dir}`, script);
    if (/^refused$/m.test(result.stdout)) {
      throw new ServelabError('BAD_INPUT', `${dir} is not a folder directly inside ~/${ENGINES_ROOT}; nothing was removed.`);
    }
    return { removed: /^removed$/m.test(result.stdout), dir };
  }

  private async follow(
    handle: RemoteJobHandle,
    engine: EngineId,
    version: string,
    dir: string,
    spec: InstallSpec,
    tool: 'uv' | 'pip',
    opts: InstallOptions,
  ): Promise<InstallResult> {
    let streamed: StreamedInstall;
    try {
      streamed = await streamInstallJob(handle, new InstallProgressParser(), opts);
    } catch (error) {
      return { ok: false, skipped: false, jobId: handle.id, message: `The install of ${engine} ${version} was interrupted: ${(error as Error).message}` };
    }
    if (streamed.code !== 0) {
      return { ok: false, skipped: false, jobId: handle.id, message: `Installing ${engine} ${version} failed (exit status ${streamed.code}): ${streamed.lastLines}` };
    }
    opts.onProgress?.({ phase: 'verifying', percent: phasePercent('verifying') });
    const found = await this.verify(dir, spec);
    if (found !== version) {
      return {
        ok: false,
        skipped: false,
        jobId: handle.id,
        message: `${engine} installed, but importing it reports ${found === null ? 'nothing' : `version ${found}`} instead of ${version}.`,
      };
    }
    const marker: EnvMarker = { engine, version, installedAt: new Date().toISOString(), verifiedVersion: found, tool };
    await runChecked(this.box, `write ${MARKER_FILE}`, `umask 077\ncat > ${shellQuote(`${dir}/${MARKER_FILE}`)}\n`, { stdin: `${JSON.stringify(marker)}\n` });
    const message = `${getAdapter(engine).displayName} ${version} installed and verified in ${dir}.`;
    opts.onProgress?.({ phase: 'done', percent: 100, line: message });
    return { ok: true, skipped: false, jobId: handle.id, message, env: { ...marker, dir, mode: 'env' } };
  }

  /**
   * The install job still running into `dir`, if any: a process killed during an install leaves its job running on
   * the box, and a second install would delete the environment under it (the install script starts with rm -rf).
   */
  private async runningInstall(dir: string): Promise<RemoteJobHandle | null> {
    const script = `for d in "$HOME"/${shellQuote(REMOTE_JOBS_ROOT)}/*/; do
  d=\${d%/}
  [ -f "$d/command" ] && [ ! -f "$d/exit" ] || continue
  grep -qF -- ${shellQuote(creatingLine(dir))} "$d/command" && printf 'SERVELAB_INSTALL_JOB %s\\n' "$d"
done
:
`;
    const result = await this.box.run(script, { timeoutSeconds: 30 });
    for (const line of result.stdout.split('\n')) {
      const jobDir = /^SERVELAB_INSTALL_JOB (\/.+)$/.exec(line)?.[1];
      if (!jobDir) continue;
      const id = jobDir.slice(jobDir.lastIndexOf('/') + 1);
      if (!isJobId(id)) continue;
      const now = new Date().toISOString();
      const handle = this.box.jobs().reattach({ id, hostId: this.box.hostId, remoteDir: jobDir, command: '', offset: 0, state: 'running', createdAt: now, updatedAt: now });
      // The job's own status decides (it knows about reboots and reused pids).
      const status = await handle.status().catch(() => null);
      if (status?.state === 'running') return handle;
    }
    return null;
  }

  /** The version the environment's Python imports, or null when the import fails. */
  private async verify(dir: string, spec: InstallSpec): Promise<string | null> {
    const result = await this.box.run(`${shellCommand([`${dir}/bin/python`, '-c', spec.verifyImport])} 2>&1\n`, { timeoutSeconds: VERIFY_TIMEOUT_SECONDS });
    if (result.code !== 0) return null;
    const lines = result.stdout.trim().split('\n');
    return lines[lines.length - 1]?.trim() || null;
  }
}

function envDirOf(facts: BoxFacts, engine: EngineId, version: string): string {
  return `${facts.home.replace(/\/+$/, '')}/${ENGINES_ROOT}/${envName(engine, version)}`;
}

/** The install job's first line, which also finds a running install of that environment by its `command` file. */
function creatingLine(dir: string): string {
  return `servelab: creating the environment ${dir}`;
}

/**
 * The install job: a fresh environment, the exact pins of the adapter, then the import check. A vendor's packages come
 * from the vendor's index alone, in their own step (`--index-url … --no-deps`); everything else from the box's index.
 *
 * Two installs into one environment (two processes that each found none running) would delete it under each other:
 * the job holds an flock on `<dir>.lock` (released by the kernel however the job ends, a reboot included), and one
 * that had to wait for it ends at once when the other install left `version` importable.
 */
export function installScript(dir: string, spec: InstallSpec, tool: 'uv' | 'pip', version?: string): string {
  const vendor = spec.vendorIndex;
  const lines = [
    'set -e',
    // The environment is code the next launch runs: nobody else may write to it, whatever the login umask.
    'umask 077',
    `echo ${shellQuote(creatingLine(dir))}`,
    `mkdir -p -- ${shellQuote(dir.slice(0, dir.lastIndexOf('/')))}`,
    'if command -v flock >/dev/null 2>&1; then',
    `  exec 9> ${shellQuote(`${dir}.lock`)}`,
    '  if ! flock -n 9; then',
    `    echo ${shellQuote(`servelab: another install into ${dir} is running; waiting for it`)}`,
    '    flock 9',
    ...(version === undefined
      ? []
      : [
          `    if [ "$(${shellCommand([`${dir}/bin/python`, '-c', spec.verifyImport])} 2>/dev/null | tail -n 1)" = ${shellQuote(version)} ]; then`,
          `      echo ${shellQuote(`servelab: the other install left ${dir} ready`)}`,
          '      exit 0',
          '    fi',
        ]),
    '  fi',
    'fi',
    `rm -rf -- ${shellQuote(dir)}`,
  ];
  if (tool === 'uv') {
    // uv spells pip's --pre as --prerelease=allow.
    const uvExtra = [...(spec.uvArgs ?? []), ...(spec.pipArgs ?? []).map((a) => (a === '--pre' ? '--prerelease=allow' : a))];
    lines.push(shellCommand(['uv', 'venv', ...(spec.python ? ['--python', spec.python] : []), dir]));
    if (vendor) lines.push(shellCommand(['uv', 'pip', 'install', '--python', dir, '--index-url', vendor.url, '--no-deps', ...uvExtra, ...vendor.specs]));
    lines.push(shellCommand(['uv', 'pip', 'install', '--python', dir, ...uvExtra, ...spec.pipSpecs]));
  } else {
    lines.push(shellCommand(['python3', '-m', 'venv', dir]));
    if (vendor) lines.push(shellCommand([`${dir}/bin/pip`, 'install', '--index-url', vendor.url, '--no-deps', ...(spec.pipArgs ?? []), ...vendor.specs]));
    lines.push(shellCommand([`${dir}/bin/pip`, 'install', ...(spec.pipArgs ?? []), ...spec.pipSpecs]));
  }
  lines.push(`echo 'servelab: verifying the import'`, shellCommand([`${dir}/bin/python`, '-c', spec.verifyImport]));
  return `${lines.join('\n')}\n`;
}

function parseMarker(line: string): EnvMarker | null {
  try {
    const value = JSON.parse(line) as Partial<EnvMarker>;
    if (typeof value.engine !== 'string' || typeof value.version !== 'string' || typeof value.installedAt !== 'string') return null;
    checkEngineVersion(value.engine, value.version);
    return {
      engine: value.engine as EngineId,
      version: value.version,
      installedAt: value.installedAt,
      verifiedVersion: typeof value.verifiedVersion === 'string' ? value.verifiedVersion : '',
      tool: value.tool === 'pip' ? 'pip' : 'uv',
    };
  } catch {
    return null;
  }
}
