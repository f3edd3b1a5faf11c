import { expectAccessibleInBothThemes } from './a11y';
import { expect, test } from './fixtures';

test.describe('Accessibility of every page, light and dark', () => {
  test('no serious or critical WCAG 2.1 AA finding on the pages a newcomer visits', async ({ page, core }) => {
    test.setTimeout(180_000);
    await page.goto(core.pageUrl);
    await expect(page.getByRole('heading', { level: 1, name: /Hosts/ })).toBeVisible();
    // The demo lab's inventory read, so the Hosts page shows a GPU table as well.
    await page.getByRole('button', { name: /^Read inventory of Demo lab/ }).click();
    await expect(page.getByText(/H100/).first()).toBeVisible({ timeout: 30_000 });
    const nav = page.getByRole('navigation', { name: 'Main' });

    await expectAccessibleInBothThemes(page, 'Hosts');
    await nav.getByRole('button', { name: 'Engines' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Engines' })).toBeVisible();
    await expectAccessibleInBothThemes(page, 'Engines');
    await nav.getByRole('button', { name: 'Studies' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Studies' })).toBeVisible();
    await expectAccessibleInBothThemes(page, 'Studies');
    await page.getByRole('button', { name: 'New study' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'New study' })).toBeVisible();
    await expectAccessibleInBothThemes(page, 'New study wizard');
    await nav.getByRole('button', { name: 'Results' }).click();
    await expect(page.getByRole('heading', { level: 1, name: /Results/ })).toBeVisible();
    await expectAccessibleInBothThemes(page, 'Results');
  });
});
