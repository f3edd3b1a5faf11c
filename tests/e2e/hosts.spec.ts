import { expect, screenshotBothThemes, test } from './fixtures';

const GPU_LINE = 'NVIDIA H200 · 143771 MiB · sm 9.0';

test.describe('Hosts against the real core and a real sshd', () => {
  test('add host → unknown key → accept → inventory; then a changed key is refused', async ({ page, core, sshd }) => {
    const label = 'test-box';
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // CSP violations and failed requests surface as console errors.
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
    });

    await test.step('open the workbench', async () => {
      await page.goto(core.pageUrl);
      await expect(page).toHaveTitle('Servelab');
      await expect(page.getByRole('heading', { level: 1, name: /Hosts/ })).toBeVisible();
      // A fresh workbench offers the built-in demo lab, marked as simulated.
      const demo = page.getByRole('article', { name: 'Demo lab (simulated H100 box)' });
      await expect(demo).toBeVisible();
      await expect(demo.getByText('Simulated', { exact: true }).first()).toBeVisible();
      await expect(page.getByRole('button', { name: 'Hosts' })).toHaveAttribute('aria-current', 'page');
      await screenshotBothThemes(page, 'hosts-empty');
      await expect(page.getByRole('button', { name: 'Studies' })).not.toHaveAttribute('aria-disabled', 'true');
    });

    await test.step('the demo lab reads as a simulated H100 box without any SSH', async () => {
      const demo = page.getByRole('article', { name: 'Demo lab (simulated H100 box)' });
      await demo.getByRole('button', { name: 'Read inventory of Demo lab (simulated H100 box)', exact: true }).click();
      await expect(demo.getByText('NVIDIA H100 80GB HBM3 · 81559 MiB · sm 9.0', { exact: true })).toBeVisible({ timeout: 30_000 });
      await screenshotBothThemes(page, 'demo-lab-inventory');
    });

    await test.step('the form names the wrong fields', async () => {
      await page.getByRole('button', { name: 'Add host' }).click();
      await expect(page.getByText('Address is required')).toBeVisible();
      // User, port, key, jump host and password are optional: ssh config and defaults fill them in.
      await expect(page.getByText(/is required/)).toHaveCount(1);
      await expect(page.getByLabel('Address', { exact: true })).toBeFocused();
      await page.getByLabel('Address', { exact: true }).fill('bad host');
      await expect(page.getByText('Address may only hold letters, digits and . _ - : [ ] %')).toBeVisible();
      await page.getByLabel(/^Via jump host/).fill('bastion;rm');
      await expect(page.getByText('Via jump host (ProxyJump) must be [user@]host[:port] hops separated by commas')).toBeVisible();
      await screenshotBothThemes(page, 'add-host-errors');
      await page.getByLabel(/^Via jump host/).fill('');
    });

    await test.step('add the host with Enter', async () => {
      await page.getByLabel(/^Label/).fill(label);
      await page.getByLabel('Address', { exact: true }).fill(sshd.host);
      await page.getByLabel('Port', { exact: true }).fill(String(sshd.port));
      await page.getByLabel(/^User/).fill(sshd.user);
      await page.getByLabel(/^Identity file/).fill(sshd.identityFile);
      await page.getByLabel(/^Identity file/).press('Enter');
      const card = page.getByRole('article', { name: label });
      await expect(card).toBeVisible();
      await expect(card.getByText(`${sshd.user}@${sshd.host}:${sshd.port}`)).toBeVisible();
      await expect(card.getByText('Connection state: Idle')).toBeVisible();
      await expect(page.getByRole('status').filter({ hasText: `Added ${label}.` })).toBeVisible();
      await screenshotBothThemes(page, 'host-added');
    });

    const card = page.getByRole('article', { name: label });

    await test.step('reading an unknown box asks about its host key', async () => {
      await card.getByRole('button', { name: 'Read inventory' }).click();
      const dialog = page.getByRole('dialog', { name: 'Unknown host key' });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByText(sshd.hostKeyFingerprint, { exact: true })).toBeVisible();
      await expect(dialog.getByText(sshd.hostKeyType, { exact: true })).toBeVisible();
      await expect(dialog.getByText(`${sshd.host}:${sshd.port}`, { exact: true })).toBeVisible();
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
      await screenshotBothThemes(page, 'host-key-dialog');
    });

    await test.step('Escape closes the dialog without trusting the key', async () => {
      await page.keyboard.press('Escape');
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(card.getByText(/The host key was not accepted/)).toBeVisible();
    });

    await test.step('accepting the key reads the inventory', async () => {
      await card.getByRole('button', { name: 'Read inventory' }).click();
      const dialog = page.getByRole('dialog', { name: 'Unknown host key' });
      await expect(dialog.getByText(sshd.hostKeyFingerprint, { exact: true })).toBeVisible();
      await dialog.getByRole('button', { name: 'Accept and connect' }).click();
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(card.getByText(GPU_LINE, { exact: true })).toBeVisible({ timeout: 45_000 });
      await expect(card.getByText('Connection state: Ready')).toBeVisible();
      await expect(card.getByText('No processes on the GPUs')).toBeVisible();
      await expect(card.getByRole('meter', { name: 'Memory of GPU 0' })).toBeVisible();
      await screenshotBothThemes(page, 'inventory');
    });

    await test.step('a box without nvidia-smi gets an explanation instead of GPUs', async () => {
      await sshd.removeNvidiaSmi();
      await card.getByRole('button', { name: 'Refresh' }).click();
      await expect(card.getByRole('note').getByText('nvidia-smi was not found on this box')).toBeVisible({ timeout: 45_000 });
      await expect(card.getByText(GPU_LINE)).toHaveCount(0);
      await screenshotBothThemes(page, 'no-nvidia-smi');
      await sshd.installNvidiaSmi();
      await card.getByRole('button', { name: 'Refresh' }).click();
      await expect(card.getByText(GPU_LINE, { exact: true })).toBeVisible({ timeout: 45_000 });
    });

    await test.step('after the host key changes, Refresh is refused with the warning and no way to accept', async () => {
      // A reinstalled box: its sessions end (the pooled connection too) and it comes back with a new key.
      await sshd.dropSessions();
      await sshd.rotateHostKey();
      await card.getByRole('button', { name: 'Refresh' }).click();
      const alert = card.getByRole('alert');
      await expect(alert.getByText('Host key changed: connection refused')).toBeVisible({ timeout: 45_000 });
      const warning = alert.locator('pre');
      await expect(warning).toContainText('REMOTE HOST IDENTIFICATION HAS CHANGED');
      await expect(warning).toContainText(sshd.hostKeyFingerprint);
      await expect(card.getByText('Connection state: Failed')).toBeVisible();
      await expect(card.getByText(GPU_LINE)).toHaveCount(0);
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(page.getByRole('button', { name: /accept/i })).toHaveCount(0);
      await screenshotBothThemes(page, 'host-key-changed');
    });

    await test.step('only a typed confirmation replaces the changed key, and then the box is read again', async () => {
      await card.getByRole('button', { name: 'Replace the stored key…' }).click();
      const dialog = page.getByRole('dialog', { name: `Replace the stored key of ${sshd.host}:${sshd.port}?` });
      await expect(dialog).toBeVisible();
      await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
      const replace = dialog.getByRole('button', { name: 'Replace the stored key' });
      await expect(replace).toBeDisabled();
      const confirmation = dialog.getByLabel(/^Type the last 8 characters/);
      await confirmation.fill('not-it');
      await expect(replace).toBeDisabled();
      await confirmation.fill(sshd.hostKeyFingerprint.slice(-8));
      await expect(replace).toBeEnabled();
      await screenshotBothThemes(page, 'replace-key-confirm');
      await replace.click();
      await expect(page.getByRole('dialog')).toHaveCount(0);
      await expect(card.getByText(GPU_LINE, { exact: true })).toBeVisible({ timeout: 45_000 });
      await expect(card.getByText('Connection state: Ready')).toBeVisible();
    });

    expect(errors, `page errors:\n${errors.join('\n')}\ncore output:\n${core.output()}`).toEqual([]);
  });

  test('a page opened without a sign-in code says it is not connected to a core', async ({ page, core }) => {
    await page.goto(`${core.origin}/`);
    await expect(page.getByRole('heading', { name: 'Not connected to a Servelab core' })).toBeVisible();
    await expect(page.getByRole('navigation')).toHaveCount(0);
    await screenshotBothThemes(page, 'not-connected');
  });
});
