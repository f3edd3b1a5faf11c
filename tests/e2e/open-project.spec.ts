// A project named when the core starts (`servelab serve PROJECT`, as a double-click or a second launch names one
// to the desktop app) opens in the page once it signs in: the core keeps the request until a window takes it.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/repo';
import { expect, test } from './fixtures';

// Named before the core starts (when the spec is collected, in the runner and in the worker alike), written by the
// test itself before the page loads: only the page opens it, and it does so after signing in.
const folder = join(tmpdir(), `servelab-open-project-${process.env.SERVELAB_TEST_RUN ?? 'manual'}`);
const project = join(folder, 'named-at-start.servelab');

test.use({ openAtStart: [project] });
test.afterAll(() => rmSync(folder, { recursive: true, force: true }));

test('a project named at start opens in the page, once', async ({ page, core }) => {
  const example = JSON.parse(readFileSync(join(repoRoot, 'examples', 'qwen3-8b-latency-h100.servelab'), 'utf8')) as { study: { name: string } };
  example.study.name = 'Named when the app started';
  mkdirSync(folder, { recursive: true });
  writeFileSync(project, `${JSON.stringify(example, null, 2)}\n`);
  await page.goto(core.pageUrl);
  await expect(page.getByRole('heading', { level: 1, name: /Named when the app started/ })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /Studies/ })).toHaveAttribute('aria-current', 'page');
  // Taken once: reloading the page does not open it again over what the user did since.
  await page.getByRole('button', { name: 'All studies', exact: true }).click();
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Hosts' })).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Studies' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Studies' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1, name: /Named when the app started/ })).toHaveCount(0);
});
