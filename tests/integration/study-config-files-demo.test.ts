// A study whose vLLM engine reads a chat template kept in the project, run on the demo lab through the core's calls:
// the template reaches the simulated box at ~/.servelab/files/<sha256>/<name> with the project's checksum, the running
// server's record on the box names that path in its argv (the simulated vLLM refuses a path that does not exist, as
// vLLM's validate_chat_template does), a second study with the same file does not upload it again, and a changed file
// is uploaded under its new checksum. Kept short: the engine stage only (and its generalisation relaunch), one small
// workload.
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { configFileOf, type ConfigFile } from '../../src/shared/engines/config-files';
import { parseServerRecord } from '../../src/core/engines/server-records';
import type { StudyDefinitionInput, StudyState } from '../../src/shared/study/study';
import { runThroughCore, useDemoLabCore, useStudyScratch } from '../helpers/study-runs';

const scratch = useStudyScratch('servelab-files-demo-', '0.005');
const lab = useDemoLabCore(scratch, 'demo-data');

// A tool-calling template in the shape of vLLM's examples/tool_chat_template_*.jinja (hand-written, shortened).
const TEMPLATE = "{%- for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{%- endfor %}\n";
const CHANGED = `${TEMPLATE}{%- if add_generation_prompt %}<|im_start|>assistant\n{%- endif %}\n`;

function study(template: ConfigFile): StudyDefinitionInput {
  return {
    name: 'Chat template on the demo lab',
    model: { id: 'Qwen/Qwen3-8B' },
    hosts: [{ hostId: 'demo-lab' }],
    demoLab: { gpu: 'h100', count: 1 },
    goal: { kind: 'latency' },
    engines: [{ engine: 'vllm', version: '0.11.0', config: { chatTemplate: { file: template.name } } }],
    workloads: { primary: { id: 'sharegpt-c2', dataset: { kind: 'sharegpt' }, numPrompts: 10, maxConcurrency: 2 } },
    files: [template],
  };
}

interface Placed {
  name: string;
  sha256: string;
  path: string;
  uploaded: boolean;
}

async function run(name: string, template: ConfigFile): Promise<{ state: StudyState; placed: Placed[]; log: string }> {
  const path = join(scratch.dir, `${name}.servelab`);
  await lab.core.call('studies:create', { path, study: study(template) });
  const state = await runThroughCore(lab.core, lab.events, path);
  const journal = (await readFile(join(scratch.dir, `${name}.servelab-data`, 'journal.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { event: string; files?: Placed[] });
  const placed = journal.filter((e) => e.event === 'files-placed').flatMap((e) => e.files ?? []);
  const log = lab.events
    .filter((e) => e.name === 'studies:log' && (e.payload as { path: string }).path === path)
    .map((e) => (e.payload as { text: string }).text)
    .join('');
  return { state, placed, log };
}

const boxHome = () => join(scratch.dir, 'demo-data', 'demo-lab', 'home');
const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

async function recordOf(state: StudyState) {
  const serverId = state.trials.find((t) => t.serverId !== undefined)?.serverId as string;
  const where = join(boxHome(), '.servelab', 'servers', serverId, 'server.json');
  return parseServerRecord(await readFile(where, 'utf8'), where);
}

describe('a chat template kept in the project, on the demo lab', () => {
  const first = configFileOf('tool-chat.jinja', TEMPLATE) as ConfigFile;
  const changed = configFileOf('tool-chat.jinja', CHANGED) as ConfigFile;
  const onBox = (file: ConfigFile) => join(boxHome(), '.servelab', 'files', file.sha256, file.name);
  let firstRun: Awaited<ReturnType<typeof run>>;
  let uploadedAt: number;

  it('reaches the box with its checksum, and the server runs with --chat-template naming that path', async () => {
    firstRun = await run('first', first);
    expect(firstRun.state.status, firstRun.state.message).toBe('done');
    expect(firstRun.state.trials.every((t) => t.status === 'done')).toBe(true);
    // The bytes on the box are the project's, under the checksum they have.
    const bytes = await readFile(onBox(first));
    expect(sha256(bytes)).toBe(first.sha256);
    expect(bytes.toString('utf8')).toBe(TEMPLATE);
    uploadedAt = (await stat(onBox(first))).mtimeMs;
    // Two launches (the engine stage, then the generalisation pass): the first uploads, the second finds it there.
    const entry = { field: 'chatTemplate', name: 'tool-chat.jinja', sha256: first.sha256, size: first.size, path: onBox(first) };
    expect(firstRun.placed).toEqual([
      { ...entry, uploaded: true },
      { ...entry, uploaded: false },
    ]);
    expect(firstRun.log).toContain(`Uploaded tool-chat.jinja (${first.size} bytes, SHA-256 ${first.sha256.slice(0, 12)}…) to ~/.servelab/files/${first.sha256}/tool-chat.jinja`);
    const record = await recordOf(firstRun.state);
    const at = record.argv?.indexOf('--chat-template') ?? -1;
    expect(at).toBeGreaterThan(0);
    expect(record.argv?.[at + 1]).toBe(onBox(first));
  }, 600_000);

  it('names ~/.servelab/files/<sha256>/<name> in the command shown and in the report, not the resolved box path', async () => {
    const trial = firstRun.state.trials[0]!;
    expect(trial.command).toBe(`vllm serve Qwen/Qwen3-8B --chat-template ~/.servelab/files/${first.sha256}/tool-chat.jinja`);
    const md = ((await lab.core.call('studies:report', { path: join(scratch.dir, 'first.servelab'), format: 'md' })) as { text: string }).text;
    expect(md).toContain(`--chat-template ~/.servelab/files/${first.sha256}/tool-chat.jinja`);
    // The launch ran with the box's resolved path; what people read names the file as it is on any box.
    expect(md).not.toContain(join(boxHome(), '.servelab', 'files'));
  });

  it("names the benchmark's dataset and result folder from ~ in the report and the CSV, not the demo lab's local folder", async () => {
    const project = join(scratch.dir, 'first.servelab');
    const md = ((await lab.core.call('studies:report', { path: project, format: 'md' })) as { text: string }).text;
    // The run itself read the dataset at the demo lab's resolved path (the trial's stored provenance says so).
    const provenance = firstRun.state.trials.find((t) => t.result)?.result?.result.provenance;
    expect(provenance?.dataset?.path).toBe(join(boxHome(), '.servelab', 'datasets', 'ShareGPT_V3_unfiltered_cleaned_split.json'));
    expect(md).toMatch(/\n```sh\n~\/\.servelab\/engines\/vllm-0\.11\.0\/bin\/vllm bench serve .*--dataset-path ~\/\.servelab\/datasets\/ShareGPT_V3_unfiltered_cleaned_split\.json .*--result-dir ~\/\.servelab\/bench\//);
    expect(md).toContain('| `~/.servelab/datasets/ShareGPT_V3_unfiltered_cleaned_split.json` |');
    const csv = ((await lab.core.call('studies:report', { path: project, format: 'csv' })) as { text: string }).text;
    const html = ((await lab.core.call('studies:report', { path: project, format: 'html' })) as { text: string }).text;
    for (const text of [md, csv, html]) {
      expect(text).not.toContain(boxHome());
      expect(text).not.toContain(scratch.dir);
    }
  });

  it('is not uploaded again by a launch of the same file', async () => {
    const again = await run('again', first);
    expect(again.state.status, again.state.message).toBe('done');
    expect(again.placed.length).toBeGreaterThan(0);
    expect(again.placed.every((p) => p.sha256 === first.sha256 && p.path === onBox(first) && !p.uploaded)).toBe(true);
    expect(again.log).toContain(`tool-chat.jinja is already on`);
    expect((await stat(onBox(first))).mtimeMs).toBe(uploadedAt);
    expect(again.state.trials[0]?.serverKey).toBe(firstRun.state.trials[0]?.serverKey);
  }, 600_000);

  it('is uploaded again under its new checksum once it changes, and the server reads the new path', async () => {
    const next = await run('changed', changed);
    expect(next.state.status, next.state.message).toBe('done');
    expect(changed.sha256).not.toBe(first.sha256);
    expect(next.placed.map((p) => [p.path, p.uploaded])).toEqual([
      [onBox(changed), true],
      [onBox(changed), false],
    ]);
    expect((await readFile(onBox(changed))).toString('utf8')).toBe(CHANGED);
    // The earlier version stays where the earlier launch read it.
    expect(sha256(await readFile(onBox(first)))).toBe(first.sha256);
    const record = await recordOf(next.state);
    expect(record.argv).toContain(onBox(changed));
    expect(record.argv).not.toContain(onBox(first));
    expect(next.state.trials[0]?.serverKey).not.toBe(firstRun.state.trials[0]?.serverKey);
  }, 600_000);
});
