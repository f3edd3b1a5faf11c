// A study planned on a Slurm cluster host in the wizard: the Slurm section filled from the cluster as read (a real
// one-node Slurm cluster with fake GPU GRES behind a real sshd, tests/helpers/slurm.ts), and the plan preview's table of
// the batch jobs the study would submit. Nothing is run. Needs root (Slurm's daemons run as SlurmUser=root); skipped
// with the reason elsewhere.
import type { Locator, Page } from '@playwright/test';
import { expectAccessibleInBothThemes } from './a11y';
import { expect, screenshotBothThemes, test } from './fixtures';
import { GPUS_PER_NODE, slurmUnavailable, startSlurmCluster, TEST_GPU_TYPE, TEST_PARTITIONS, type SlurmCluster } from '../helpers/slurm';
import { startTestSshd, type TestSshd } from '../helpers/sshd';

const options = { nodes: 1, accounting: false } as const;
const unavailable = slurmUnavailable(options);
const LABEL = 'test-cluster';
// TEST_PARTITIONS: `debug` is the default, then `short`.
const DEFAULT_PARTITION = 'debug';

async function addClusterHost(page: Page, sshd: TestSshd): Promise<void> {
  await page.getByLabel(/^Label/).fill(LABEL);
  await page.getByLabel('Address', { exact: true }).fill(sshd.host);
  await page.getByLabel('Port', { exact: true }).fill(String(sshd.port));
  await page.getByLabel(/^User/).fill(sshd.user);
  await page.getByLabel(/^Identity file/).fill(sshd.identityFile);
  const mark = page.getByRole('checkbox', { name: 'Slurm cluster (a login node)' });
  await mark.check();
  await mark.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: `Added ${LABEL}.` })).toBeVisible();
  // Reading it once here accepts the login node's host key, so the wizard's own read goes through without asking.
  const card = page.getByRole('article', { name: LABEL });
  await card.getByRole('button', { name: `Read the Slurm cluster of ${LABEL}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Unknown host key' });
  await dialog.getByRole('button', { name: 'Accept and connect' }).click();
  await expect(card.getByRole('region', { name: `Slurm cluster of ${LABEL}` })).toBeVisible({ timeout: 45_000 });
}

/** Scrolls the element to the top of its scrolling pane, so a screenshot of the window shows it. */
async function scrollToTop(locator: Locator): Promise<void> {
  await locator.evaluate((el) => el.scrollIntoView({ block: 'start' }));
}

/** At 1280 px the jobs table fits the plan: no column is hidden behind its sideways scroll. */
async function expectNoSidewaysScroll(table: Locator): Promise<void> {
  const sizes = await table.evaluate((el) => ({ scroll: el.parentElement!.scrollWidth, client: el.parentElement!.clientWidth }));
  expect(sizes.scroll, `the table is ${sizes.scroll} px wide in ${sizes.client} px`).toBeLessThanOrEqual(sizes.client);
}

test.describe('A study on a Slurm cluster in the wizard', () => {
  test.skip(unavailable !== null, `Slurm test cluster unavailable: ${unavailable}`);

  let sshd: TestSshd;
  let cluster: SlurmCluster;

  test.beforeAll(async () => {
    sshd = await startTestSshd({ nvidiaSmi: false });
    cluster = await startSlurmCluster(options);
    await cluster.addToProfile(sshd.homeDir);
  });
  test.afterAll(async () => {
    await Promise.all([cluster?.stop(), sshd?.stop()]);
  });

  test('the Slurm section fills from the cluster, and the plan lists one batch job per server configuration', async ({ page, core }) => {
    test.setTimeout(150_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.setViewportSize({ width: 1280, height: 800 });
    const wizard = page.getByRole('region', { name: 'New study' });
    const next = wizard.getByRole('button', { name: 'Next' });
    const heading = wizard.getByRole('heading', { level: 2 });
    const slurm = wizard.getByRole('region', { name: 'Slurm' });

    await page.goto(core.pageUrl);
    await expect(page.getByRole('heading', { level: 1, name: /Hosts/ })).toBeVisible();
    await test.step('add the login node as a Slurm cluster host and read it', () => addClusterHost(page, sshd));

    await test.step('New study → model → the cluster host, whose Slurm section fills from the cluster', async () => {
      await page.getByRole('button', { name: 'Studies' }).click();
      await page.getByRole('button', { name: 'New study', exact: true }).click();
      await wizard.getByLabel('Model', { exact: true }).fill('Qwen/Qwen3-8B');
      await next.click();
      await expect(heading).toHaveText('Step 2 of 8 · Hardware');
      await wizard.getByRole('checkbox', { name: new RegExp(`^${LABEL}`) }).check();

      const partition = slurm.getByRole('combobox', { name: 'Partition' });
      await expect(partition).toHaveValue('', { timeout: 45_000 });
      await expect(partition.locator('option:checked')).toHaveText(`Cluster default (${DEFAULT_PARTITION})`);
      await expect(partition.locator('option')).toHaveText([`Cluster default (${DEFAULT_PARTITION})`, ...TEST_PARTITIONS.map((p) => (p.name === DEFAULT_PARTITION ? `${p.name} (default)` : p.name))]);
      await expect(slurm.getByRole('combobox', { name: 'GPU type' })).toHaveValue(TEST_GPU_TYPE);
      // `fake` names no GPU Servelab knows: the planning GPU waits for a choice.
      await expect(slurm.getByRole('combobox', { name: 'GPU to plan for' })).toHaveValue('');
      await expect(slurm.getByRole('textbox', { name: 'GPUs per node' })).toHaveValue(String(GPUS_PER_NODE));
      await expect(slurm.getByText(/^Accounting cannot be read/)).toBeVisible();
      // What is left to fix names the host by its label, as the list of hosts above does.
      await expect(wizard.getByText(`GPU to plan for on ${LABEL} is required: the GPU type names no GPU Servelab knows, so choose the one its nodes have`)).toBeVisible();
      await scrollToTop(slurm);
      await screenshotBothThemes(page, 'wizard-slurm-section');
    });

    await test.step('the Slurm fields from the keyboard alone', async () => {
      const partition = slurm.getByRole('combobox', { name: 'Partition' });
      await partition.focus();
      // A closed select takes arrow keys as choices: down to `debug (default)` names the partition outright.
      await page.keyboard.press('ArrowDown');
      await expect(partition).toHaveValue(DEFAULT_PARTITION);
      await page.keyboard.press('Tab');
      await expect(slurm.getByRole('textbox', { name: /^Account/ })).toBeFocused();
      await page.keyboard.press('Tab');
      await expect(slurm.getByRole('textbox', { name: /^QOS/ })).toBeFocused();
      await page.keyboard.press('Tab');
      await expect(slurm.getByRole('combobox', { name: 'GPU type' })).toBeFocused();
      await page.keyboard.press('Tab');
      const gpu = slurm.getByRole('combobox', { name: 'GPU to plan for' });
      await expect(gpu).toBeFocused();
      await page.keyboard.press('ArrowDown');
      await expect(gpu).toHaveValue('h100');
      await expect(gpu.locator('option:checked')).toHaveText('NVIDIA H100 80GB HBM3');
      await page.keyboard.press('Tab');
      const perNode = slurm.getByRole('textbox', { name: 'GPUs per node' });
      await expect(perNode).toBeFocused();
      await expect(perNode).toHaveValue(String(GPUS_PER_NODE));
      await page.keyboard.press('Tab');
      await expect(slurm.getByRole('textbox', { name: 'Jobs in the queue at once' })).toBeFocused();
      await page.keyboard.press('Tab');
      await expect(slurm.getByRole('radio', { name: /^From the estimate/ })).toBeFocused();
      await expect(slurm.getByRole('radio', { name: /^From the estimate/ })).toBeChecked();
      await expect(wizard.getByRole('alert')).toHaveCount(0);
      await scrollToTop(slurm);
      await screenshotBothThemes(page, 'wizard-slurm-section-chosen');
      await expectAccessibleInBothThemes(page, 'the wizard’s Slurm section');
      await next.click();
    });

    await test.step('goal, vLLM, the attention backend’s two candidates, a small workload, a grid', async () => {
      await expect(heading).toHaveText('Step 3 of 8 · Goal');
      await next.click();
      await expect(heading).toHaveText('Step 4 of 8 · Engines');
      await wizard.getByRole('checkbox', { name: 'Use vLLM' }).check();
      await next.click();
      await expect(heading).toHaveText('Step 5 of 8 · Stages');
      await expect(wizard.getByRole('region', { name: /Attention backend$/ }).getByLabel('Candidate id')).toHaveCount(2);
      for (;;) {
        const other = wizard.getByRole('button', { name: /^Remove stage (?!Attention backend$)/ });
        if ((await other.count()) === 0) break;
        await other.first().click();
      }
      await next.click();
      await expect(heading).toHaveText('Step 6 of 8 · Workloads');
      await wizard.getByLabel('Workload', { exact: true }).selectOption('random-128-4');
      await wizard.getByLabel('Prompts', { exact: true }).fill('50');
      await next.click();
      await expect(heading).toHaveText('Step 7 of 8 · Strategy');
      // A grid plans every candidate up front, so the plan holds both configurations (greedy plans stage by stage).
      await wizard.getByRole('radio', { name: /^Grid/ }).check();
      await next.click();
      await expect(heading).toHaveText('Step 8 of 8 · Review');
    });

    const jobs = wizard.getByRole('table', { name: 'Slurm jobs the study submits' });
    await test.step('the plan preview lists one batch job per server configuration, asking for gpu:fake:<n> in the partition', async () => {
      await wizard.getByRole('button', { name: 'Save draft' }).click();
      const plan = wizard.getByRole('region', { name: 'Plan' });
      // The baseline and the two candidates: each a server configuration of its own.
      await expect(plan.getByTestId('plan-launches')).toHaveText(/^[2-9]$/, { timeout: 30_000 });
      const launches = Number(await plan.getByTestId('plan-launches').textContent());
      const rows = jobs.locator('tbody tr');
      await expect(rows).toHaveCount(launches);
      await expect(jobs.getByRole('columnheader')).toHaveText(['Job', 'GRES', 'Partition', 'Time limit (h:mm)', 'Trials', 'Workloads', 'Estimate']);
      await expect(wizard.getByText('Every job: account default, QOS default.')).toBeVisible();
      // Each row: the configuration, and under it the job's own name (the study's prefix and its server key).
      const names = await jobs.locator('tbody th .mono').allTextContents();
      expect(new Set(names).size, names.join(', ')).toBe(launches);
      for (const name of names) expect(name).toMatch(/^servelab-qwen3-8b-[\w-]+-[0-9a-f]{8}$/);
      await expect(jobs.locator('tbody th')).toContainText([/^vLLM 0\.11\.0 at its defaults/, /VLLM_ATTENTION_BACKEND=/, /VLLM_ATTENTION_BACKEND=/]);
      for (const row of await rows.all()) {
        const cells = row.getByRole('cell');
        await expect(cells.nth(0)).toHaveText(new RegExp(`^gpu:${TEST_GPU_TYPE}:[1-${GPUS_PER_NODE}]$`));
        await expect(cells.nth(1)).toHaveText(DEFAULT_PARTITION);
        await expect(cells.nth(2)).toHaveText(/^\d+:\d\d · from the estimate$/);
      }
      await expect(wizard.getByText('GPU 0 · NVIDIA H100 80GB HBM3').first()).toBeVisible();
      await expectNoSidewaysScroll(jobs);
      await scrollToTop(wizard.getByRole('region', { name: 'Slurm jobs' }));
      await screenshotBothThemes(page, 'wizard-slurm-jobs');
      await expectAccessibleInBothThemes(page, 'the wizard’s plan with its Slurm jobs');
    });

    await test.step('in Turkish: the jobs table and the Slurm section', async () => {
      await page.getByRole('combobox', { name: 'Language' }).selectOption({ label: 'Türkçe' });
      await expect(page.locator('html')).toHaveAttribute('lang', 'tr');
      const table = page.locator('table').filter({ has: page.locator('td', { hasText: `gpu:${TEST_GPU_TYPE}:` }) });
      await expect(table.locator('tbody tr')).not.toHaveCount(0);
      await expectNoSidewaysScroll(table);
      await scrollToTop(table);
      await screenshotBothThemes(page, 'wizard-slurm-jobs-tr');
      for (let i = 0; i < 6; i++) await page.getByRole('button', { name: /^Geri$/ }).click();
      const section = page.locator('section.wizard-slurm');
      await expect(section).toBeVisible();
      await scrollToTop(section);
      await screenshotBothThemes(page, 'wizard-slurm-section-tr');
      await expectAccessibleInBothThemes(page, 'the wizard’s Slurm section in Turkish');
      await page.getByRole('combobox', { name: 'Dil' }).selectOption({ label: 'English' });
    });

    expect(errors).toEqual([]);
  });
});
