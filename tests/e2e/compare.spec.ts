import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { repoRoot } from '../helpers/repo';
import { expect, screenshotBothThemes, test } from './fixtures';

const FIXTURES = join(repoRoot, 'tests/fixtures/vllm-bench-text');
const VLLM = 'qwen3-8b_h100_vllm-0.11.0_sharegpt_c4.txt';
const SGLANG = 'qwen3-8b-fp8_h100_sglang-0.5.3_flashinfer_sharegpt_c4.txt';

/** The cell of `row` under the column headed `header` in `table`. */
async function cellUnder(table: Locator, row: Locator, header: string): Promise<Locator> {
  const headers = await table.getByRole('columnheader').allTextContents();
  const index = headers.findIndex((text) => text.startsWith(header));
  expect(index, `no column ${header} in ${headers.join(' | ')}`).toBeGreaterThan(0);
  return row.getByRole('cell').nth(index - 1);
}

/** The change of "+205.33 (+320.8%)" as a number; a minus is printed as "−". */
function signedNumber(text: string): number {
  return Number((text.trim().split(' ')[0] ?? '').replace('−', '-').replace('+', ''));
}

async function libraryMeanTtft(page: Page, title: string): Promise<number> {
  const table = page.getByRole('table', { name: 'Results' });
  const row = table.getByRole('row').filter({ has: page.getByRole('button', { name: `Show details of ${title}` }) });
  const headers = await table.getByRole('columnheader').allTextContents();
  const index = headers.findIndex((text) => text.startsWith('Mean TTFT (ms)'));
  return Number(await row.getByRole('cell').nth(index).textContent());
}

test.describe('Comparing results against the real core', () => {
  test('import two printed results → select both → Compare: the delta is their difference, and the charts draw', async ({ page, core }) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(core.pageUrl);
    await page.getByRole('button', { name: 'Results' }).click();
    await page.getByLabel('Result files to import').setInputFiles([join(FIXTURES, VLLM), join(FIXTURES, SGLANG)]);
    await expect(page.getByRole('status', { name: 'Import summary' })).toContainText('Imported 2 results from 2 files.');

    const vllmTitle = `${VLLM}#1`;
    const sglangTitle = `${SGLANG}#1`;
    const vllmTtft = await libraryMeanTtft(page, vllmTitle);
    const sglangTtft = await libraryMeanTtft(page, sglangTitle);
    expect(vllmTtft).toBe(64);
    expect(sglangTtft).toBeGreaterThan(0);

    const compare = page.getByRole('button', { name: /^Compare selected/ });
    await expect(compare).toBeDisabled();
    await page.getByRole('checkbox', { name: `Select ${vllmTitle}` }).check();
    await page.getByRole('checkbox', { name: `Select ${sglangTitle}` }).check();
    await page.getByRole('button', { name: 'Compare selected (2)' }).click();

    const dialog = page.getByRole('dialog', { name: 'Compare results' });
    await expect(dialog).toBeVisible();
    await dialog.getByLabel('Baseline').selectOption({ label: vllmTitle });
    const table = dialog.getByRole('table', { name: 'Comparison' });
    const ttftRow = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Mean TTFT (ms)' }) });
    const sglangCell = await cellUnder(table, ttftRow, sglangTitle);
    await expect(sglangCell.locator('.compare-value')).toHaveText(sglangTtft.toFixed(2));
    const delta = signedNumber((await sglangCell.locator('.compare-delta-number').textContent()) ?? '');
    expect(delta).toBeCloseTo(sglangTtft - vllmTtft, 2);
    // Slower first tokens than the baseline: worse, said in words.
    await expect(sglangCell.locator('.compare-verdict')).toHaveText('worse');
    await expect(await cellUnder(table, ttftRow, vllmTitle)).toHaveText(vllmTtft.toFixed(2));

    const throughputRow = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Total token throughput (tok/s)' }) });
    await expect((await cellUnder(table, throughputRow, sglangTitle)).locator('.compare-verdict')).toHaveText('better');

    const chart = dialog.getByRole('figure', { name: 'Total token throughput per run' });
    await chart.scrollIntoViewIfNeeded();
    await expect(chart.locator('canvas').first()).toBeVisible();
    await expect(dialog.getByRole('figure', { name: 'TTFT percentiles per run' }).locator('canvas').first()).toBeVisible();
    await screenshotBothThemes(page, 'compare-results', { height: 1400 });

    expect(errors).toEqual([]);
  });
});
