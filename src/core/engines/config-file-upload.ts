import { randomBytes } from 'node:crypto';
import { ServelabError } from '../../shared/contract';
import { BOX_FILES_ROOT, boxFilePath, ConfigFileSchema, fileRefsOf, type ConfigFile, type ConfigFileField } from '../../shared/engines/config-files';
import type { ServerConfig } from '../../shared/engines/server-config';
import { shellQuote } from '../../shared/shell-quote';
import { REMOTE_TREE_GUARD } from '../jobs/job-scripts';
import type { EngineBox } from './engine-box';

/**
 * The files a server config names, put on the box before the launch: each at `~/.servelab/files/<sha256>/<name>`,
 * written under a temporary name, checked with the box's own `sha256sum` and only then renamed into place, so a
 * path of that shape always holds exactly the text of its checksum. A file the box already has (same path, same
 * checksum) is not sent again; one there with other bytes (damaged) is replaced.
 */

/** A file as it is on the box for a launch. */
export interface PlacedConfigFile {
  field: ConfigFileField;
  name: string;
  sha256: string;
  size: number;
  /** The absolute path on the box (its HOME resolved), as the server's argv names it. */
  path: string;
  /** False when the box already had the file with that checksum. */
  uploaded: boolean;
}

/**
 * The study's files the config names, each checked: a reference to a file that is not given, or is pinned to another
 * checksum, is BAD_INPUT naming the config's field.
 */
export function filesForConfig(config: Pick<ServerConfig, ConfigFileField>, files: readonly ConfigFile[] | undefined): { field: ConfigFileField; file: ConfigFile }[] {
  return fileRefsOf(config).map(({ field, ref }) => {
    const file = files?.find((f) => f.name === ref.file);
    if (!file) {
      throw new ServelabError('BAD_INPUT', `The config's ${field} names the file ${ref.file}, which was not given with the launch; attach it to the study (or pass it with the launch).`, {
        issues: [{ path: `config.${field}.file`, message: 'names no file given with the launch' }],
      });
    }
    if (ref.sha256 !== undefined && ref.sha256 !== file.sha256) {
      throw new ServelabError('BAD_INPUT', `The config's ${field} is pinned to ${ref.file} with SHA-256 ${ref.sha256}, but the file given has ${file.sha256}; plan the study again so it launches the file it has.`, {
        issues: [{ path: `config.${field}.sha256`, message: 'is not the checksum of the file given' }],
      });
    }
    // The project checked it on load; a file from another caller is checked here, before it reaches the box.
    const valid = ConfigFileSchema.safeParse(file);
    if (!valid.success) {
      const issue = valid.error.issues[0];
      throw new ServelabError('BAD_INPUT', `The file ${file.name}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is not valid'}`, {
        issues: [{ path: `files.${file.name}.${issue?.path.join('.') ?? ''}`, message: issue?.message ?? 'is not valid' }],
      });
    }
    return { field, file };
  });
}

/** Puts each file on the box unless it is there with its checksum; `home` is the box's HOME as the launch resolved it. */
export async function placeConfigFiles(box: EngineBox, home: string, files: readonly { field: ConfigFileField; file: ConfigFile }[]): Promise<PlacedConfigFile[]> {
  const placed: PlacedConfigFile[] = [];
  for (const { field, file } of files) {
    const uploaded = (await isOnBox(box, file)) ? false : (await upload(box, file), true);
    placed.push({ field, name: file.name, sha256: file.sha256, size: file.size, path: boxFilePath(file, home), uploaded });
  }
  return placed;
}

/** `"$HOME"/.servelab/files/<sha256>/<name>` for a script (the name is checked by the schema, quoted all the same). */
function remotePath(file: ConfigFile): string {
  return `"$HOME"/${shellQuote(`${BOX_FILES_ROOT}/${file.sha256}/${file.name}`)}`;
}

async function isOnBox(box: EngineBox, file: ConfigFile): Promise<boolean> {
  // sha256sum reads stdin so that no file name can change the shape of its output.
  const script = `f=${remotePath(file)}
if [ -f "$f" ] && [ "$(sha256sum < "$f" | cut -c1-64)" = ${shellQuote(file.sha256)} ]; then echo SERVELAB_FILE_PRESENT; fi
`;
  const result = await box.run(script, { timeoutSeconds: 60 });
  return /^SERVELAB_FILE_PRESENT$/m.test(result.stdout);
}

async function upload(box: EngineBox, file: ConfigFile): Promise<void> {
  const temp = `.${file.name}.servelab-${randomBytes(4).toString('hex')}.part`;
  const script = `${REMOTE_TREE_GUARD}dir="$HOME"/${shellQuote(`${BOX_FILES_ROOT}/${file.sha256}`)}
mkdir -p -m 700 "$HOME"/${shellQuote(BOX_FILES_ROOT)} "$dir" || { echo "servelab: cannot create $dir (is the disk full?)" >&2; exit 3; }
tmp="$dir"/${shellQuote(temp)}
cat > "$tmp" || { rm -f "$tmp"; echo "servelab: cannot write $tmp (is the disk full?)" >&2; exit 3; }
got=$(sha256sum < "$tmp" | cut -c1-64)
if [ "$got" != ${shellQuote(file.sha256)} ]; then rm -f "$tmp"; printf 'SERVELAB_FILE_MISMATCH %s\\n' "$got"; exit 4; fi
mv -f "$tmp" "$dir"/${shellQuote(file.name)} || { rm -f "$tmp"; exit 3; }
echo SERVELAB_FILE_STORED
`;
  const result = await box.run(script, { stdin: file.content, timeoutSeconds: 300 });
  const mismatch = /^SERVELAB_FILE_MISMATCH ([0-9a-f]*)$/m.exec(result.stdout);
  if (mismatch) {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `The copy of ${file.name} on the box is corrupt: its SHA-256 is ${mismatch[1] || 'unreadable'}, not ${file.sha256}. The partial copy was removed.`, {
      details: { file: file.name, expectedSha256: file.sha256, actualSha256: mismatch[1] ?? '', reason: 'checksum-mismatch' },
    });
  }
  if (result.code !== 0 || !/^SERVELAB_FILE_STORED$/m.test(result.stdout)) {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `Could not copy ${file.name} to ~/${BOX_FILES_ROOT}/${file.sha256}/ on the box: ${result.stderr.trim() || result.stdout.trim() || `exit status ${result.code ?? 'signal'}`}`);
  }
}
