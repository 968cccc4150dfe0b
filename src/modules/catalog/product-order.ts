/**
 * How a product list is ordered: ORDER BY, and "this row comes after that one" for keyset cursors
 * and for collapsing groups (a group shows as its product that no other of the group precedes).
 */
import { sql, type SQL } from 'drizzle-orm';
import { toIso } from '../../lib/time.js';
import type { CursorPosition, KeyKind } from './cursor.js';
import type { ProductSort } from './schemas.js';

/** A list's order: one of the `sort` values, or search relevance (`q` without `sort`). */
export type ListSort = ProductSort | 'relevance';

/** A query's words as tsquery text: every word must match (`match`); `nameQuery` asks the name alone. */
export interface SearchTerms {
  matchQuery: string;
  nameQuery: string;
  /** `q` itself, for the exact sku match. */
  sku: string;
}

/** How a list is ordered: its sort keys (then the id, in the same direction) and how each rides in a cursor. */
interface ListOrder {
  keys: Array<{ column: string; kind: KeyKind }>;
  descending: boolean;
  /**
   * The created_at index is `desc nulls last`; ORDER BY must say the same nulls placement (in
   * either direction) or PostgreSQL sorts the whole store instead of reading the index. The
   * columns are NOT NULL, so it changes no answer.
   */
  indexNulls?: boolean;
}

const ORDERS: Record<ProductSort, ListOrder> = {
  createdAt: { keys: [{ column: 'created_at', kind: 'timestamp' }], descending: false, indexNulls: true },
  '-createdAt': { keys: [{ column: 'created_at', kind: 'timestamp' }], descending: true, indexNulls: true },
  price: { keys: [{ column: 'price', kind: 'integer' }], descending: false },
  '-price': { keys: [{ column: 'price', kind: 'integer' }], descending: true },
  name: { keys: [{ column: 'name', kind: 'text' }], descending: false },
  '-name': { keys: [{ column: 'name', kind: 'text' }], descending: true },
};

/**
 * Search relevance (docs/api.md, "Search, filters and cursors"): an exact sku match first, then products whose name holds every
 * word (a typo match counts), then the rest; newest first among equals.
 */
export function relevanceRank(search: SearchTerms, alias = 'p'): SQL {
  const p = sql.raw(alias);
  return sql`(case when lower(${p}.sku) = lower(${search.sku}) then 0 when ${p}.search @@ ${search.nameQuery}::tsquery then 1 else 2 end)`;
}

/** The sort keys of a list and how each rides in a cursor. */
export function sortKeyKinds(sort: ListSort): KeyKind[] {
  return sort === 'relevance' ? ['integer', 'timestamp'] : ORDERS[sort].keys.map((k) => k.kind);
}

/** A row's sort keys as a cursor carries them. */
export function sortKeysOf(sort: ListSort, row: { createdAt: Date; price: number; name: string }, searchRank: number | undefined): Array<string | number> {
  if (sort === 'relevance') return [searchRank!, toIso(row.createdAt)];
  const field = sort.replace('-', '') as 'createdAt' | 'price' | 'name';
  return [field === 'createdAt' ? toIso(row.createdAt) : row[field]];
}

const CAST: Record<KeyKind, SQL> = { timestamp: sql.raw('timestamptz'), integer: sql.raw('int'), text: sql.raw('text') };
const param = (value: string | number, kind: KeyKind) => sql`${value}::${CAST[kind]}`;

/** ORDER BY of a list over the products row aliased `p`. */
export function orderBy(sort: ListSort, search: SearchTerms | undefined): SQL {
  if (sort === 'relevance') return sql`${relevanceRank(search!)} asc, p.created_at desc nulls last, p.id desc nulls last`;
  const order = ORDERS[sort];
  const nulls = order.indexNulls ? (order.descending ? ' nulls last' : ' nulls first') : '';
  const direction = sql.raw((order.descending ? 'desc' : 'asc') + nulls);
  return sql.join([...order.keys.map((k) => sql`p.${sql.raw(k.column)} ${direction}`), sql`p.id ${direction}`], sql`, `);
}

/** A place in a list: a products row by its alias, or the position a cursor names. */
export type Place = { alias: string } | { position: CursorPosition };

/** The place's sort keys then its id, as SQL values; relevance's first key is the rank. */
function keysAt(sort: ListSort, search: SearchTerms | undefined, place: Place): SQL[] {
  const kinds = sortKeyKinds(sort);
  if ('position' in place) return [...place.position.keys.map((value, n) => param(value, kinds[n]!)), sql`${place.position.id}::uuid`];
  const a = place.alias;
  const columns = sort === 'relevance' ? ['created_at'] : ORDERS[sort].keys.map((k) => k.column);
  const keys = columns.map((column) => sql.raw(`${a}.${column}`));
  return [...(sort === 'relevance' ? [relevanceRank(search!, a)] : []), ...keys, sql.raw(`${a}.id`)];
}

/**
 * SQL that holds when the products row `alias` comes after `earlier` in this order. Written with
 * the row's columns on the left, so that a row comparison walks the (store, key, id) index from
 * the position on: a deep page costs what the first does.
 */
export function comesAfter(sort: ListSort, search: SearchTerms | undefined, alias: string, earlier: Place): SQL {
  const later = keysAt(sort, search, { alias });
  const before = keysAt(sort, search, earlier);
  if (sort === 'relevance') {
    const [rank, ...rest] = later;
    const [earlierRank, ...earlierRest] = before;
    return sql`(${rank} > ${earlierRank} or (${rank} = ${earlierRank} and (${sql.join(rest, sql`, `)}) < (${sql.join(earlierRest, sql`, `)})))`;
  }
  return sql`(${sql.join(later, sql`, `)}) ${sql.raw(ORDERS[sort].descending ? '<' : '>')} (${sql.join(before, sql`, `)})`;
}
