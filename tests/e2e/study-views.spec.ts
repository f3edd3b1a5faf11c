import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator } from '@playwright/test';
import { repoRoot } from '../helpers/repo';
import { expectAccessibleInBothThemes } from './a11y';
import { expect, screenshotBothThemes, test } from './fixtures';

// A finished study (the latency study of tests/helpers/study-projects.ts, stored as a fixture) opened in the real
// renderer: how its recommendation, report and description read, without running anything.
const FIXTURE = join(repoRoot, 'tests/fixtures/projects/latency-study-done.servelab');
const DESCRIPTION = 'Mean end-to-end latency at concurrency 4, vLLM against SGLang against TensorRT-LLM, then SGLang one option at a time.';

/**
 * Where each item is drawn: its box, widened on the left by its list marker when it has one outside its box (the
 * browser draws "2." there, in the gap, over the item before), measured in the item's own font.
 */
async function footprintsOf(items: Locator): Promise<{ x: number; y: number; width: number; height: number }[]> {
  return items.evaluateAll((elements) =>
    elements.map((element, i) => {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      let left = box.left;
      if (style.display === 'list-item' && style.listStyleType !== 'none' && style.listStylePosition === 'outside') {
        const context = document.createElement('canvas').getContext('2d') as CanvasRenderingContext2D;
        context.font = style.font;
        left -= context.measureText(`${i + 1}. `).width;
      }
      return { x: left, y: box.top, width: box.right - left, height: box.height };
    }),
  );
}

test('a finished study: the kept candidates by label, side by side; the report as a document; the description once', async ({ page, core }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const project = JSON.parse(await readFile(FIXTURE, 'utf8')) as { study: { description?: string }; state: { recommendation: { command: string } } };
  project.study.description = DESCRIPTION;
  const recommended = project.state.recommendation.command;
  const path = join(core.dataDir, 'studies', 'latency-a.servelab');
  await mkdir(join(core.dataDir, 'studies'), { recursive: true });
  await writeFile(path, JSON.stringify(project));

  await page.goto(core.pageUrl);
  await page.getByRole('button', { name: 'Studies' }).click();
  await page.getByRole('button', { name: 'Open project…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Open project' });
  await dialog.getByLabel('Project file').fill(path);
  await dialog.getByRole('button', { name: 'Open', exact: true }).click();
  await expect(page.getByRole('tab', { name: 'Recommendation' })).toHaveAttribute('aria-selected', 'true');

  await test.step('the candidates kept read as the study labels them, and no item is drawn over another', async () => {
    const list = page.getByRole('list', { name: 'Candidates kept' });
    const items = list.getByRole('listitem');
    await expect(items).toHaveText(['SGLang 0.5.3.post3 defaults', 'FP8 checkpoint (Qwen/Qwen3-8B-FP8)', 'EAGLE3 Tengyunw/qwen3_8b_eagle3, steps 4, top-k 4, draft tokens 16']);
    await expect(items.nth(1)).toHaveAttribute('title', 'fp8');
    // Narrow enough that the list wraps onto a second line.
    for (const width of [1280, 520]) {
      await page.setViewportSize({ width, height: 900 });
      const boxes = await footprintsOf(items);
      expect(boxes).toHaveLength(3);
      for (let i = 0; i < boxes.length; i++) {
        for (let j = i + 1; j < boxes.length; j++) {
          const [a, b] = [boxes[i]!, boxes[j]!];
          const apart = a.x + a.width <= b.x + 0.5 || b.x + b.width <= a.x + 0.5 || a.y + a.height <= b.y + 0.5 || b.y + b.height <= a.y + 0.5;
          expect(apart, `at ${width} px, item ${i} ${JSON.stringify(a)} overlaps item ${j} ${JSON.stringify(b)}`).toBe(true);
        }
      }
      // Nothing spills out of the list either (a marker or an arrow drawn outside it would).
      const outer = (await list.boundingBox())!;
      for (const box of boxes) expect(box.x).toBeGreaterThanOrEqual(outer.x - 0.5);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    // The description belongs to the plan, not above the recommendation.
    await expect(page.getByText(DESCRIPTION)).toHaveCount(0);
    await screenshotBothThemes(page, 'study-views-recommendation', { height: 1000 });
  });

  await test.step('the report reads as a document: headings, tables, the command as code; its Markdown stays one click away', async () => {
    await page.getByRole('tab', { name: 'Report' }).click();
    const report = page.getByRole('article', { name: 'Report' });
    await expect(report.getByRole('heading', { level: 2 })).toHaveText('Qwen/Qwen3-8B on 1× NVIDIA H100 80GB HBM3: lowest mean latency per request');
    await expect(report.getByRole('heading', { level: 3, name: 'Recommendation' })).toBeVisible();
    await expect(report.locator('pre code').first()).toHaveText(recommended);
    await expect(report.getByRole('table').first()).toBeVisible();
    await expect(report.getByText('Simulated results.', { exact: true })).toBeVisible();
    expect(await report.textContent()).not.toContain('## ');
    await expect(report.getByText(DESCRIPTION, { exact: false })).toBeVisible();
    await screenshotBothThemes(page, 'study-views-report', { height: 1200 });
    await expectAccessibleInBothThemes(page, 'Report drawn as a document');
    await page.getByRole('button', { name: 'Show Markdown' }).click();
    await expect(page.getByLabel('Report source (Markdown)')).toContainText('## Recommendation');
  });

  await test.step('the description is shown once, on the Plan tab', async () => {
    await page.getByRole('tab', { name: 'Plan' }).click();
    await expect(page.getByText(DESCRIPTION)).toHaveCount(1);
    await page.getByRole('tab', { name: 'Results' }).click();
    await expect(page.getByText(DESCRIPTION)).toHaveCount(0);
  });

  expect(errors).toEqual([]);
});
