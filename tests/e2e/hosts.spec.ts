import { writeFile } from 'node:fs/promises';
import { expectAccessibleInBothThemes } from './a11y';
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
      await expect(card.getByText('Connection state: Not connected')).toBeVisible();
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
      await expect(card.getByText('Connection state: Connected until unused')).toBeVisible();
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
      await expect(card.getByText('Connection state: Connected until unused')).toBeVisible();
    });

    expect(errors, `page errors:\n${errors.join('\n')}\ncore output:\n${core.output()}`).toEqual([]);
  });

  test('"Resolved as" shows how a host from ~/.ssh/config will be reached, with the lines that set each value', async ({ page, core, sshd }) => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const alias = 'resolved-box';

    await test.step('import an alias whose settings all come from the ssh config', async () => {
      await writeFile(
        core.sshConfigPath,
        [`Host ${alias}`, `  HostName ${sshd.host}`, `  Port ${sshd.port}`, `  User ${sshd.user}`, `  IdentityFile ${sshd.identityFile}`, '  ConnectTimeout 7', ''].join('\n'),
        { mode: 0o600 },
      );
      await page.goto(core.pageUrl);
      await page.getByRole('button', { name: 'Import from ~/.ssh/config', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Import from ~/.ssh/config' });
      await dialog.getByRole('checkbox', { name: new RegExp(`^${alias} `) }).check();
      await dialog.getByRole('button', { name: 'Add 1 host' }).click();
      await expect(dialog).toHaveCount(0);
    });

    const card = page.getByRole('article', { name: alias, exact: true });
    const panel = card.getByRole('region', { name: 'Resolved as' });
    // A row's term is its name followed by its ssh_config keyword ("User" "User", "Connect timeout" "ConnectTimeout").
    const value = (term: string) => panel.locator('dt', { hasText: new RegExp(`^${term}[A-Z]`) }).locator('xpath=following-sibling::dd[1]');

    await test.step('the panel opens from the keyboard and shows the resolved values with their origins', async () => {
      const toggle = card.getByRole('button', { name: `Resolved settings of ${alias}`, exact: true });
      await toggle.focus();
      await page.keyboard.press('Enter');
      await expect(toggle).toHaveAttribute('aria-expanded', 'true');
      await expect(panel.getByText(`${sshd.user}@${sshd.host}:${sshd.port}`, { exact: true })).toBeVisible();
      // The e2e machine has an OpenSSH client, so ssh -G answers.
      await expect(panel.getByText('Resolved by OpenSSH (ssh -G)', { exact: true })).toBeVisible();
      await expect(value('User')).toContainText(`${sshd.user} set at ${core.sshConfigPath}:4`);
      await expect(value('Port')).toContainText(`${sshd.port} set at ${core.sshConfigPath}:3`);
      await expect(value('Identity files').getByRole('listitem').first()).toContainText(`${sshd.identityFile} set at ${core.sshConfigPath}:5`);
      await expect(value('Connect timeout')).toContainText(`7 s set at ${core.sshConfigPath}:6`);
      await expect(value('Route')).toHaveText('Direct: no jump host and no ProxyCommand');
      await expect(panel.getByRole('alert')).toHaveCount(0);
      await screenshotBothThemes(page, 'host-resolved', { height: 2000 });
      await expectAccessibleInBothThemes(page, 'Hosts page with "Resolved as" open');
    });

    await test.step('Refresh reads an edited config again, and a bad option is shown with ssh’s own words', async () => {
      await writeFile(core.sshConfigPath, [`Host ${alias}`, `  HostName ${sshd.host}`, '  NoSuchOption yes', ''].join('\n'), { mode: 0o600 });
      const refresh = panel.getByRole('button', { name: `Refresh the resolved settings of ${alias}` });
      await refresh.focus();
      await page.keyboard.press('Enter');
      const alert = panel.getByRole('alert');
      await expect(alert.getByText('The SSH config has an error')).toBeVisible();
      await expect(alert).toContainText(`${core.sshConfigPath}: line 3: Bad configuration option: nosuchoption`);
      await expect(alert).toContainText('Error code SSH_CONFIG_INVALID');
      await panel.scrollIntoViewIfNeeded();
      await screenshotBothThemes(page, 'host-resolved-error');
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
