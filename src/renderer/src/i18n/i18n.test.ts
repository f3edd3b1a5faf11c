import { afterEach, describe, expect, it } from 'vitest';
import en from './en';
import { AVAILABLE_LOCALES, browserLocale, formattingLocale, getLocale, interpolate, languageName, messagesOf, setLocale, t, type MessageKey } from '.';

afterEach(() => setLocale('en'));

const OTHER_LOCALES = AVAILABLE_LOCALES.filter((code) => code !== 'en');
const KEYS = Object.keys(en) as MessageKey[];

function placeholders(message: string): string[] {
  return [...message.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '').sort();
}

/**
 * Words a reader reads, left once placeholders and code-like tokens (paths, flags, hosts, file names) are taken out.
 * A message of two or more of them is prose, and prose left in English is an untranslated message.
 */
function proseWords(message: string): string[] {
  return message
    .replace(/\{\w+\}/g, ' ')
    .split(/\s+/)
    .map((token) => token.replace(/^[(“"‘]+|[.,:;!?…)”"’]+$/g, ''))
    .filter((token) => !/[./@~_:=#-]/.test(token))
    .flatMap((token) => token.match(/\p{L}{2,}/gu) ?? []);
}

/** Prose that is the same in every language: a command and a line of figures. */
const SAME_IN_EVERY_LANGUAGE: ReadonlySet<MessageKey> = new Set<MessageKey>(['notConnected.command', 'studies.plan.gpu']);

describe('i18n', () => {
  it('fills placeholders from params', () => {
    expect(t('host.connecting', { target: 'gpu-1:22' })).toBe('Connecting to gpu-1:22…');
    expect(t('inventory.gpuIndex', { index: 0 })).toBe('GPU 0');
  });

  it('returns plain messages without params', () => {
    expect(t('hostKey.title')).toBe('Unknown host key');
  });

  it('leaves an unknown placeholder visible instead of dropping it', () => {
    expect(interpolate('a {x} b {y}', { x: 1 })).toBe('a 1 b {y}');
  });

  it('finds the language files beside it, Turkish among them', () => {
    expect(AVAILABLE_LOCALES).toContain('en');
    expect(AVAILABLE_LOCALES).toContain('tr');
  });

  it('has no empty message', () => {
    for (const [key, value] of Object.entries(en)) expect(value, key).not.toBe('');
  });

  it('tells prose from labels and code', () => {
    expect(proseWords('Could not load the hosts: {message}')).toEqual(['Could', 'not', 'load', 'the', 'hosts']);
    expect(proseWords('gpu-box.example.com')).toEqual([]);
    expect(proseWords('Model')).toEqual(['Model']);
  });

  describe.each(OTHER_LOCALES)('the %s messages', (code) => {
    const messages = messagesOf(code)!;

    it('have exactly the keys of en/', () => {
      expect(Object.keys(messages).sort()).toEqual([...KEYS].sort());
    });

    it('keep every placeholder of each message, and add none', () => {
      for (const key of KEYS) expect(placeholders(messages[key]), key).toEqual(placeholders(en[key]));
    });

    it('have no empty message', () => {
      for (const key of KEYS) expect(messages[key].trim(), key).not.toBe('');
    });

    it('translate all prose', () => {
      const untranslated = KEYS.filter((key) => !SAME_IN_EVERY_LANGUAGE.has(key) && proseWords(en[key]).length >= 2 && messages[key] === en[key]);
      expect(untranslated).toEqual([]);
    });

    it('name the language in itself, differently from English', () => {
      expect(languageName(code)).not.toBe(languageName('en'));
    });
  });

  it('answers in Turkish after setLocale("tr"), and formats numbers the Turkish way', () => {
    setLocale('tr');
    expect(getLocale()).toBe('tr');
    expect(t('nav.hosts')).toBe('Ana makineler');
    expect(t('host.connecting', { target: 'gpu-1:22' })).toBe('Bağlanılıyor: gpu-1:22…');
    expect(formattingLocale()).toBe('tr');
    expect(new Intl.NumberFormat(formattingLocale()).format(1.5)).toBe('1,5');
    setLocale('en');
    expect(t('nav.hosts')).toBe('Hosts');
  });

  it('falls back to English for a language it has no file for', () => {
    setLocale('xx');
    expect(getLocale()).toBe('en');
    expect(t('nav.hosts')).toBe('Hosts');
  });

  it('lists each language by its own name', () => {
    expect(languageName('en')).toBe('English');
    expect(languageName('tr')).toBe('Türkçe');
  });

  it('picks the first preferred browser language it has a file for', () => {
    const original = Object.getOwnPropertyDescriptor(navigator, 'languages');
    try {
      Object.defineProperty(navigator, 'languages', { configurable: true, get: () => ['de-DE', 'tr-TR', 'en-US'] });
      expect(browserLocale()).toBe('tr');
      Object.defineProperty(navigator, 'languages', { configurable: true, get: () => ['de-DE'] });
      expect(browserLocale()).toBe('en');
    } finally {
      if (original) Object.defineProperty(navigator, 'languages', original);
      else delete (navigator as { languages?: readonly string[] }).languages;
    }
  });
});
