import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { expect, screenshotBothThemes, test } from './fixtures';

// The published latency guide, verbatim (tests/fixtures/guides/README.md), opened in a browser against the real core.
const FIXTURE = join(repoRoot, 'tests', 'fixtures', 'guides', 'qwen3-8b-h100-latency.tr.txt');

test('Open guide… in a browser: the study, the guide’s problems and its published results', async ({ page, core }) => {
  // A typed path writes the study beside the guide: a copy in the core's own folder keeps the repository clean.
  const GUIDE = join(core.home, 'qwen3-8b-h100-latency.tr.txt');
  await copyFile(FIXTURE, GUIDE);
  await page.goto(core.pageUrl);
  await page.getByRole('button', { name: 'Studies' }).click();
  await page.getByRole('button', { name: 'Open guide…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Open guide' });
  await dialog.getByRole('textbox').fill(GUIDE);
  await dialog.getByRole('button', { name: 'Open as a study' }).click();
  await expect(page.getByRole('heading', { level: 1, name: /Qwen3-8B gecikme optimizasyonu/ })).toBeVisible();

  const panel = page.getByRole('group', { name: 'Opened from a guide' });
  await expect(panel).toContainText('25 published results kept beside yours');
  await expect(panel).toContainText('qwen3-8b-h100-latency.tr.txt:1015');
  await expect(panel).toContainText('+66.2%');
  await screenshotBothThemes(page, 'study-from-guide');

  await page.getByRole('tab', { name: 'Results' }).click();
  const table = page.getByRole('table', { name: 'Trials' });
  await expect(table.locator('[data-reference-id="published-l114"]')).toContainText('qwen3-8b-h100-latency.tr.txt:114');
  await screenshotBothThemes(page, 'study-from-guide-results');
});
