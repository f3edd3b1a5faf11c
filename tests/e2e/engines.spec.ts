import { expect, screenshotBothThemes, test } from './fixtures';

test.describe('Engines on the demo lab against the real core', () => {
  test('install vLLM 0.11.0 → listed; launch → ready → stop → checks shown', async ({ page, core }) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await test.step('open the Engines page', async () => {
      await page.goto(core.pageUrl);
      await page.getByRole('button', { name: 'Engines' }).click();
      await expect(page.getByRole('button', { name: 'Engines' })).toHaveAttribute('aria-current', 'page');
      await expect(page.getByRole('heading', { level: 1, name: 'Engines' })).toBeVisible();
      await expect(page.getByLabel('Host', { exact: true })).toHaveValue('demo-lab');
    });

    await test.step('install vLLM 0.11.0', async () => {
      const panel = page.getByRole('region', { name: 'Install an engine' });
      await panel.getByLabel('Engine', { exact: true }).selectOption('vllm');
      await panel.getByLabel('Version', { exact: true }).selectOption('0.11.0');
      await panel.getByRole('button', { name: 'Install' }).click();
      await expect(panel.getByRole('progressbar')).toBeVisible();
      await expect(panel.getByText(/Installed vLLM 0\.11\.0\.|vLLM 0\.11\.0 is already installed\./)).toBeVisible({ timeout: 60_000 });
      await panel.getByRole('button', { name: 'Show install log' }).click();
      const installed = page.getByRole('region', { name: 'Installed engines' });
      await expect(installed.getByRole('row').filter({ hasText: 'vLLM' }).filter({ hasText: '0.11.0' })).toBeVisible({ timeout: 30_000 });
      await screenshotBothThemes(page, 'engines-installed', { height: 1100 });
    });

    await test.step('launch a server and wait for ready', async () => {
      const panel = page.getByRole('region', { name: 'Launch server' });
      await expect(panel.getByLabel('Installed version')).toHaveValue('0.11.0');
      await expect(panel.getByTestId('command-preview')).toContainText('vllm serve Qwen/Qwen3-8B');
      await panel.getByLabel(/^Extra arguments/).fill('--no-such-flag');
      await expect(panel.getByText(/unknown flag: --no-such-flag/)).toBeVisible();
      await expect(panel.getByRole('button', { name: 'Launch' })).toBeDisabled();
      await panel.getByLabel(/^Extra arguments/).fill('');
      await panel.getByRole('button', { name: 'Launch' }).click();
      await expect(panel.getByTestId('server-state')).toHaveText('Ready', { timeout: 60_000 });
      await screenshotBothThemes(page, 'engines-server-ready', { height: 1400 });
    });

    await test.step('stop the server and show the checks', async () => {
      const panel = page.getByRole('region', { name: 'Launch server' });
      await panel.getByRole('button', { name: 'Stop', exact: true }).click();
      await expect(panel.getByText('Stop checks')).toBeVisible({ timeout: 60_000 });
      await expect(panel.getByText(/^Port (closed|still open)$/)).toBeVisible();
      await expect(panel.getByText(/^GPU memory (released|still held)$/)).toBeVisible();
      await screenshotBothThemes(page, 'engines-server-stopped', { height: 1400 });
    });

    expect(errors).toEqual([]);
  });
});
