import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** The serious and critical axe findings of WCAG 2.1 A and AA on the page as it is: names of controls, contrast, … */
export async function a11yViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')} — ${n.failureSummary?.split('\n').slice(0, 2).join(' ')}`).slice(0, 6).join('\n')}`);
}

async function setTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate((value) => {
    document.documentElement.dataset.theme = value;
    document.documentElement.style.colorScheme = value;
  }, theme);
}

/** Checks the page in both themes and puts the theme back; `where` names the page in the failure message. */
export async function expectAccessibleInBothThemes(page: Page, where: string): Promise<void> {
  const original = await page.evaluate(() => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light'));
  const found: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    for (const v of await a11yViolations(page)) found.push(`${where}, ${theme}: ${v}`);
  }
  await setTheme(page, original);
  expect(found, found.join('\n\n')).toEqual([]);
}
