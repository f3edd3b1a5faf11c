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

  test('prefetch weights, HF token, docker refused on the demo lab, servers on the box survive a reload and stop', async ({ page, core }) => {
    test.setTimeout(240_000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const token = 'hf_e2eNeverShownToken0123456789abcdef';
    const openEngines = async () => {
      await page.getByRole('button', { name: 'Engines' }).click();
      await expect(page.getByLabel('Host', { exact: true })).toHaveValue('demo-lab');
    };

    await test.step('docker mode is refused on the demo lab, with the reason', async () => {
      await page.goto(core.pageUrl);
      await openEngines();
      const panel = page.getByRole('region', { name: 'Install an engine' });
      await expect(panel.getByRole('radio', { name: 'Docker image' })).toBeDisabled();
      await expect(panel.getByRole('radio', { name: 'Python environment' })).toBeChecked();
      await expect(panel.getByText(/Docker is not available on the demo lab/)).toBeVisible();
      await expect(page.getByRole('region', { name: 'Servers on this box' }).getByText('No server has been launched on this box.')).toBeVisible();
    });

    await test.step('install vLLM 0.11.0 as an environment', async () => {
      const panel = page.getByRole('region', { name: 'Install an engine' });
      await panel.getByRole('button', { name: 'Install' }).click();
      await expect(panel.getByText(/Installed vLLM 0\.11\.0\.|vLLM 0\.11\.0 is already installed\./)).toBeVisible({ timeout: 60_000 });
      const installed = page.getByRole('region', { name: 'Installed engines' });
      await expect(installed.getByRole('row').filter({ hasText: 'vLLM' }).filter({ hasText: 'Python environment' })).toBeVisible({ timeout: 30_000 });
    });

    await test.step('set the Hugging Face token: listed as set, never shown', async () => {
      const launch = page.getByRole('region', { name: 'Launch server' });
      const group = launch.getByRole('group', { name: 'Hugging Face token' });
      await expect(group.getByTestId('hf-token-state')).toHaveText('Not set');
      await group.getByRole('button', { name: 'Set token' }).click();
      await group.getByLabel('New Hugging Face token').fill(token);
      await group.getByRole('button', { name: 'Save token' }).click();
      await expect(group.getByTestId('hf-token-state')).toHaveText('Set');
      await expect(group.getByRole('button', { name: 'Replace token' })).toBeVisible();
      await expect(page.locator('body')).not.toContainText(token);
      const inputValues = await page.locator('input').evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
      expect(inputValues).not.toContain(token);
    });

    await test.step('prefetch Qwen/Qwen3-8B with progress until cached', async () => {
      const launch = page.getByRole('region', { name: 'Launch server' });
      await expect(launch.getByLabel('Installed version')).toHaveValue('0.11.0');
      await expect(launch.getByLabel('Model', { exact: true })).toHaveValue('Qwen/Qwen3-8B');
      await expect(launch.getByTestId('prefetch-state')).toHaveText(/not prefetched/);
      await launch.getByRole('button', { name: 'Prefetch weights' }).click();
      await expect(launch.getByRole('progressbar', { name: 'Prefetch progress' })).toBeVisible();
      await expect(launch.getByText(/^Weights cached at \/.*models--Qwen--Qwen3-8B\/snapshots\//)).toBeVisible({ timeout: 60_000 });
      const bar = launch.getByRole('progressbar', { name: 'Prefetch progress' });
      const total = await bar.getAttribute('aria-valuemax');
      expect(Number(total)).toBeGreaterThan(0);
      await expect(bar).toHaveAttribute('aria-valuenow', total ?? '');
      await expect(launch.getByTestId('prefetch-state')).toHaveText('Weights cached on the box.');
      await screenshotBothThemes(page, 'engines-prefetch-token', { height: 1500 });
    });

    await test.step('launch the prefetched model offline, without the token; the box lists the server', async () => {
      const launch = page.getByRole('region', { name: 'Launch server' });
      // The weights are on the box: the server needs no token, so none is offered to it.
      const pass = launch.getByRole('checkbox', { name: 'Pass HF_TOKEN to the server' });
      await expect(pass).toBeDisabled();
      await expect(pass).not.toBeChecked();
      await expect(launch.getByText(/the server runs offline \(HF_HUB_OFFLINE=1\) and gets no token/)).toBeVisible();
      await launch.getByRole('button', { name: 'Launch' }).click();
      await expect(launch.getByTestId('server-state')).toHaveText('Ready', { timeout: 60_000 });
      await expect(page.locator('body')).not.toContainText(token);
      const onBox = page.getByRole('region', { name: 'Servers on this box' });
      const row = onBox.getByRole('row').filter({ hasText: 'Qwen/Qwen3-8B' });
      await expect(row).toContainText('Running');
      await expect(row).toContainText('Launched here');
    });

    await test.step('after a reload the server is still on the box and is stopped from there', async () => {
      await page.reload();
      await openEngines();
      const onBox = page.getByRole('region', { name: 'Servers on this box' });
      const row = onBox.getByRole('row').filter({ hasText: 'Qwen/Qwen3-8B' });
      await expect(row).toContainText('Running', { timeout: 30_000 });
      await expect(row).toContainText('Python environment');
      const serverId = (await row.getByRole('cell').first().textContent())?.trim() ?? '';
      expect(serverId).not.toBe('');
      await screenshotBothThemes(page, 'engines-servers-on-box', { height: 1100 });
      await row.getByRole('button', { name: `Stop server ${serverId}` }).click();
      await expect(onBox.getByText(`Stop checks for ${serverId}`)).toBeVisible({ timeout: 60_000 });
      await expect(onBox.getByText(/^Port (closed|still open)$/)).toBeVisible();
      await expect(onBox.getByText(/^GPU memory (released|still held)$/)).toBeVisible();
      await expect(row).toContainText('Stopped', { timeout: 30_000 });
      await expect(row.getByRole('button')).toHaveCount(0);
      await expect(page.getByRole('region', { name: 'Launch server' }).getByRole('group', { name: 'Hugging Face token' }).getByTestId('hf-token-state')).toHaveText('Set');
      await screenshotBothThemes(page, 'engines-server-on-box-stopped', { height: 1100 });
    });

    expect(errors).toEqual([]);
  });
});
