import en from './en';

type Source = typeof en;
export type MessageKey = keyof Source;
/** What a language's `index.ts` default-exports: every key of `en/`, each a string with the same placeholders. */
export type Messages = { readonly [K in MessageKey]: string };
/** What one file of a translation holds: every key of its English counterpart (`tr/hosts.ts` for `en/hosts.ts`). */
export type MessagesOf<Part> = { readonly [K in keyof Part]: string };

/** The placeholder names in a message, e.g. "Connecting to {target}…" → "target". */
type PlaceholdersOf<S extends string> = S extends `${string}{${infer Name}}${infer Rest}` ? Name | PlaceholdersOf<Rest> : never;
export type MessageParams<K extends MessageKey> = Record<PlaceholdersOf<Source[K]>, string | number>;
/** Keys whose message takes no params, for code that picks a key at run time. */
export type PlainMessageKey = { [K in MessageKey]: [PlaceholdersOf<Source[K]>] extends [never] ? K : never }[MessageKey];
type ParamsArg<K extends MessageKey> = [PlaceholdersOf<Source[K]>] extends [never] ? [] : [params: MessageParams<K>];

// Every two-letter folder beside this file is a language (en/, tr/, …), its messages spread in its index.ts:
// adding a language is adding its folder.
const modules = import.meta.glob<{ default: Messages }>('./[a-z][a-z]/index.ts', { eager: true });
const catalogs: Record<string, Messages> = {};
for (const [path, module] of Object.entries(modules)) {
  const code = /([a-z]{2})\/index\.ts$/.exec(path)?.[1];
  if (code) catalogs[code] = module.default;
}
catalogs.en = en;

export const AVAILABLE_LOCALES: readonly string[] = Object.keys(catalogs).sort();

export function isAvailableLocale(code: string): boolean {
  return Object.hasOwn(catalogs, code);
}

/** The messages of one language, or undefined when there is no such language file. */
export function messagesOf(code: string): Messages | undefined {
  return isAvailableLocale(code) ? catalogs[code] : undefined;
}

/** A language's name in that language ("Türkçe"), as a language picker lists it. */
export function languageName(code: string): string {
  return messagesOf(code)?.['language.name'] ?? code;
}

/** The first of the browser's preferred languages that has a file, else English. */
export function browserLocale(): string {
  const preferred = typeof navigator === 'undefined' ? [] : (navigator.languages ?? [navigator.language]);
  for (const tag of preferred) {
    const code = tag?.slice(0, 2).toLowerCase();
    if (code && isAvailableLocale(code)) return code;
  }
  return 'en';
}

let locale = browserLocale();

export function getLocale(): string {
  return locale;
}

/** Switches the language `t` answers in; an unknown code means English. Rendered text changes on the next render. */
export function setLocale(code: string): void {
  locale = isAvailableLocale(code) ? code : 'en';
}

/** Replaces `{name}` placeholders; a missing param is left visible rather than silently dropped. */
export function interpolate(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** The message for `key` in the current language (English when the language lacks it), params filled in. */
export function t<K extends MessageKey>(key: K, ...args: ParamsArg<K>): string {
  const template = catalogs[locale]?.[key] ?? en[key];
  return interpolate(template, args[0] as Record<string, string | number> | undefined);
}

/** The messages of the current language: what a module that takes messages is given to speak as `t` does. */
export function currentMessages(): Messages {
  return catalogs[locale] ?? en;
}

/** `t` in the language of the messages given, for modules below the UI that must not read the current language. */
export function say<K extends MessageKey>(messages: Messages, key: K, ...args: ParamsArg<K>): string {
  return interpolate(messages[key], args[0] as Record<string, string | number> | undefined);
}

/** The language tag for number and date formatting. */
export function formattingLocale(): string {
  return locale === 'en' ? 'en-GB' : locale;
}
