import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { repoRoot } from '../helpers/repo';
import { expect, screenshotBothThemes, test } from './fixtures';

const PRINTED_RESULT = join(repoRoot, 'tests/fixtures/vllm-bench-text/qwen3-8b_h100_vllm-0.11.0_sharegpt_c4.txt');

/** The cell of `row` under the column headed `header` in the results table. */
async function cellUnder(page: Page, row: Locator, header: string): Promise<Locator> {
  const headers = await page.getByRole('table', { name: 'Results' }).getByRole('columnheader').allTextContents();
  const index = headers.findIndex((text) => text.startsWith(header));
  expect(index, `no column ${header} in ${headers.join(' | ')}`).toBeGreaterThan(0);
  return row.getByRole('cell').nth(index);
}

test.describe('Benchmarks and the results library against the real core', () => {
  test('benchmark a launched vLLM server → Show in Results → import a printed result and a broken one', async ({ page, core }) => {
    test.setTimeout(300_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await test.step('install vLLM 0.11.0 on the demo lab and launch Qwen/Qwen3-8B', async () => {
      await page.goto(core.pageUrl);
      await page.getByRole('button', { name: 'Engines' }).click();
      await expect(page.getByLabel('Host', { exact: true })).toHaveValue('demo-lab');
      const install = page.getByRole('region', { name: 'Install an engine' });
      await install.getByLabel('Engine', { exact: true }).selectOption('vllm');
      await install.getByLabel('Version', { exact: true }).selectOption('0.11.0');
      await install.getByRole('button', { name: 'Install' }).click();
      await expect(install.getByText(/Installed vLLM 0\.11\.0\.|vLLM 0\.11\.0 is already installed\./)).toBeVisible({ timeout: 90_000 });
      const launch = page.getByRole('region', { name: 'Launch server' });
      await expect(launch.getByLabel('Installed version')).toHaveValue('0.11.0', { timeout: 30_000 });
      await expect(launch.getByTestId('command-preview')).toContainText('vllm serve Qwen/Qwen3-8B');
      await launch.getByRole('button', { name: 'Launch' }).click();
      await expect(launch.getByTestId('server-state')).toHaveText('Ready', { timeout: 90_000 });
    });

    let meanTtft = '';
    await test.step('run the sharegpt-c4 preset with 20 prompts: progress, then the result summary', async () => {
      const bench = page.getByRole('region', { name: 'Run benchmark' });
      await bench.getByLabel('Workload').selectOption('sharegpt-c4');
      await bench.getByLabel('Number of prompts').fill('20');
      await expect(bench.getByText('Runs: ShareGPT, 20 prompts, concurrency 4')).toBeVisible();
      await bench.getByRole('button', { name: 'Run benchmark' }).click();
      const bar = bench.getByRole('progressbar', { name: 'Benchmark progress' });
      await expect(bar).toHaveAttribute('aria-valuemax', '20', { timeout: 60_000 });
      await screenshotBothThemes(page, 'bench-running', { height: 1600 });
      await expect(bench.getByText('Benchmark finished.')).toBeVisible({ timeout: 120_000 });
      const summary = bench.getByRole('group', { name: 'Benchmark result' });
      await expect(summary.getByText('Mean TTFT (ms)')).toBeVisible();
      await expect(summary.getByText('Simulated', { exact: true })).toBeVisible();
      const completed = summary.locator('dt', { hasText: /^Completed$/ }).locator('xpath=following-sibling::dd[1]');
      await expect(completed).toHaveText('20');
      meanTtft = (await summary.locator('dt', { hasText: /^Mean TTFT \(ms\)$/ }).locator('xpath=following-sibling::dd[1]').textContent()) ?? '';
      expect(meanTtft).toMatch(/^\d+\.\d\d$/);
      // The pane draws only the lines in view: search brings the result block's header there.
      await bench.getByLabel('Search Benchmark log').fill('Serving Benchmark Result');
      await expect(bench.getByText('1 of 1 matching line')).toBeVisible();
      await expect(bench.getByRole('log', { name: 'Benchmark log lines' }).locator('mark.is-current')).toHaveText('Serving Benchmark Result');
      await screenshotBothThemes(page, 'bench-done', { height: 1800 });
      await summary.getByRole('button', { name: 'Show in Results' }).click();
    });

    await test.step('the measured run is in Results with its numbers and provenance', async () => {
      await expect(page.getByRole('heading', { level: 1, name: /^Results/ })).toBeVisible();
      await expect(page.getByRole('button', { name: 'Results' })).toHaveAttribute('aria-current', 'page');
      const details = page.getByRole('complementary', { name: 'Result details' });
      await expect(details).toBeVisible();
      await expect(details.getByRole('heading', { level: 2 })).toContainText('ShareGPT, 20 prompts, concurrency 4');
      const provenance = details.getByRole('region', { name: 'Provenance' });
      await expect(provenance.locator('dt', { hasText: /^Engine$/ }).locator('xpath=following-sibling::dd[1]')).toHaveText('vLLM 0.11.0');
      await expect(provenance.locator('dt', { hasText: /^Model$/ }).locator('xpath=following-sibling::dd[1]')).toHaveText('Qwen/Qwen3-8B');
      await expect(details.getByRole('region', { name: 'Client command' })).toContainText('vllm bench serve');
      await expect(details.getByRole('region', { name: 'Server command' })).toContainText('vllm serve Qwen/Qwen3-8B');
      await expect(details.getByRole('region', { name: 'Metrics' })).toContainText('Mean TTFT (ms)');
      await screenshotBothThemes(page, 'results-details', { height: 1100 });
      await details.getByRole('button', { name: 'Close details' }).click();

      const row = page.getByRole('row').filter({ has: page.getByRole('button', { name: /^Show details of ShareGPT, 20 prompts/ }) });
      await expect(row).toBeVisible();
      await expect(row.getByText('Simulated', { exact: true })).toBeVisible();
      await expect(await cellUnder(page, row, 'Engine')).toHaveText('vLLM 0.11.0');
      await expect(await cellUnder(page, row, 'Completed')).toHaveText('20');
      await expect(await cellUnder(page, row, 'Mean TTFT (ms)')).toHaveText(meanTtft);
    });

    await test.step('import a printed vLLM result through the file input: its row sits beside the measured one', async () => {
      await page.getByLabel('Result files to import').setInputFiles(PRINTED_RESULT);
      const summary = page.getByRole('status', { name: 'Import summary' });
      await expect(summary).toContainText('Imported 1 result from 1 file.');
      const imported = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Show details of qwen3-8b_h100_vllm-0.11.0_sharegpt_c4.txt#1' }) });
      await expect(imported).toBeVisible();
      await expect(await cellUnder(page, imported, 'Mean TTFT (ms)')).toHaveText('64.00');
      await expect(await cellUnder(page, imported, 'Kind')).toHaveText('Imported');
      await expect(imported.getByText('Simulated', { exact: true })).toHaveCount(0);
      await expect(page.getByRole('table', { name: 'Results' }).getByRole('row')).toHaveCount(3);
      await screenshotBothThemes(page, 'results-library');
    });

    await test.step('a broken file is named with its line', async () => {
      await page.getByLabel('Result files to import').setInputFiles({
        name: 'broken-result.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('============ Serving Benchmark Result ============\nSuccessful requests:                     abc\n'),
      });
      const summary = page.getByRole('status', { name: 'Import summary' });
      await expect(summary).toContainText('No result was imported.');
      await expect(summary.getByRole('listitem')).toContainText(['broken-result.txt:2: "Successful requests:" has no number (it says "abc")']);
      await expect(page.getByRole('table', { name: 'Results' }).getByRole('row')).toHaveCount(3);
      await screenshotBothThemes(page, 'results-import-error');
    });

    expect(errors).toEqual([]);
  });
});
