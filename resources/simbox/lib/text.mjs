// The simulated tokenizer and text generation. Tokens are word pieces: a word of up to 8 letters (with its
// leading space), a 1–3 digit number, or one punctuation mark, so counts stay close to real BPE tokenizers
// and a text built from N generated words is exactly N tokens.

import { makeRng } from './rng.mjs';

const TOKEN_RE = /\s?[A-Za-z]{1,8}|\s?\d{1,3}|\s?[^\sA-Za-z\d]|\s+/g;

export function countTokens(text) {
  if (!text) return 0;
  return String(text).match(TOKEN_RE)?.length ?? 0;
}

const WORDS = `the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were
her she there been one all we their has would when if so no what up out them some could into than only other then its time
these two may first any new more like our over such most where after even many must well also back through how our model
token cache batch serve graph engine lab prompt write read fast slow data layer value kernel stream queue reply answer`
  .split(/\s+/)
  .filter(Boolean);

/** Exactly `n` tokens of filler text, deterministic for a seed. */
export function makeText(n, ...seed) {
  const rng = makeRng('text', ...seed);
  let out = '';
  for (let i = 0; i < n; i++) out += ` ${WORDS[rng.int(0, WORDS.length - 1)]}`;
  return out;
}

/** A generator of output tokens (one word each) for a request. */
export function tokenStream(...seed) {
  const rng = makeRng('gen', ...seed);
  return () => ` ${WORDS[rng.int(0, WORDS.length - 1)]}`;
}

/** Template tokens a chat request adds around the messages (Qwen/Llama chat templates: role markers, newlines). */
export function chatTemplateTokens(messages) {
  return 3 + 5 * messages.length;
}

/** Flattens OpenAI chat `messages` content (strings or [{type:'text', text}] parts). */
export function messagesText(messages) {
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? '').join('') : ''))
    .join('\n');
}
