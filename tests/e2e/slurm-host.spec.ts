// A Slurm cluster added on the Hosts page: a real sshd whose login user's ~/.profile points at a real one-node Slurm
// cluster with fake GPU GRES (tests/helpers/slurm.ts), read through `servelab serve`. Needs root (Slurm's daemons run
// as SlurmUser=root); skipped with the reason elsewhere.
import { expectAccessibleInBothThemes } from './a11y';
import { expect, screenshotBothThemes, test } from './fixtures';
import { slurmUnavailable, startSlurmCluster, TEST_GPU_TYPE, type SlurmCluster } from '../helpers/slurm';
import { startTestSshd, type TestSshd } from '../helpers/sshd';

const options = { nodes: 1, accounting: false } as const;
const unavailable = slurmUnavailable(options);

test.describe('A Slurm cluster on the Hosts page', () => {
  test.skip(unavailable !== null, `Slurm test cluster unavailable: ${unavailable}`);

  let sshd: TestSshd;
  let cluster: SlurmCluster;

  test.beforeAll(async () => {
    sshd = await startTestSshd({ nvidiaSmi: false });
    cluster = await startSlurmCluster(options);
    await cluster.addToProfile(sshd.homeDir);
  });
  test.afterAll(async () => {
    await Promise.all([cluster?.stop(), sshd?.stop()]);
  });

  test('add the login node as a Slurm cluster, read it, and see its partitions and GPUs', async ({ page, core }) => {
    const label = 'test-cluster';
    await page.goto(core.pageUrl);
    await expect(page.getByRole('heading', { level: 1, name: /Hosts/ })).toBeVisible();

    await test.step('add the host, marked as a Slurm cluster from the keyboard', async () => {
      await page.getByLabel(/^Label/).fill(label);
      await page.getByLabel('Address', { exact: true }).fill(sshd.host);
      await page.getByLabel('Port', { exact: true }).fill(String(sshd.port));
      await page.getByLabel(/^User/).fill(sshd.user);
      await page.getByLabel(/^Identity file/).fill(sshd.identityFile);
      const mark = page.getByRole('checkbox', { name: 'Slurm cluster (a login node)' });
      await mark.focus();
      await page.keyboard.press('Space');
      await expect(mark).toBeChecked();
      await mark.press('Enter');
      await expect(page.getByRole('status').filter({ hasText: `Added ${label}.` })).toBeVisible();
    });

    const card = page.getByRole('article', { name: label });

    await test.step('reading it asks about the login node’s host key, then shows the cluster', async () => {
      await expect(card.getByText('Slurm cluster', { exact: true })).toBeVisible();
      await card.getByRole('button', { name: `Read the Slurm cluster of ${label}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Unknown host key' });
      await expect(dialog.getByText(sshd.hostKeyFingerprint, { exact: true })).toBeVisible();
      await dialog.getByRole('button', { name: 'Accept and connect' }).click();

      const view = card.getByRole('region', { name: `Slurm cluster of ${label}` });
      await expect(view).toBeVisible({ timeout: 45_000 });
      await expect(view.getByText(cluster.clusterName, { exact: true })).toBeVisible();
      const partitions = view.getByRole('region', { name: /^Partitions/ }).getByRole('row');
      await expect(partitions).toHaveText([/Partition/, /^debugdefault\s*up\s*unlimited\s*the limit\s*1$/, /^short\s*up\s*1:00\s*0:10\s*1$/]);
      const nodeTypes = view.getByRole('region', { name: /^Node types/ });
      await expect(nodeTypes.getByText(`2 × ${TEST_GPU_TYPE}`, { exact: true })).toBeVisible();
      await expect(nodeTypes.getByText('1 of 1', { exact: true })).toBeVisible();
      await expect(view.getByText(/^Accounting \(sacct\) is not available/)).toBeVisible();
      await screenshotBothThemes(page, 'slurm-cluster-host');
      await expectAccessibleInBothThemes(page, 'a Slurm cluster host');
    });

    await test.step('a drained node shows with its reason after a refresh', async () => {
      const drained = cluster.client('scontrol', ['update', 'NodeName=node1', 'State=DRAIN', 'Reason=fan check']);
      expect(drained.stderr).toBe('');
      await card.getByRole('button', { name: `Refresh the Slurm cluster of ${label}` }).click();
      const notTaking = card.getByRole('list', { name: 'Nodes not taking jobs' });
      await expect(notTaking.getByRole('listitem')).toHaveText(['node1 IDLE+DRAIN — fan check']);
      await expect(card.getByText('0 of 1', { exact: true })).toBeVisible();
    });
  });
});
