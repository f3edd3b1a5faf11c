// A GPU box that only a jump host can reach (tests/helpers/netns.ts), set up the way users have it: an
// ~/.ssh/config with a ProxyJump alias and an encrypted key. Everything goes through the UI.
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import type { TestSshd } from '../helpers/sshd';
import { expect, screenshotBothThemes, test } from './fixtures';

const GPU_LINE = 'NVIDIA H200 · 143771 MiB · sm 9.0';

const hostPort = (sshd: TestSshd) => `${sshd.host}:${sshd.port}`;

function configBlock(alias: string, sshd: TestSshd, lines: string[]): string {
  return [`Host ${alias}`, `  HostName ${sshd.host}`, `  Port ${sshd.port}`, `  User ${sshd.user}`, ...lines.map((l) => `  ${l}`), ''].join('\n');
}

async function collectPageErrors(page: Page): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
  });
  return errors;
}

test.describe('Hosts behind a jump host', () => {
  test('a user can add, connect to and use a host behind a jump host from the UI with an encrypted key', async ({ page, core, lab }) => {
    test.setTimeout(300_000);
    const errors = await collectPageErrors(page);
    const { jump, gpu1, gpu2 } = lab;
    if (lab.mode === 'loopback') console.log('jump-host.spec: the SSH lab runs in loopback mode: the GPU hosts are not isolated behind the jump host');

    await test.step('write an ssh config with a jump host and two GPU boxes behind it', async () => {
      const ssh = join(core.home, '.ssh');
      await copyFile(lab.clientKey, join(ssh, 'id_lab'));
      await copyFile(gpu1.encryptedIdentityFile, join(ssh, 'id_gpu_encrypted'));
      // Short keepalives, so a dropped link shows as reconnecting within seconds.
      const keepalive = ['ServerAliveInterval 1', 'ServerAliveCountMax 2'];
      await writeFile(
        core.sshConfigPath,
        [
          '# The lab: a bastion and the GPU boxes only it can reach.',
          configBlock('lab-jump', jump, ['IdentityFile ~/.ssh/id_lab', 'IdentitiesOnly yes', ...keepalive]),
          configBlock('lab-gpu', gpu1, ['ProxyJump lab-jump', 'IdentityFile ~/.ssh/id_gpu_encrypted', 'IdentitiesOnly yes', ...keepalive]),
          configBlock('lab-gpu2', gpu2, ['ProxyJump lab-jump', 'IdentityFile ~/.ssh/id_lab', 'IdentitiesOnly yes', ...keepalive]),
          'Host *',
          '  ConnectTimeout 10',
          '',
        ].join('\n'),
        { mode: 0o600 },
      );
    });

    await test.step('import the GPU boxes from ~/.ssh/config', async () => {
      await page.goto(core.pageUrl);
      // Only the built-in demo lab so far.
      await expect(page.getByRole('article')).toHaveCount(1);
      await page.getByRole('button', { name: 'Import from ~/.ssh/config', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Import from ~/.ssh/config' });
      await expect(dialog.getByText(core.sshConfigPath)).toBeVisible();
      const list = dialog.getByRole('list', { name: 'Aliases in the ssh config' });
      await expect(list.getByRole('listitem')).toHaveCount(3);
      const checkbox = (alias: string) => page.getByRole('checkbox', { name: new RegExp(`^${alias} `) });
      const row = (alias: string) => list.getByRole('listitem').filter({ has: checkbox(alias) });
      await expect(row('lab-gpu')).toContainText(`${gpu1.user}@${hostPort(gpu1)}`);
      await expect(row('lab-gpu')).toContainText('lab-jump');
      await expect(row('lab-jump')).toContainText(`${jump.user}@${hostPort(jump)}`);
      const add = dialog.getByRole('button', { name: /^Add/ });
      await expect(add).toBeDisabled();
      await row('lab-gpu').getByRole('checkbox').check();
      await row('lab-gpu2').getByRole('checkbox').check();
      await expect(add).toHaveText('Add 2 hosts');
      await screenshotBothThemes(page, 'import-dialog');
      await add.click();
      await expect(dialog).toHaveCount(0);
      await expect(page.getByRole('article')).toHaveCount(3);
      const card = page.getByRole('article', { name: 'lab-gpu', exact: true });
      // An alias host shows where the alias resolved to; user and port stay the config's business.
      await expect(card.getByText(gpu1.host, { exact: true })).toBeVisible();
      await expect(card.getByText('alias lab-gpu')).toBeVisible();
      // Opening the dialog again shows both as added.
      await page.getByRole('button', { name: 'Import from ~/.ssh/config', exact: true }).click();
      await expect(page.getByRole('dialog').getByText('Added', { exact: true })).toHaveCount(2);
      await page.keyboard.press('Escape');
    });

    const card = page.getByRole('article', { name: 'lab-gpu', exact: true });

    await test.step('reading the box first asks about the jump host key', async () => {
      await card.getByRole('button', { name: 'Read inventory of lab-gpu', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Unknown host key of the jump host' });
      await expect(dialog).toBeVisible({ timeout: 30_000 });
      await expect(dialog.getByText('Jump host', { exact: true })).toBeVisible();
      await expect(dialog.getByText(jump.hostKeyFingerprint, { exact: true })).toBeVisible();
      await expect(dialog.getByText(hostPort(jump), { exact: false }).first()).toBeVisible();
      await expect(dialog.getByText('lab-gpu is reached through this jump host (ProxyJump). The box itself is checked next.')).toBeVisible();
      await expect(card.getByText('Connection state: Confirm host key')).toBeVisible();
      await screenshotBothThemes(page, 'jump-host-key-dialog');
      await dialog.getByRole('button', { name: 'Accept and continue', exact: true }).click();
    });

    await test.step('then about the GPU box’s own key', async () => {
      const dialog = page.getByRole('dialog', { name: 'Unknown host key', exact: true });
      await expect(dialog).toBeVisible({ timeout: 30_000 });
      await expect(dialog.getByText('Target host', { exact: true })).toBeVisible();
      await expect(dialog.getByText(gpu1.hostKeyFingerprint, { exact: true })).toBeVisible();
      await dialog.getByRole('button', { name: 'Accept and connect', exact: true }).click();
    });

    await test.step('then for the passphrase of the encrypted key, in a masked field', async () => {
      const dialog = page.getByRole('dialog', { name: 'Passphrase for ~/.ssh/id_gpu_encrypted' });
      await expect(dialog).toBeVisible({ timeout: 30_000 });
      const field = dialog.getByLabel('Passphrase:');
      await expect(field).toHaveAttribute('type', 'password');
      await expect(field).toBeFocused();
      const remember = dialog.getByRole('checkbox', { name: 'Remember in the OS keychain' });
      await expect(remember).not.toBeChecked();
      await expect(dialog.getByText(/^Servelab waits \d:\d\d more for an answer$/)).toBeVisible();
      await expect(card.getByText('Connection state: Needs your input')).toBeVisible();
      await field.pressSequentially(gpu1.identityPassphrase);
      await screenshotBothThemes(page, 'passphrase-prompt');
      // Remembered, later connections (after an edit, after a key replacement) do not ask again.
      await remember.check();
      await field.focus();
      await field.press('Enter');
      await expect(dialog).toHaveCount(0);
    });

    await test.step('the inventory of the box behind the jump host shows its GPU', async () => {
      await expect(card.getByText(GPU_LINE, { exact: true })).toBeVisible({ timeout: 45_000 });
      await expect(card.getByText('Connection state: Connected until unused')).toBeVisible();
      if (lab.mode === 'netns') await expect(card.getByText('gpu1', { exact: true })).toBeVisible();
    });

    await test.step('the connection log shows each step', async () => {
      await card.getByRole('button', { name: 'Connection log of lab-gpu', exact: true }).click();
      const log = card.getByRole('log', { name: 'Connection log of lab-gpu' });
      await expect(log).toBeVisible();
      const jumpName = `lab-jump (${jump.user}@${hostPort(jump)})`;
      await expect(log).toContainText(`Connecting to jump host ${jumpName}`);
      await expect(log).toContainText(`Host key of jump host ${jumpName}`);
      await expect(log).toContainText(`Opening a tunnel through jump host ${jumpName} to ${hostPort(gpu1)}`);
      await expect(log).toContainText('is encrypted; asking for its passphrase');
      await expect(log).toContainText(`Logged in as ${gpu1.user}`);
      await expect(card.getByRole('checkbox', { name: 'Follow newest' })).toBeChecked();
      await log.evaluate((element) => element.scrollIntoView({ block: 'center' }));
      await screenshotBothThemes(page, 'connection-log');
    });

    const card2 = page.getByRole('article', { name: 'lab-gpu2', exact: true });

    await test.step('Connect holds the second box open; the jump host is already trusted', async () => {
      await card2.getByRole('button', { name: 'Connect lab-gpu2', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Unknown host key', exact: true });
      await expect(dialog.getByText(gpu2.hostKeyFingerprint, { exact: true })).toBeVisible({ timeout: 30_000 });
      await dialog.getByRole('button', { name: 'Accept and connect', exact: true }).click();
      await expect(card2.getByRole('button', { name: 'Disconnect lab-gpu2', exact: true })).toBeVisible({ timeout: 30_000 });
      await expect(card2.getByText('Connection state: Connected', { exact: true })).toBeVisible();
    });

    await test.step('a dropped link shows the held box reconnecting with its attempt and countdown, then ready', async () => {
      if (lab.mode !== 'netns') {
        await screenshotBothThemes(page, 'host-states', { height: 1280 });
        test.info().annotations.push({ type: 'skipped-step', description: 'reconnecting needs the network-namespace lab' });
        return;
      }
      await card.getByRole('button', { name: 'Connection log of lab-gpu', exact: true }).click();
      await card2.getByRole('button', { name: 'Connection log of lab-gpu2', exact: true }).click();
      lab.setJumpLink(false);
      try {
        await expect(card2.getByText(/^Connection state: Reconnecting · attempt \d+ in \d+ s$/)).toBeVisible({ timeout: 30_000 });
        await screenshotBothThemes(page, 'host-states', { height: 1280 });
        await expect(card2.getByRole('log')).toContainText('Lost the connection');
      } finally {
        lab.setJumpLink(true);
      }
      await expect(card2.getByText('Connection state: Connected', { exact: true })).toBeVisible({ timeout: 60_000 });
      await expect(card2.getByRole('log')).toContainText('Reconnected to');
      await card2.getByRole('button', { name: 'Connection log of lab-gpu2', exact: true }).click();
    });

    await test.step('Disconnect lets the second box go', async () => {
      await card2.getByRole('button', { name: 'Disconnect lab-gpu2', exact: true }).click();
      // Let go, the connection closes once unused: until then the card offers to keep it, then to connect.
      await expect(card2.getByRole('button', { name: /^(Keep connected to lab-gpu2|Connect lab-gpu2)$/ })).toBeVisible();
    });

    await test.step('edit: rename, override the jump host, then clear the override back to the ssh config', async () => {
      await card.getByRole('button', { name: 'Edit lab-gpu', exact: true }).click();
      let dialog = page.getByRole('dialog', { name: 'Edit lab-gpu' });
      await expect(dialog.getByText('lab-gpu', { exact: true })).toBeVisible();
      await expect(dialog.getByRole('button', { name: 'Save changes', exact: true })).toBeDisabled();
      await dialog.getByLabel(/^Label/).fill('h200 behind bastion');
      await dialog.getByLabel(/^Via jump host/).fill('lab-jump');
      await dialog.getByRole('button', { name: 'Save changes', exact: true }).click();
      await expect(dialog).toHaveCount(0);
      const renamed = page.getByRole('article', { name: 'h200 behind bastion' });
      await expect(renamed.getByText('via lab-jump')).toBeVisible();

      await renamed.getByRole('button', { name: 'Edit h200 behind bastion', exact: true }).click();
      dialog = page.getByRole('dialog', { name: 'Edit h200 behind bastion' });
      await expect(dialog.getByLabel(/^Via jump host/)).toHaveValue('lab-jump');
      await dialog.getByLabel(/^Via jump host/).fill('');
      await dialog.getByRole('button', { name: 'Save changes', exact: true }).click();
      await expect(dialog).toHaveCount(0);
      await expect(renamed.getByText('via lab-jump')).toHaveCount(0);
      // Still reachable: the ssh config's ProxyJump applies again.
      await renamed.getByRole('button', { name: 'Refresh inventory of h200 behind bastion', exact: true }).click();
      await expect(renamed.getByText(GPU_LINE, { exact: true })).toBeVisible({ timeout: 45_000 });
    });

    await test.step('remove the second box after a confirmation that says results are kept', async () => {
      await card2.getByRole('button', { name: 'Remove lab-gpu2', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove lab-gpu2?' });
      await expect(dialog.getByText(/Results measured on it are kept/)).toBeVisible();
      await dialog.getByRole('button', { name: 'Remove host', exact: true }).click();
      await expect(page.getByRole('article')).toHaveCount(2);
    });

    await test.step('a changed jump host key is refused, naming the jump host, until the user replaces it deliberately', async () => {
      const renamed = page.getByRole('article', { name: 'h200 behind bastion' });
      const oldFingerprint = jump.hostKeyFingerprint;
      // A reinstalled bastion: its sessions end and it comes back with a new key.
      await jump.dropSessions();
      await jump.rotateHostKey();
      await renamed.getByRole('button', { name: 'Refresh inventory of h200 behind bastion', exact: true }).click();
      const alert = renamed.getByRole('alert');
      await expect(alert.getByText('Jump host key changed: connection refused')).toBeVisible({ timeout: 45_000 });
      await expect(alert.locator('pre')).toContainText('REMOTE HOST IDENTIFICATION HAS CHANGED');
      await expect(alert.getByText(jump.hostKeyFingerprint, { exact: true })).toBeVisible();
      await expect(alert.getByText(oldFingerprint, { exact: true })).toBeVisible();
      await expect(page.getByRole('button', { name: /accept/i })).toHaveCount(0);
      await screenshotBothThemes(page, 'jump-key-changed');

      await alert.getByRole('button', { name: 'Replace the stored key…', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: `Replace the stored key of jump host ${hostPort(jump)}?` });
      const replace = dialog.getByRole('button', { name: 'Replace the stored key', exact: true });
      await expect(replace).toBeDisabled();
      await dialog.getByLabel(/^Type the last 8 characters/).fill(jump.hostKeyFingerprint.slice(-8));
      await expect(replace).toBeEnabled();
      await screenshotBothThemes(page, 'jump-key-changed-replace');
      await replace.click();
      await expect(dialog).toHaveCount(0);
      await expect(renamed.getByText(GPU_LINE, { exact: true })).toBeVisible({ timeout: 45_000 });
    });

    expect(errors, `page errors:\n${errors.join('\n')}\ncore output:\n${core.output()}`).toEqual([]);
  });
});
