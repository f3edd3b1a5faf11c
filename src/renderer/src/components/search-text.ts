/**
 * Text as a case-insensitive search compares it, the same in every UI language. Log lines, ids and model names are
 * ASCII, so the locale-independent lower-casing is the right one; Turkish İ and ı (typed on a Turkish keyboard
 * when looking for "INFO" or "info") count as i. Each character stays one character, so a match's position in the
 * folded text is its position in the original.
 */
export function foldForSearch(text: string): string {
  return text.replace(/[İı]/g, 'i').toLowerCase();
}
