import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, screenshotBothThemes, test } from './fixtures';

const NAME = 'Qwen3-8B, lowest latency on one H100';

test.describe('The study wizard against the real core', () => {
  test('New study → a small vLLM study on the demo lab → plan with its estimate → Create opens it', async ({ page, core }) => {
    test.setTimeout(180_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const wizard = page.getByRole('region', { name: 'New study' });
    const next = wizard.getByRole('button', { name: 'Next' });
    const heading = wizard.getByRole('heading', { level: 2 });
    const projectPath = join(core.dataDir, 'studies', 'qwen3-8b-lowest-latency-on-one-h100.servelab');

    await test.step('Studies → New study opens the wizard on the model step', async () => {
      await page.goto(core.pageUrl);
      await page.getByRole('button', { name: 'Studies' }).click();
      await page.getByRole('button', { name: 'New study', exact: true }).click();
      await expect(heading).toHaveText('Step 1 of 8 · Model');
      await expect(next).toBeDisabled();
    });

    await test.step('1. Model: a Qwen3 id, with its -FP8 and -AWQ checkpoints suggested', async () => {
      await expect(page).toHaveTitle('Servelab — New study');
      await wizard.getByLabel('Model', { exact: true }).fill('Qwen/Qwen3-8B');
      // Unsaved changes show in the window title and, for screen readers, in the status bar.
      await expect(page).toHaveTitle('• Servelab — New study');
      await expect(page.getByRole('status', { name: 'Status' })).toContainText('unsaved changes');
      await expect(wizard.getByRole('button', { name: 'Add Qwen/Qwen3-8B-FP8' })).toBeVisible();
      await expect(wizard.getByRole('button', { name: 'Add Qwen/Qwen3-8B-AWQ' })).toBeVisible();
      await screenshotBothThemes(page, 'wizard-1-model');
      await next.click();
    });

    await test.step('2. Hardware: the demo lab with one simulated H100', async () => {
      await expect(heading).toHaveText('Step 2 of 8 · Hardware');
      await expect(wizard.getByRole('status')).toContainText('Hosts needs at least one host');
      await wizard.getByRole('checkbox', { name: /^Demo lab/ }).check();
      await expect(wizard.getByLabel('Simulated GPU', { exact: true })).toHaveValue('h100');
      await expect(wizard.getByRole('checkbox', { name: 'GPU 0 · H100 (simulated)' })).toBeChecked();
      await screenshotBothThemes(page, 'wizard-2-hardware');
    });

    await test.step('Going to Hosts and back keeps the draft and its step', async () => {
      await page.getByRole('button', { name: 'Hosts' }).click();
      await expect(wizard).toBeHidden();
      await expect(page).toHaveTitle('• Servelab — New study');
      await screenshotBothThemes(page, 'wizard-unsaved-elsewhere');
      await page.getByRole('button', { name: 'Studies' }).click();
      await expect(heading).toHaveText('Step 2 of 8 · Hardware');
      await expect(wizard.getByRole('checkbox', { name: /^Demo lab/ })).toBeChecked();
      await wizard.getByRole('button', { name: 'Back' }).click();
      await expect(wizard.getByLabel('Model', { exact: true })).toHaveValue('Qwen/Qwen3-8B');
      await next.click();
      await expect(heading).toHaveText('Step 2 of 8 · Hardware');
      await next.click();
    });

    await test.step('3. Goal: lowest mean latency, the default', async () => {
      await expect(heading).toHaveText('Step 3 of 8 · Goal');
      await expect(wizard.getByRole('radio', { name: /Lowest latency/ })).toBeChecked();
      await screenshotBothThemes(page, 'wizard-3-goal');
      // Enter in a text box moves on.
      await wizard.getByLabel('Margin (%)').press('Enter');
    });

    await test.step('4. Engines: vLLM only, to be installed on the fresh demo lab', async () => {
      await expect(heading).toHaveText('Step 4 of 8 · Engines');
      await wizard.getByRole('checkbox', { name: 'Use vLLM' }).check();
      await expect(wizard.getByLabel('vLLM version')).toHaveValue('0.11.0');
      await expect(wizard.getByTestId('wizard-install-vllm')).toHaveText(/Will be installed on Demo lab/);
      await screenshotBothThemes(page, 'wizard-4-engines');
      await next.click();
    });

    await test.step('5. Stages: the method’s vLLM stages, cut down to the attention backend’s two candidates', async () => {
      await expect(heading).toHaveText('Step 5 of 8 · Stages');
      const attention = wizard.getByRole('region', { name: /Attention backend$/ });
      await expect(attention.getByLabel('Candidate id')).toHaveCount(2);
      await screenshotBothThemes(page, 'wizard-5-stages', { height: 1600 });
      for (;;) {
        const other = wizard.getByRole('button', { name: /^Remove stage (?!Attention backend$)/ });
        if ((await other.count()) === 0) break;
        await other.first().click();
      }
      await expect(wizard.getByRole('region', { name: /^Stage \d+:/ })).toHaveCount(1);
      await expect(wizard.getByRole('region', { name: 'Stage 1: Attention backend' })).toBeVisible();
      await next.click();
    });

    await test.step('6. Workloads: the random 128/4 preset with 50 prompts', async () => {
      await expect(heading).toHaveText('Step 6 of 8 · Workloads');
      await wizard.getByLabel('Workload', { exact: true }).selectOption('random-128-4');
      await expect(wizard.getByLabel('Input length')).toHaveValue('128');
      await wizard.getByLabel('Prompts', { exact: true }).fill('');
      await expect(wizard.getByText('Primary workload prompts is required').first()).toBeVisible();
      await expect(next).toBeDisabled();
      await wizard.getByLabel('Prompts', { exact: true }).fill('50');
      await screenshotBothThemes(page, 'wizard-6-workloads', { height: 1300 });
      await next.click();
    });

    await test.step('7. Strategy: greedy, one repeat', async () => {
      await expect(heading).toHaveText('Step 7 of 8 · Strategy');
      await expect(wizard.getByRole('radio', { name: /Greedy/ })).toBeChecked();
      await screenshotBothThemes(page, 'wizard-7-strategy');
      await next.click();
    });

    await test.step('8. Review: Save draft writes the project and shows the plan with its estimate', async () => {
      await expect(heading).toHaveText('Step 8 of 8 · Review');
      await expect(wizard.getByLabel('Study name')).toHaveValue(NAME);
      await expect(wizard.getByLabel('Project file')).toHaveValue(projectPath);
      const summary = wizard.getByRole('definition').filter({ hasText: 'primary:' });
      await expect(summary).toContainText('Random 128 in / 4 out, 50 prompts');
      await wizard.getByRole('button', { name: 'Save draft' }).click();
      const plan = wizard.getByRole('region', { name: 'Plan' });
      await expect(plan.getByTestId('plan-trials')).toHaveText(/^[1-9]\d*$/, { timeout: 30_000 });
      await expect(plan.getByTestId('plan-launches')).toHaveText(/^[1-9]\d*$/);
      await expect(plan.getByTestId('plan-gpu-time')).toHaveText(/\d+ (s|min)|\d+ h \d+ min/);
      await expect(plan.getByTestId('plan-rejected')).toHaveText('0');
      await expect(plan).toContainText(/GPU 0 · NVIDIA H100/);
      await access(projectPath);
      // Saved: the title loses its mark.
      await expect(page).toHaveTitle('Servelab — New study');
      await screenshotBothThemes(page, 'wizard-8-review', { height: 1400 });
    });

    await test.step('Create opens the new study', async () => {
      await wizard.getByRole('button', { name: 'Create' }).click();
      await expect(wizard).toBeHidden();
      await expect(page.getByRole('heading', { level: 1, name: new RegExp(NAME) })).toBeVisible();
      await expect(page.getByText(projectPath, { exact: true })).toBeVisible();
      await expect(page).toHaveTitle(`Servelab — ${NAME}`);
    });

    await test.step('? lists the keyboard shortcuts; Ctrl+1 goes to Hosts', async () => {
      await page.locator('body').press('?');
      const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
      await expect(dialog.getByRole('cell', { name: 'Save the open project as a copy' })).toBeVisible();
      await screenshotBothThemes(page, 'shortcuts-dialog');
      await page.keyboard.press('Escape');
      await expect(dialog).toBeHidden();
      await page.keyboard.press('Control+1');
      await expect(page.getByRole('heading', { level: 1, name: /^Hosts/ })).toBeVisible();
    });

    expect(errors).toEqual([]);
  });
});
