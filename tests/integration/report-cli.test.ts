// `servelab report` run in-process over real project files: the three formats, --out, and refusals of bad files.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runReport } from '../../src/cli/commands/report';
import { runCli } from '../../src/cli/main';
import { runCaptured, type CliRun } from '../helpers/cli';
import { PROJECT_SCHEMA_VERSION } from '../../src/shared/study/study';
import { PLAIN_ENV_VALUE, STUDY_B_RECOMMENDED, studyBProject } from '../helpers/study-projects';
import { finishedExampleProject } from '../helpers/example-projects';

let dir: string;
const run = (args: string[]): Promise<CliRun> => runCaptured((io) => runReport(args, io), {}, dir);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'servelab-report-'));
  writeFileSync(join(dir, 'study-b.servelab'), JSON.stringify(studyBProject(), null, 2));
  // The latency example, run to the end in virtual time: every decision with its facts, dates on the run.
  writeFileSync(join(dir, 'latency.servelab'), JSON.stringify(finishedExampleProject('qwen3-8b-latency-h100.servelab'), null, 2));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('servelab report', () => {
  it('prints the Markdown report by default', async () => {
    const { code, stdout, stderr } = await run(['study-b.servelab']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^# Qwen\/Qwen3-32B on 1× NVIDIA A100-SXM4-80GB: highest total token throughput\n/);
    expect(stdout).toContain(STUDY_B_RECOMMENDED);
    expect(stdout).toContain('REGRESSION −13.8%');
    expect(stdout).not.toContain(PLAIN_ENV_VALUE);
  });

  it('prints HTML and CSV with --format', async () => {
    const html = await run(['study-b.servelab', '--format', 'html']);
    expect(html.code).toBe(0);
    expect(html.stdout).toMatch(/^<!DOCTYPE html>/);
    expect(html.stdout).toContain('<svg ');
    const csv = await run(['study-b.servelab', '--format', 'csv']);
    expect(csv.code).toBe(0);
    expect(csv.stdout.startsWith('trial id,stage,candidate,label,')).toBe(true);
    expect(csv.stdout.split('\r\n')).toHaveLength(studyBProject().state.trials.length + 2);
  });

  it('writes --out atomically, taking the format from the extension, and leaves no temporary file', async () => {
    const html = await run(['study-b.servelab', '--out', 'out/report.html']);
    expect(html).toEqual({ code: 0, stdout: '', stderr: 'Wrote out/report.html (html).\n' });
    expect(readFileSync(join(dir, 'out', 'report.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/);
    expect(statSync(join(dir, 'out', 'report.html')).mode & 0o777).toBe(0o644);
    const csv = await run(['study-b.servelab', '--out', 'out/trials.csv']);
    expect(csv.code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'trials.csv'), 'utf8')).toMatch(/^trial id,/);
    // An explicit format wins over the extension.
    const md = await run(['study-b.servelab', '--format', 'md', '--out', 'out/report.txt']);
    expect(md.code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'report.txt'), 'utf8')).toMatch(/^# Qwen/);
    expect(readdirSync(join(dir, 'out')).sort()).toEqual(['report.html', 'report.txt', 'trials.csv']);
  });

  it('refuses a damaged project, naming the field, and leaves it untouched', async () => {
    const project = JSON.parse(JSON.stringify(studyBProject())) as { state: { trials: { status: string }[] } };
    (project.state.trials[3] as { status: string }).status = 'exploded';
    const text = JSON.stringify(project);
    writeFileSync(join(dir, 'damaged.servelab'), text);
    const { code, stdout, stderr } = await run(['damaged.servelab', '--out', 'damaged.md']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toContain('is damaged: state.trials.3.status:');
    expect(readFileSync(join(dir, 'damaged.servelab'), 'utf8')).toBe(text);
    expect(existsSync(join(dir, 'damaged.md'))).toBe(false);
  });

  it('refuses a project written by a newer version, naming the version', async () => {
    writeFileSync(join(dir, 'newer.servelab'), JSON.stringify({ ...studyBProject(), schemaVersion: PROJECT_SCHEMA_VERSION + 1 }));
    const { code, stderr } = await run(['newer.servelab']);
    expect(code).toBe(1);
    expect(stderr).toContain(`was written by a newer Servelab (schemaVersion ${PROJECT_SCHEMA_VERSION + 1}); this version reads up to ${PROJECT_SCHEMA_VERSION}`);
  });

  it('reports a missing file and not-JSON as errors (exit 1)', async () => {
    expect(await run(['missing.servelab'])).toEqual({ code: 1, stdout: '', stderr: 'servelab report: missing.servelab: no such file.\n' });
    writeFileSync(join(dir, 'garbage.servelab'), '{ not json');
    const garbage = await run(['garbage.servelab']);
    expect(garbage.code).toBe(1);
    expect(garbage.stderr).toContain('is not valid JSON');
  });

  it('exits 2 with the usage for bad arguments', async () => {
    for (const args of [[], ['study-b.servelab', '--format', 'pdf'], ['a.servelab', 'b.servelab'], ['study-b.servelab', '--colour']]) {
      const { code, stderr } = await run(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toContain('Usage: servelab report <project.servelab>');
    }
    const bad = await run(['study-b.servelab', '--format', 'pdf']);
    expect(bad.stderr).toContain('--format must be one of md, html, csv, not "pdf".');
  });

  it('writes the report in Turkish with --lang tr: words, decisions, numbers and dates, and the same CSV', async () => {
    const md = await run(['latency.servelab', '--lang', 'tr']);
    expect(md.stderr).toBe('');
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^# Qwen\/Qwen3-8B, 1× H100 \(simüle GPU makinesi\): istek başına en düşük ortalama gecikme\n/);
    for (const heading of ['## Öneri', '## Senaryo başına önce ve sonra', '## Notlar ve uyarılar', '## Aşama 1: Motor seçimi', '## Özet: seçenek → kazanç']) {
      expect(md.stdout).toContain(heading);
    }
    expect(md.stdout).toMatch(/Karar: Korunan: SGLang 0\.5\.3\.post3 \(kazanç: \+\u2060%\d+,\d\)\. En iyisi SGLang 0\.5\.3\.post3: ortalama gecikme \d+,\d\d sn\/istek\./);
    expect(md.stdout).toMatch(/Başlangıç: 1 Ocak 1970 00:00; bitiş: 1 Ocak 1970 \d\d:\d\d \(UTC\)\./);
    expect(md.stdout).not.toContain('## Recommendation');
    const html = await run(['latency.servelab', '--lang', 'tr', '--format', 'html']);
    expect(html.code).toBe(0);
    expect(html.stdout).toContain('<html lang="tr">');
    expect(html.stdout).toContain('<h2>Notlar ve uyarılar</h2>');
    // English stays the default.
    expect((await run(['latency.servelab'])).stdout).toContain('## Recommendation');
    const csvTr = await run(['latency.servelab', '--lang', 'tr', '--format', 'csv']);
    const csvEn = await run(['latency.servelab', '--format', 'csv']);
    expect(csvTr.code).toBe(0);
    expect(csvTr.stdout).toBe(csvEn.stdout);
    const bad = await run(['latency.servelab', '--lang', 'de']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--lang must be one of en, tr, not "de".');
  });

  it('is reachable as `servelab report`, with its help', async () => {
    const viaMain = await runCaptured((io) => runCli(['report', 'study-b.servelab', '--format', 'csv'], io, ''), {}, dir);
    expect(viaMain.code).toBe(0);
    expect(viaMain.stdout).toMatch(/^trial id,/);
    const help = await runCaptured((io) => runCli(['report', '--help'], io, ''), {}, dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--format FORMAT');
    const usage = await runCaptured((io) => runCli(['--help'], io, ''), {}, dir);
    expect(usage.stdout).toContain('report <project.servelab> [--format md|html|csv] [--lang en|tr] [--out FILE]');
  });
});
