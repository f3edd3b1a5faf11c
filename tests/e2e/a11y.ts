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

/**
 * Colours are judged as they settle: without this, a button that was just enabled (or a theme just switched) is read
 * midway through its 120 ms colour transition, a mix of two states that the page never rests in.
 */
async function settleColours(page: Page, settle: boolean): Promise<void> {
  await page.evaluate((on) => {
    const id = 'a11y-no-transitions';
    document.getElementById(id)?.remove();
    if (!on) return;
    const style = document.createElement('style');
    style.id = id;
    style.textContent = '*, *::before, *::after { transition: none !important; animation: none !important; }';
    document.head.append(style);
  }, settle);
}

/** Checks the page in both themes and puts the theme back; `where` names the page in the failure message. */
export async function expectAccessibleInBothThemes(page: Page, where: string): Promise<void> {
  const original = await page.evaluate(() => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light'));
  const found: string[] = [];
  await settleColours(page, true);
  for (const theme of ['light', 'dark'] as const) {
    await setTheme(page, theme);
    for (const v of await a11yViolations(page)) found.push(`${where}, ${theme}: ${v}`);
  }
  await setTheme(page, original);
  await settleColours(page, false);
  expect(found, found.join('\n\n')).toEqual([]);
}
