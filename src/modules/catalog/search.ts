/**
 * `q` as the repository's filter: the words PostgreSQL read from it, each matching a word or the
 * start of a word of the product (`'word':*`) or, by a one-letter typo, a whole name word (`:A`).
 */
import type { Executor } from '../../db/client.js';
import { readSearchWords } from './repository.js';
import type { SearchTerms } from './product-order.js';

// Folded words hold no ASCII punctuation, but quote anyway: tsquery text must never be injectable.
const lexeme = (word: string) => `'${word.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

function wordQuery(word: string, near: string[], nameOnly: boolean): string {
  const alternatives = [`${lexeme(word)}:*${nameOnly ? 'A' : ''}`, ...near.map((n) => `${lexeme(n)}:A`)];
  return `(${alternatives.join(' | ')})`;
}

/** The search filter of `q`, or null when `q` holds no word (only punctuation): nothing matches. */
export async function searchTermsOf(db: Executor, store: string, q: string): Promise<SearchTerms | null> {
  const words = await readSearchWords(db, store, q);
  if (words.length === 0) return null;
  return {
    matchQuery: words.map((w) => wordQuery(w.word, w.near, false)).join(' & '),
    nameQuery: words.map((w) => wordQuery(w.word, w.near, true)).join(' & '),
    sku: q.trim(),
  };
}
