import { expect, screenshotBothThemes, test } from './fixtures';

test('the language picker switches the workbench to Turkish and the choice survives a reload', async ({ page, core }) => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await page.goto(core.pageUrl);
  await expect(page.getByRole('heading', { level: 1, name: /Hosts/ })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');

  await page.getByRole('combobox', { name: 'Language' }).selectOption({ label: 'Türkçe' });
  await expect(page.getByRole('heading', { level: 1, name: /Ana makineler/ })).toBeVisible();
  // The whole shell renders afresh in the new language; focus stays on the picker.
  await expect(page.getByRole('combobox', { name: 'Dil' })).toBeFocused();
  await expect(page.getByRole('navigation', { name: 'Ana menü' }).getByRole('button', { name: 'Motorlar' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Ana makineler' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByRole('button', { name: 'Ana makine ekle' })).toBeVisible();
  // The demo lab's name comes from the core; the controls around it are Turkish.
  const demo = page.getByRole('article', { name: 'Demo lab (simulated H100 box)' });
  await expect(demo.getByRole('button', { name: 'Envanteri oku: Demo lab (simulated H100 box)' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'tr');
  await screenshotBothThemes(page, 'hosts-tr');

  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: /Ana makineler/ })).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Dil' })).toHaveValue('tr');
  await expect(page.locator('html')).toHaveAttribute('lang', 'tr');
  expect(await page.evaluate(() => localStorage.getItem('servelab.locale'))).toBe('tr');

  // Reading a box works the same in Turkish; its inventory shows with Turkish headings.
  await demo.getByRole('button', { name: 'Envanteri oku: Demo lab (simulated H100 box)' }).click();
  await expect(demo.getByText('Ev dizinindeki boş disk', { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(demo.getByText('Sürücü', { exact: true })).toBeVisible();

  await page.getByRole('combobox', { name: 'Dil' }).selectOption({ label: 'English' });
  await expect(page.getByRole('heading', { level: 1, name: /Hosts/ })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  expect(errors).toEqual([]);
});
