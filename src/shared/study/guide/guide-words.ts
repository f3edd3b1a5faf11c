/**
 * Language words a tuning guide uses for its parts: keyword tables, one per language, nothing else. The reader finds
 * structure (headings, numbered sections, commands, result blocks, tables) on its own; these only say what a heading
 * is called in English or Turkish. Another language is one more table. Entries are lower case; a heading matches an
 * entry when it equals it (ignoring case, a trailing colon and surrounding spaces).
 */

export const GUIDE_SECTIONS = [
  'recommendation',
  'notes',
  'goal',
  'setup',
  'model',
  'hardware',
  'engineVersions',
  'dataset',
  'benchmark',
  'results',
  'summary',
  'generalisation',
] as const;
export type GuideSectionKind = (typeof GUIDE_SECTIONS)[number];

interface LanguageWords {
  sections: Record<GuideSectionKind, readonly string[]>;
  /** Words of the goal that say which objective it is. */
  latency: readonly string[];
  throughput: readonly string[];
  /** Number words before "GPU" ("a single H100"). */
  counts: Readonly<Record<string, number>>;
  /** "32000 input tokens, 100 output tokens": the words after each number. */
  inputTokens: readonly string[];
  outputTokens: readonly string[];
  /** Labels of the generalisation section's two commands. */
  baseline: readonly string[];
  optimised: readonly string[];
}

// Keyword table: English.
const EN: LanguageWords = {
  sections: {
    recommendation: ['conclusion', 'recommendation', 'recommended configuration', 'tl;dr'],
    notes: ['note', 'notes', 'caveats'],
    goal: ['optimization goal', 'optimisation goal', 'goal', 'objective', 'optimization objective'],
    setup: ['experiment setup', 'experimental setup', 'setup', 'test setup'],
    model: ['model'],
    hardware: ['hardware', 'gpu'],
    engineVersions: ['engine version', 'engine versions', 'software versions', 'versions', 'inference engine versions'],
    dataset: ['benchmark dataset', 'benchmark datasets', 'dataset', 'datasets'],
    benchmark: ['benchmark script', 'benchmark command', 'benchmark commands', 'benchmark'],
    results: ['experiment results', 'experimental results', 'results', 'benchmark results'],
    summary: ['summary of optimization options', 'summary of optimisation options', 'summary', 'optimization summary'],
    generalisation: ['other benchmark scenarios', 'other scenarios', 'generalization', 'generalisation', 'additional scenarios'],
  },
  latency: ['latency'],
  throughput: ['throughput'],
  counts: { single: 1, one: 1, a: 1, two: 2, four: 4, eight: 8 },
  inputTokens: ['input'],
  outputTokens: ['output'],
  baseline: ['baseline', 'base'],
  optimised: ['optimized', 'optimised', 'tuned', 'recommended'],
};

// Keyword table: Turkish.
const TR: LanguageWords = {
  sections: {
    recommendation: ['sonuç', 'öneri', 'önerilen yapılandırma'],
    notes: ['not', 'notlar'],
    goal: ['optimizasyon hedefi', 'hedef'],
    setup: ['deney kurulumu', 'kurulum'],
    model: ['model'],
    hardware: ['donanım'],
    engineVersions: ['motor sürümü', 'motor sürümleri'],
    dataset: ['benchmark veri kümesi', 'veri kümesi', 'benchmark veri kümeleri'],
    benchmark: ['benchmark betiği', 'benchmark komutu'],
    results: ['deney sonuçları', 'sonuçlar'],
    summary: ['optimizasyon seçeneklerinin özeti', 'özet'],
    generalisation: ['diğer benchmark senaryoları', 'diğer senaryolar'],
  },
  latency: ['gecikme'],
  throughput: ['işlem hacmi', 'verim'],
  counts: { tek: 1, bir: 1, iki: 2, dört: 4, sekiz: 8 },
  inputTokens: ['giriş'],
  outputTokens: ['çıkış'],
  baseline: ['temel'],
  optimised: ['optimize', 'önerilen'],
};

export const GUIDE_LANGUAGES: Readonly<Record<string, LanguageWords>> = { en: EN, tr: TR };

const ALL = Object.values(GUIDE_LANGUAGES);

/** Lower case the way the page's language does (Turkish İ/I), then folds both to one form for matching. */
export function foldWords(text: string): string {
  return text.toLocaleLowerCase('tr').replace(/\s+/g, ' ').trim();
}

/** The kind of section a heading names, in any known language. */
export function sectionKindOf(heading: string): GuideSectionKind | undefined {
  const h = foldWords(heading).replace(/[:：]\s*$/, '');
  for (const kind of GUIDE_SECTIONS) {
    if (ALL.some((lang) => lang.sections[kind].some((w) => foldWords(w) === h))) return kind;
  }
  return undefined;
}

export function wordsOf(key: 'latency' | 'throughput' | 'inputTokens' | 'outputTokens' | 'baseline' | 'optimised'): string[] {
  return ALL.flatMap((lang) => lang[key].map(foldWords));
}

export function countWords(): Record<string, number> {
  return Object.assign({}, ...ALL.map((lang) => lang.counts)) as Record<string, number>;
}
