// A whole study over a real sshd, through the browser build of the UI against the real core: the simulated H100 box
// on a test user's PATH is added on the Hosts page, a study is built in the wizard for it, run, compared, exported,
// and found again after a reload.
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';
import { installSimboxHome } from '../helpers/simbox-home';
import { startTestSshd, type TestSshd } from '../helpers/sshd';
import { expect, screenshotBothThemes, test as base } from './fixtures';

const HOST_LABEL = 'sim-h100';
const MODEL = 'Qwen/Qwen3-8B';
const VLLM = { name: 'vLLM', version: '0.11.0' };
const SGLANG = { name: 'SGLang', version: '0.5.3.post3' };
const WORKLOAD = 'random-128-4';
const PROMPTS = 40;
/** The one stage kept from the method's defaults: a single candidate, on the engine the method expects to win. */
const KEPT_STAGE = 'CUDA graph max batch size (SGLang)';
const GPU_LINE = 'NVIDIA H100 80GB HBM3 · 81559 MiB · sm 9.0';

// A box of its own: the worker's shared sshd replays an H200 and other specs rely on that.
const test = base.extend<{ simboxSshd: TestSshd }>({
  // eslint-disable-next-line no-empty-pattern
  simboxSshd: async ({}, use) => {
    const sshd = await startTestSshd({ nvidiaSmi: false });
    try {
      // The box runs in accelerated time; its numbers stay in real-GPU units, so the study decides as on a GPU.
      await installSimboxHome(sshd, { timeScale: 0.002, gpu: 'h100', count: 1 });
      await use(sshd);
    } finally {
      await sshd.stop();
    }
  },
});

interface ProjectTrial {
  id: string;
  stageId: string;
  label: string;
  engine: string;
  version: string;
  workloadId: string;
  repeat: number;
  status: string;
  /** GPUs its server held. */
  gpuCount?: number;
  result?: { result: { metrics: Record<string, number | null> } };
}
interface ProjectOnDisk {
  study: { name: string; hosts: { hostId: string }[]; workloads: { primary: { id: string; label?: string } } };
  state: { status: string; trials: ProjectTrial[]; decisions: unknown[]; recommendation?: { command: string } };
}

async function readProject(path: string): Promise<ProjectOnDisk> {
  return JSON.parse(await readFile(path, 'utf8')) as ProjectOnDisk;
}

/** RFC 4180: CRLF line ends, quoted fields with doubled quotes inside. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else if (c === '\n') throw new Error(`bare LF at offset ${i}: RFC 4180 lines end with CRLF`);
    else field += c;
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field !== '' || row.length > 0) throw new Error('the last line does not end with CRLF');
  return rows;
}

/** "+1.25 (+2.0%)" or "−0.50 (−1.3%)" as numbers; a minus is printed as "−". */
function parseDelta(text: string): { delta: number; pct: number | null } {
  const match = /^([+−]?[\d.]+)(?: \(([+−]?[\d.]+)%\))?$/.exec(text.trim());
  if (!match) throw new Error(`not a delta: "${text}"`);
  const num = (s: string) => Number(s.replace('−', '-').replace('+', ''));
  return { delta: num(match[1]!), pct: match[2] === undefined ? null : num(match[2]) };
}

/**
 * The result key of a comparison row, from its title ("Mean TTFT (ms)" → mean_ttft_ms), and whether less or more of
 * it is better: the test's own reading, not the product's catalogue.
 */
function metricOfRow(title: string): { key: string; better: 'lower' | 'higher'; perGpu?: true } {
  // "Total token throughput per GPU (tok/s/GPU)": the throughput divided by the GPUs the trial's server held.
  const perGpu = /^(.+) per GPU \((.+)\/GPU\)$/.exec(title);
  if (perGpu) return { ...metricOfRow(`${perGpu[1]} (${perGpu[2]})`), perGpu: true };
  const throughputs: Record<string, string> = {
    'Total token throughput (tok/s)': 'total_token_throughput',
    'Output token throughput (tok/s)': 'output_throughput',
    'Request throughput (req/s)': 'request_throughput',
  };
  if (throughputs[title]) return { key: throughputs[title], better: 'higher' };
  if (title === 'Mean latency (s)') return { key: 'mean_latency_s', better: 'lower' };
  const latency = /^(Mean|Median|P\d+) (TTFT|TPOT|ITL|E2EL) \(ms\)$/.exec(title);
  if (!latency) throw new Error(`a comparison row the test does not know: "${title}"`);
  return { key: `${latency[1]!.toLowerCase()}_${latency[2]!.toLowerCase()}_ms`, better: 'lower' };
}

function expectNear(actual: number, expected: number, tolerance: number, what: string): void {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function columnIndex(table: Locator, header: string): Promise<number> {
  const headers = await table.getByRole('columnheader').allTextContents();
  const index = headers.findIndex((text) => text.startsWith(header));
  expect(index, `no column "${header}" in ${headers.join(' | ')}`).toBeGreaterThan(0);
  return index;
}

async function openStudyTab(page: Page, name: string): Promise<void> {
  await page.getByRole('tab', { name }).click();
  await expect(page.getByRole('tab', { name })).toHaveAttribute('aria-selected', 'true');
}

test.describe('A study over SSH against the real core, a real sshd and the simulated box', () => {
  test('add the box → wizard → run → compare two trials → CSV → reload and reopen', async ({ page, core, simboxSshd: sshd }) => {
    test.setTimeout(270_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const wizard = page.getByRole('region', { name: 'New study' });
    const next = wizard.getByRole('button', { name: 'Next' });
    const heading = wizard.getByRole('heading', { level: 2 });
    let studyName = '';
    let projectPath = '';

    await test.step('Hosts: add the box with its address, port, user and key', async () => {
      await page.goto(core.pageUrl);
      await expect(page.getByRole('heading', { level: 1, name: /Hosts/ })).toBeVisible();
      await page.getByLabel(/^Label/).fill(HOST_LABEL);
      await page.getByLabel('Address', { exact: true }).fill(sshd.host);
      await page.getByLabel('Port', { exact: true }).fill(String(sshd.port));
      await page.getByLabel(/^User/).fill(sshd.user);
      await page.getByLabel(/^Identity file/).fill(sshd.identityFile);
      await page.getByRole('button', { name: 'Add host' }).click();
      const card = page.getByRole('article', { name: HOST_LABEL });
      await expect(card.getByText(`${sshd.user}@${sshd.host}:${sshd.port}`)).toBeVisible();
      await expect(card.getByText('Connection state: Not connected')).toBeVisible();
    });

    await test.step('Hosts: accept its host key and read a simulated H100', async () => {
      const card = page.getByRole('article', { name: HOST_LABEL });
      await card.getByRole('button', { name: 'Read inventory' }).click();
      const dialog = page.getByRole('dialog', { name: 'Unknown host key' });
      await expect(dialog.getByText(sshd.hostKeyFingerprint, { exact: true })).toBeVisible({ timeout: 30_000 });
      await dialog.getByRole('button', { name: 'Accept and connect' }).click();
      await expect(dialog).toBeHidden();
      await expect(card.getByText(GPU_LINE, { exact: true })).toBeVisible({ timeout: 45_000 });
      await expect(card.getByText('Connection state: Connected until unused')).toBeVisible();
      // The box says it is the simulated one: its numbers are never presented as real.
      await expect(card.getByText('Simulated', { exact: true })).toBeVisible();
      await expect(card.getByText('This box is the simulated GPU box: its numbers are not real measurements.')).toBeVisible();
      await screenshotBothThemes(page, 'ssh-hosts-simulated-h100', { height: 1100 });
    });

    await test.step('Wizard 1–3: model, the SSH box with its GPU from the inventory, lowest latency', async () => {
      await page.getByRole('button', { name: 'Studies' }).click();
      await page.getByRole('button', { name: 'New study', exact: true }).click();
      await expect(heading).toHaveText('Step 1 of 8 · Model');
      await wizard.getByLabel('Model', { exact: true }).fill(MODEL);
      await next.click();

      await expect(heading).toHaveText('Step 2 of 8 · Hardware');
      await wizard.getByRole('checkbox', { name: new RegExp(`^${HOST_LABEL}`) }).check();
      // The GPU list is the box's inventory, read over SSH (not the demo lab's GPU choice), marked as the simulated box's.
      await expect(wizard.getByRole('checkbox', { name: `GPU 0 · ${GPU_LINE} (simulated)` })).toBeChecked({ timeout: 30_000 });
      await expect(wizard.getByLabel('Simulated GPU', { exact: true })).toHaveCount(0);
      await expect(wizard.getByRole('checkbox', { name: /^Demo lab/ })).not.toBeChecked();
      await screenshotBothThemes(page, 'ssh-wizard-2-hardware');
      await next.click();

      await expect(heading).toHaveText('Step 3 of 8 · Goal');
      await expect(wizard.getByRole('radio', { name: /Lowest latency/ })).toBeChecked();
      await next.click();
    });

    await test.step('Wizard 4: vLLM and SGLang at known versions, both to be installed on the box', async () => {
      await expect(heading).toHaveText('Step 4 of 8 · Engines');
      await wizard.getByRole('checkbox', { name: 'Use vLLM' }).check();
      await wizard.getByLabel('vLLM version').selectOption(VLLM.version);
      await wizard.getByRole('checkbox', { name: 'Use SGLang' }).check();
      await wizard.getByLabel('SGLang version').selectOption(SGLANG.version);
      await expect(wizard.getByTestId('wizard-install-vllm')).toHaveText(`Will be installed on ${HOST_LABEL}`);
      await expect(wizard.getByTestId('wizard-install-sglang')).toHaveText(`Will be installed on ${HOST_LABEL}`);
      await screenshotBothThemes(page, 'ssh-wizard-4-engines', { height: 1200 });
      await next.click();
    });

    await test.step('Wizard 5: one short stage kept', async () => {
      await expect(heading).toHaveText('Step 5 of 8 · Stages');
      await expect(wizard.getByRole('region', { name: new RegExp(`: ${escapeRegExp(KEPT_STAGE)}$`) })).toBeVisible();
      for (;;) {
        const names = await wizard.getByRole('button', { name: /^Remove stage / }).evaluateAll((buttons) => buttons.map((b) => b.getAttribute('aria-label') ?? ''));
        const drop = names.find((name) => name !== `Remove stage ${KEPT_STAGE}`);
        if (!drop) break;
        await wizard.getByRole('button', { name: drop, exact: true }).click();
      }
      await expect(wizard.getByRole('region', { name: /^Stage \d+:/ })).toHaveCount(1);
      const stage = wizard.getByRole('region', { name: `Stage 1: ${KEPT_STAGE}` });
      await expect(stage.getByLabel('Candidate id')).toHaveCount(1);
      await expect(stage.getByText('Only for SGLang')).toBeVisible();
      await screenshotBothThemes(page, 'ssh-wizard-5-stages');
      await next.click();
    });

    await test.step('Wizard 6–7: a short random workload, greedy', async () => {
      await expect(heading).toHaveText('Step 6 of 8 · Workloads');
      await wizard.getByLabel('Workload', { exact: true }).selectOption(WORKLOAD);
      await wizard.getByLabel('Prompts', { exact: true }).fill(String(PROMPTS));
      await wizard.getByLabel(/^Max concurrency/).fill('4');
      await next.click();
      await expect(heading).toHaveText('Step 7 of 8 · Strategy');
      await expect(wizard.getByRole('radio', { name: /Greedy/ })).toBeChecked();
      await next.click();
    });

    await test.step('Wizard 8: the plan on the box with its trial count and GPU-time estimate; Create', async () => {
      await expect(heading).toHaveText('Step 8 of 8 · Review');
      studyName = await wizard.getByLabel('Study name').inputValue();
      expect(studyName).toMatch(/Qwen3-8B/);
      projectPath = await wizard.getByLabel('Project file').inputValue();
      expect(projectPath).toMatch(new RegExp(`^${escapeRegExp(core.dataDir)}/studies/.+\\.servelab$`));
      const summary = wizard.getByRole('definition').filter({ hasText: 'primary:' });
      await expect(summary).toContainText(`Random 128 in / 4 out, ${PROMPTS} prompts`);
      await wizard.getByRole('button', { name: 'Save draft' }).click();
      const plan = wizard.getByRole('region', { name: 'Plan' });
      // The engine selection: one trial and one launch per engine; the kept stage is planned once it is reached.
      await expect(plan.getByTestId('plan-trials')).toHaveText('2', { timeout: 30_000 });
      await expect(plan.getByTestId('plan-launches')).toHaveText('2');
      await expect(plan.getByTestId('plan-gpu-time')).toHaveText(/\d+ (s|min)|\d+ h \d+ min/);
      await expect(plan.getByTestId('plan-rejected')).toHaveText('0');
      await expect(plan.getByText(`GPUs: ${HOST_LABEL} GPU 0 · NVIDIA H100 80GB HBM3 (sm 9.0)`, { exact: true })).toBeVisible();
      await screenshotBothThemes(page, 'ssh-wizard-8-review', { height: 1400 });
      await wizard.getByRole('button', { name: 'Create' }).click();
      await expect(wizard).toBeHidden();
      await expect(page.getByRole('heading', { level: 1, name: new RegExp(escapeRegExp(studyName)) })).toBeVisible();
      await expect(page.getByTestId('study-status')).toHaveText('Not run yet');
      const saved = await readProject(projectPath);
      expect(saved.study.hosts.map((h) => h.hostId)).not.toContain('demo-lab');
      expect(saved.study.hosts).toHaveLength(1);
    });

    await test.step('Plan tab: both engines on the SSH box', async () => {
      const table = page.getByRole('table', { name: 'Planned trials' });
      // A header row and the two engine trials.
      await expect(table.getByRole('row')).toHaveCount(3, { timeout: 30_000 });
      await expect(table).toContainText(`${VLLM.name} ${VLLM.version}`);
      await expect(table).toContainText(`${SGLANG.name} ${SGLANG.version}`);
      await expect(page.getByText(`${HOST_LABEL} · GPU 0 · NVIDIA H100 80GB HBM3 · 80 GiB`, { exact: true })).toBeVisible();
      await screenshotBothThemes(page, 'ssh-study-plan', { height: 1100 });
    });

    let finalProgress = '';
    await test.step('Run: the progress count moves, the box’s log streams in, the study ends Done', async () => {
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      await expect(page.getByRole('tab', { name: 'Run monitor' })).toHaveAttribute('aria-selected', 'true');
      const progress = page.getByTestId('study-progress');
      const log = page.getByRole('log', { name: 'Study log lines' });
      const seen = new Set<string>();
      // The launch line names the engine's own command and where it runs.
      await expect(log).toContainText(new RegExp(`Launching vllm serve ${escapeRegExp(MODEL)} .*on ${HOST_LABEL} GPU 0`), { timeout: 120_000 });
      // Streamed while the study runs, not read back at its end.
      await expect(page.getByTestId('study-status')).toHaveText('Running');
      seen.add((await progress.textContent()) ?? '');
      await screenshotBothThemes(page, 'ssh-study-run', { height: 1400 });
      await expect
        .poll(
          async () => {
            seen.add((await progress.textContent()) ?? '');
            return page.getByTestId('study-status').textContent();
          },
          { timeout: 200_000, intervals: [250] },
        )
        .toBe('Done');
      const final = (await progress.textContent()) ?? '';
      finalProgress = final;
      const [, finished, total] = /^(\d+) of (\d+) trials finished$/.exec(final) ?? [];
      expect(Number(total)).toBeGreaterThanOrEqual(2);
      expect(finished).toBe(total);
      // Seen at least once before the end: the count moved while the study ran.
      expect([...seen].filter((text) => text !== final && /^\d+ of \d+ trials finished$/.test(text)).length, [...seen].join(' | ')).toBeGreaterThan(0);
      await expect(log).toContainText(new RegExp(`Launching python3 -m sglang\\.launch_server --model-path ${escapeRegExp(MODEL)} .*on ${HOST_LABEL} GPU 0`));
      // The benchmark client's own output, streamed from the box into the trial's pane (the pane draws only the
      // lines in view: its search brings the result block's header there).
      await page.getByLabel('Search Benchmark output').fill('Serving Benchmark Result');
      await expect(page.getByRole('log', { name: 'Benchmark output lines' }).locator('mark.is-current')).toHaveText('Serving Benchmark Result');
      const notice = page.getByRole('status').filter({ hasText: `Study “${studyName}” finished.` });
      await expect(notice).toBeVisible();
      // The box said it is the simulated one: the study says so next to its status.
      await expect(page.getByRole('heading', { level: 1 }).getByText('Simulated', { exact: true })).toBeVisible();
      await screenshotBothThemes(page, 'ssh-study-run-done', { height: 1600 });
      await notice.getByRole('button', { name: 'Dismiss' }).click();
      await expect(notice).toBeHidden();
    });

    const project = await readProject(projectPath);
    expect(project.state.status).toBe('done');
    const trialCount = project.state.trials.length;
    // Every trial ran to its end on the box, and the monitor counted them all.
    expect(project.state.trials.map((tr) => `${tr.id}: ${tr.status}`).filter((line) => !line.endsWith(': done'))).toEqual([]);
    expect(finalProgress).toBe(`${trialCount} of ${trialCount} trials finished`);
    const primary = project.study.workloads.primary.id;
    // The Results tab names a workload by its label (its id when it has none).
    const primaryShown = project.study.workloads.primary.label ?? primary;
    const engineTrial = (engine: string) => {
      const trial = project.state.trials.find((tr) => tr.stageId === 'engine' && tr.engine === engine && tr.workloadId === primary && tr.status === 'done');
      expect(trial, `a finished ${engine} trial on ${primary}`).toBeDefined();
      return trial!;
    };
    const vllmTrial = engineTrial('vllm');
    const sglangTrial = engineTrial('sglang');

    let recommended = '';
    await test.step('Recommendation: the launch command and the stage decisions', async () => {
      await openStudyTab(page, 'Recommendation');
      const card = page.getByRole('region', { name: 'Recommendation' });
      recommended = (await card.getByTestId('recommended-command').textContent()) ?? '';
      expect(recommended).toBe(project.state.recommendation?.command);
      expect(recommended).toMatch(/^(vllm serve|python3 -m sglang\.launch_server) /);
      // The engine selection and the kept stage, each decided.
      expect(project.state.decisions).toHaveLength(2);
      await expect(card.getByRole('list', { name: 'Stage decisions' }).getByRole('listitem')).toHaveCount(2);
      await screenshotBothThemes(page, 'ssh-study-recommendation', { height: 1000 });
    });

    await test.step('Results: every trial, and two of them compared with deltas that add up', async () => {
      await openStudyTab(page, 'Results');
      await expect(page.getByText(`${trialCount} of ${trialCount} trials`, { exact: true })).toBeVisible();
      await screenshotBothThemes(page, 'ssh-study-results', { height: 1200 });
      const trials = page.getByRole('table', { name: 'Trials' });
      await trials.getByRole('checkbox', { name: `Select ${vllmTrial.label} · ${primaryShown} · 1` }).check();
      await trials.getByRole('checkbox', { name: `Select ${sglangTrial.label} · ${primaryShown} · 1` }).check();
      await page.getByRole('button', { name: 'Compare (2)' }).click();

      const table = page.getByRole('table', { name: 'Comparison' });
      await expect(table).toBeVisible();
      const vllmColumn = `${vllmTrial.label} · ${primaryShown}`;
      const sglangColumn = `${sglangTrial.label} · ${primaryShown}`;
      // The study's baseline (its first engine) is what the deltas are measured against.
      await expect(page.getByLabel('Baseline', { exact: true })).toHaveValue(vllmTrial.id);
      await expect(table.getByRole('columnheader', { name: new RegExp(`^${escapeRegExp(vllmColumn)}\\s+baseline$`) })).toBeVisible();
      const baseIndex = (await columnIndex(table, vllmColumn)) - 1;
      const otherIndex = (await columnIndex(table, sglangColumn)) - 1;

      const rows = table.getByRole('row').filter({ has: page.getByRole('rowheader') });
      const rowCount = await rows.count();
      expect(rowCount).toBeGreaterThan(5);
      const checked: string[] = [];
      for (let i = 0; i < rowCount; i++) {
        const row = rows.nth(i);
        const title = ((await row.getByRole('rowheader').textContent()) ?? '').trim();
        const metric = metricOfRow(title);
        // Each value stands first in its cell; under it, its interval and run count.
        const baseCell = row.getByRole('cell').nth(baseIndex);
        const shownBase = Number(await baseCell.locator('.compare-value').textContent());
        await expect(baseCell.locator('.compare-interval')).toContainText(/runs: \d+/);
        const otherCell = row.getByRole('cell').nth(otherIndex);
        const shownOther = Number(await otherCell.locator('.compare-value').textContent());
        const deltaBox = otherCell.locator('.compare-delta');
        const { delta, pct } = parseDelta((await deltaBox.locator('.compare-delta-number').textContent()) ?? '');
        // The values are the measured ones of the project file, to the 0.01 shown…
        const valueOf = (trial: ProjectTrial) => {
          const value = trial.result!.result.metrics[metric.key];
          return metric.perGpu && typeof value === 'number' ? value / (trial.gpuCount ?? 1) : value;
        };
        const baseValue = valueOf(vllmTrial);
        const otherValue = valueOf(sglangTrial);
        expect(typeof baseValue, `${metric.key} of ${vllmTrial.id}`).toBe('number');
        expect(typeof otherValue, `${metric.key} of ${sglangTrial.id}`).toBe('number');
        expectNear(shownBase, baseValue!, 0.0051, `${title}, baseline`);
        expectNear(shownOther, otherValue!, 0.0051, `${title}, ${sglangColumn}`);
        // …the delta is their difference and the percentage its share of the baseline…
        const exactDelta = otherValue! - baseValue!;
        const exactPct = (exactDelta / Math.abs(baseValue!)) * 100;
        expectNear(delta, exactDelta, 0.0051, `${title}, delta`);
        expectNear(pct!, exactPct, 0.051, `${title}, delta %`);
        // …which also adds up from the two values shown (each of the three rounded to 0.01).
        expectNear(delta, shownOther - shownBase, 0.0151, `${title}, delta of the values shown`);
        // Better or worse follows the metric's direction: less latency, more throughput; within 0.5 % is the same.
        const verdict = Math.abs(exactPct) <= 0.5 ? 'same' : (exactDelta < 0) === (metric.better === 'lower') ? 'better' : 'worse';
        await expect(deltaBox, title).toHaveClass(new RegExp(`(^|\\s)is-${verdict}(\\s|$)`));
        await expect(deltaBox.locator('.compare-verdict'), title).toHaveText(verdict);
        checked.push(metric.key);
      }
      expect(checked).toEqual(expect.arrayContaining(['total_token_throughput', 'request_throughput', 'mean_latency_s', 'mean_ttft_ms', 'p99_ttft_ms', 'mean_tpot_ms']));
      await expect(page.getByRole('region', { name: 'Settings that differ' }).getByRole('rowheader', { name: 'engine', exact: true })).toBeVisible();
      await page.getByRole('region', { name: 'Comparison' }).scrollIntoViewIfNeeded();
      await screenshotBothThemes(page, 'ssh-study-compare', { height: 1600 });
    });

    await test.step('Report: Export CSV downloads one row per trial with the project file’s numbers', async () => {
      await openStudyTab(page, 'Report');
      await expect(page.getByRole('article', { name: 'Report' })).toContainText(recommended);
      // The simulated numbers are attributed to the box they came from, not to the demo lab.
      await expect(page.getByRole('article', { name: 'Report' })).toContainText(`These numbers come from the simulated GPU box on ${HOST_LABEL}: they are simulations`);
      await expect(page.getByRole('article', { name: 'Report' })).not.toContainText('demo lab');
      await screenshotBothThemes(page, 'ssh-study-report', { height: 1200 });
      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const download = await downloading;
      const fileName = `${projectPath.split('/').at(-1)!.replace(/\.servelab$/, '')}.csv`;
      expect(download.suggestedFilename()).toBe(fileName);
      await expect(page.getByText(`Downloaded ${fileName}`)).toBeVisible();
      const [header, ...rows] = parseCsv(await readFile((await download.path())!, 'utf8'));
      expect(header).toEqual(expect.arrayContaining(['trial id', 'engine', 'status', 'workload', 'mean_ttft_ms (ms)', 'total_token_throughput (tok/s)', 'mean_tpot_ms (ms)']));
      expect(rows).toHaveLength(trialCount);
      for (const row of rows) expect(row).toHaveLength(header!.length);
      const column = (title: string) => header!.indexOf(title);
      expect(rows.map((row) => row[column('trial id')]).sort()).toEqual(project.state.trials.map((tr) => tr.id).sort());
      for (const trial of [vllmTrial, sglangTrial]) {
        const row = rows.find((r) => r[column('trial id')] === trial.id)!;
        expect(row[column('engine')]).toBe(trial.engine);
        expect(row[column('status')]).toBe('done');
        expect(row[column('host')]).toBe(project.study.hosts[0]!.hostId);
        for (const title of header!) {
          const unit = /^([a-z0-9_.]+) \((tok\/s|req\/s|ms|s|requests)\)$/.exec(title);
          // mean_latency_s and the objective (on this latency study, the same number) are derived, not stored.
          if (!unit || unit[1] === 'mean_latency_s' || unit[1] === 'objective') continue;
          const value = trial.result!.result.metrics[unit[1]!];
          expect(row[column(title)], `${trial.label}: ${title}`).toBe(typeof value === 'number' ? String(value) : '');
        }
        expect(Number(row[column('mean_ttft_ms (ms)')])).toBeGreaterThan(0);
      }
    });

    await test.step('Engines page of the SSH box: the two engines the study installed', async () => {
      await page.getByRole('button', { name: 'Engines' }).click();
      await page.getByLabel('Host', { exact: true }).selectOption({ label: HOST_LABEL });
      const installed = page.getByRole('region', { name: 'Installed engines' });
      await expect(installed.getByRole('row').filter({ hasText: VLLM.name }).filter({ hasText: VLLM.version })).toBeVisible({ timeout: 30_000 });
      await expect(installed.getByRole('row').filter({ hasText: SGLANG.name }).filter({ hasText: SGLANG.version })).toBeVisible();
      await screenshotBothThemes(page, 'ssh-engines', { height: 1200 });
    });

    await test.step('After a reload, Recent reopens the project with the same status, trials and recommendation', async () => {
      await page.reload();
      await page.getByRole('button', { name: 'Studies' }).click();
      await page.getByRole('button', { name: `Open recent project ${studyName}` }).click();
      await expect(page.getByTestId('study-status')).toHaveText('Done');
      await expect(page.getByRole('tab', { name: 'Recommendation' })).toHaveAttribute('aria-selected', 'true');
      await expect(page.getByTestId('recommended-command')).toHaveText(recommended);
      await openStudyTab(page, 'Run monitor');
      await expect(page.getByTestId('study-progress')).toHaveText(`${trialCount} of ${trialCount} trials finished`);
      await openStudyTab(page, 'Results');
      await expect(page.getByText(`${trialCount} of ${trialCount} trials`, { exact: true })).toBeVisible();
      await expect(page.getByRole('table', { name: 'Trials' }).getByRole('checkbox', { name: `Select ${sglangTrial.label} · ${primaryShown} · 1` })).toBeVisible();
      await page.getByRole('button', { name: 'All studies' }).click();
      await screenshotBothThemes(page, 'ssh-studies-recent');
    });

    expect(errors, `page errors:\n${errors.join('\n')}\ncore output:\n${core.output()}`).toEqual([]);
  });
});
