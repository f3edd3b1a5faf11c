import { ServelabError } from '../../shared/contract';
import { dockerImage, engineOfImage, getAdapter, type EngineId } from '../../shared/engines';
import { shellCommand } from '../../shared/shell-quote';
import {
  boxFacts,
  inLoginEnv,
  runChecked,
  streamInstallJob,
  type EngineBox,
  type InstallOptions,
  type InstallResult,
  type InstallStart,
  type InstalledEnv,
  type StreamedInstall,
} from './engine-box';
import { DockerPullProgressParser } from './docker-pull-progress';

/** A pulled engine image as `InstalledEnv` reports it: `dir` is the image reference, the tool is docker. */
function imageEntry(engine: EngineId, version: string, image: string, createdAt: string): InstalledEnv {
  return { engine, version, dir: image, installedAt: createdAt, verifiedVersion: version, tool: 'docker', mode: 'docker' };
}

export async function requireDocker(box: EngineBox, what: string): Promise<void> {
  if (!(await boxFacts(box)).hasDocker) {
    throw new ServelabError(
      'NOT_SUPPORTED',
      `The box has no working docker (\`docker version\` does not reach a docker daemon), so it cannot ${what}. Install docker with the NVIDIA container toolkit, or use the default environment mode.`,
    );
  }
}

/** The engine's official image when it is on the box (`docker image inspect` finds it), else null. */
export async function pulledImage(box: EngineBox, engine: EngineId, version: string): Promise<InstalledEnv | null> {
  const image = dockerImage(engine, version);
  const result = await box.run(`${shellCommand(['docker', 'image', 'inspect', '--format', '{{.Id}} {{.Created}}', image])} 2>/dev/null\n`, { timeoutSeconds: 60 });
  const line = result.stdout.split('\n').find((l) => l.startsWith('sha256:'));
  if (result.code !== 0 || !line) return null;
  return imageEntry(engine, version, image, line.split(' ')[1] ?? '');
}

/** Engine images on the box that Servelab knows how to run (official repositories, version tags). */
export async function listEngineImages(box: EngineBox): Promise<InstalledEnv[]> {
  if (!(await boxFacts(box)).hasDocker) return [];
  const result = await runChecked(box, 'list the docker images', `${shellCommand(['docker', 'images', '--format', '{{.Repository}}:{{.Tag}}\t{{.CreatedAt}}'])}\n`);
  const out: InstalledEnv[] = [];
  for (const line of result.stdout.split('\n')) {
    const [reference = '', createdAt = ''] = line.trim().split('\t');
    const known = engineOfImage(reference);
    if (known) out.push(imageEntry(known.engine, known.version, reference, createdAt));
  }
  return out;
}

/** `docker pull` of the engine's image as a detached job with its log streamed; verified with `docker image inspect`. */
export async function startImagePull(box: EngineBox, engine: EngineId, version: string, opts: InstallOptions): Promise<InstallStart> {
  await requireDocker(box, `pull ${dockerImage(engine, version)}`);
  const image = dockerImage(engine, version);
  const name = getAdapter(engine).displayName;
  if (!opts.force) {
    const existing = await pulledImage(box, engine, version);
    if (existing) {
      const message = `${name} ${version} is already on the box as the image ${image}; nothing to do (use --force to pull it again).`;
      opts.onProgress?.({ phase: 'done', percent: 100, line: message });
      return { jobId: null, done: Promise.resolve({ ok: true, skipped: true, message, env: existing }) };
    }
  }
  const facts = await boxFacts(box);
  const handle = await box.jobs().start({ command: inLoginEnv(facts, ['docker', 'pull', image]), label: `docker pull ${image}` });
  const done = (async (): Promise<InstallResult> => {
    let streamed: StreamedInstall;
    try {
      streamed = await streamInstallJob(handle, new DockerPullProgressParser(), opts);
    } catch (error) {
      return { ok: false, skipped: false, jobId: handle.id, message: `The pull of ${image} was interrupted: ${(error as Error).message}` };
    }
    if (streamed.code !== 0) {
      return { ok: false, skipped: false, jobId: handle.id, message: `docker pull ${image} failed (exit status ${streamed.code}): ${streamed.lastLines}` };
    }
    if (streamed.lastPhase !== 'verifying') opts.onProgress?.({ phase: 'verifying', percent: 95 });
    const pulled = await pulledImage(box, engine, version);
    if (!pulled) return { ok: false, skipped: false, jobId: handle.id, message: `docker pull ${image} ended, but docker image inspect does not find the image.` };
    const message = `${name} ${version} pulled as the image ${image}.`;
    opts.onProgress?.({ phase: 'done', percent: 100, line: message });
    return { ok: true, skipped: false, jobId: handle.id, message, env: pulled };
  })();
  return { jobId: handle.id, done };
}
