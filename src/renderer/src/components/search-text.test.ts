import { afterEach, describe, expect, it } from 'vitest';
import { setLocale } from '../i18n';
import { foldForSearch } from './search-text';

afterEach(() => setLocale('en'));

describe('foldForSearch', () => {
  it('matches ASCII log text whatever the UI language, and Turkish İ and ı as i', () => {
    setLocale('tr');
    const line = foldForSearch('INFO ready: listening on 127.0.0.1');
    expect(line).toContain(foldForSearch('info'));
    expect(line).toContain(foldForSearch('INFO'));
    expect(line).toContain(foldForSearch('İNFO'));
    expect(line).toContain(foldForSearch('lıstenıng'));
  });

  it('keeps every character in place, so matches can be highlighted in the original text', () => {
    const text = 'İstanbul IIı gpu-İ';
    expect(foldForSearch(text)).toHaveLength(text.length);
    expect(foldForSearch(text)).toBe('istanbul iii gpu-i');
  });
});
