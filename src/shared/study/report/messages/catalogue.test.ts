import { describe, it, expect } from 'vitest';
import en, { type ReportMessageKey } from './en';
import tr from './tr';
import { SAME_IN_EVERY_LANGUAGE } from './catalogue';
import { REPORT_CATALOGUES, REPORT_LANGS } from '../text';

const placeholders = (message: string) => [...message.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => m[1]).sort();
const keys = Object.keys(en) as ReportMessageKey[];

describe('report message catalogue', () => {
  it('has every English key in every language, with the same placeholders', () => {
    for (const lang of REPORT_LANGS) {
      const messages = REPORT_CATALOGUES[lang];
      expect(Object.keys(messages).sort(), lang).toEqual([...keys].sort());
      for (const key of keys) {
        expect(typeof messages[key] === 'string' && messages[key].trim() !== '', `${lang} ${key} is empty`).toBe(true);
        expect(placeholders(messages[key]), `${lang} ${key}`).toEqual(placeholders(en[key]));
      }
    }
  });

  it('translates every Turkish message but the marked terms, and marks only terms that are the same', () => {
    const untranslated = keys.filter((key) => tr[key] === en[key] && !SAME_IN_EVERY_LANGUAGE.has(key));
    expect(untranslated).toEqual([]);
    const markedButDifferent = [...SAME_IN_EVERY_LANGUAGE].filter((key) => tr[key] !== en[key]);
    expect(markedButDifferent).toEqual([]);
  });

  it('keeps the count keys in pairs, so a plural can always be picked', () => {
    for (const key of keys) {
      if (key.endsWith('.one')) expect(keys, key).toContain(key.replace(/\.one$/, '.other'));
      if (key.endsWith('.other')) expect(keys, key).toContain(key.replace(/\.other$/, '.one'));
    }
  });
});
