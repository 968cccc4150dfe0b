/**
 * Saving an item's variants in one request (POST /v1/admin/product-groups/:group/variants): new
 * products and changes to existing ones, all in one transaction, all or none. Every refusal names
 * the entry and field it concerns (`body.variants.<i>.<field>`), decided before anything is written;
 * the unique indexes stay the last word for a concurrent writer.
 */
import type { Executor } from '../../db/client.js';
import { postgresErrorCode } from '../../db/errors.js';
import { AppError } from '../../plugins/errors.js';
import type { ErrorCode } from '../../lib/app-error.js';
import type { Recorder } from '../events/index.js';
import { recordStockCrossing } from './admin-service.js';
import { withHeld } from './held.js';
import * as variants from './variants-repository.js';
import type { SaveVariantsBody, VariantWrite } from './schemas.js';
import { nfcOptions, optionsKey, repeatedOptionName, sameOptionsConflict } from './variant-rules.js';
import { productView } from './views.js';

/** What a new product must say (the rest has defaults). */
const REQUIRED_TO_CREATE = ['name', 'slug', 'sku', 'price', 'quantity'] as const;
/** At most this many entry problems are listed (as validation problems are). */
const MAX_LISTED = 20;

interface EntryProblem {
  field: string;
  message: string;
}

const fieldOf = (index: number, key: string) => `body.variants.${index}.${key}`;

function refuse(code: ErrorCode, problems: EntryProblem[]): never {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  throw new AppError(code, `${first!.field} ${first!.message}${more}; nothing was saved`, { errors: problems.slice(0, MAX_LISTED) });
}

/** Creates and changes the products of `group` as listed, in one transaction; answers them in the request's order. */
export async function saveVariants(tx: Executor, record: Recorder, store: string, group: string, body: SaveVariantsBody) {
  const entries = body.variants.map((entry) => nfcOptions(entry));
  checkEntries(entries);
  const existing = new Map((await variants.lockProducts(tx, store, entries.flatMap((e) => (e.id ? [e.id.toLowerCase()] : [])))).map((p) => [p.id, p]));
  const missing = entries.flatMap((e, i) => (e.id && !existing.has(e.id.toLowerCase()) ? [{ field: fieldOf(i, 'id'), message: `no product ${e.id} in this store` }] : []));
  if (missing.length > 0) refuse('NOT_FOUND', missing);

  // What each entry will be once saved: an omitted slug or options stay the product's own.
  const slugs = entries.map((e) => e.slug ?? existing.get(e.id!.toLowerCase())!.slug);
  const keys = entries.map((e) => optionsKey(e.options ?? existing.get(e.id?.toLowerCase() ?? '')?.options ?? {}));
  const repeated = [...repeats(slugs, 'slug', 'is also the slug of'), ...repeats(keys, 'options', 'are also the options (compared ignoring case) of')];
  if (repeated.length > 0) refuse('VALIDATION_FAILED', repeated);
  const ids = new Set(existing.keys());
  const conflicts: EntryProblem[] = [];
  const slugHolders = await variants.productsWithSlugs(tx, store, [...new Set(slugs)]);
  for (const holder of slugHolders) {
    if (ids.has(holder.id)) continue;
    slugs.forEach((slug, i) => slug === holder.slug && conflicts.push({ field: fieldOf(i, 'slug'), message: `"${slug}" is the slug of another product` }));
  }
  for (const member of await variants.groupMembers(tx, store, group)) {
    if (ids.has(member.id)) continue;
    const key = optionsKey(member.options);
    keys.forEach((k, i) => k === key && conflicts.push({ field: fieldOf(i, 'options'), message: `product "${member.slug}" of group "${group}" already has these options (compared ignoring case)` }));
  }
  if (conflicts.length > 0) refuse('CONFLICT', conflicts);

  try {
    // Changes first: a slug or a combination one of them gives up may be taken by a new one.
    const changes = entries.flatMap((entry) => (entry.id ? [{ ...entry, id: entry.id.toLowerCase(), group }] : []));
    // Every product is locked and exists (checked above), so each change finds its row.
    if ((await variants.updateProducts(tx, store, changes)) !== changes.length) throw new AppError('CONFLICT', 'a product of these variants changed meanwhile; nothing was saved');
    const created = await variants.insertProducts(tx, store, entries.filter((e) => !e.id).map((e) => ({ ...e, group })));
    const order = entries.map((e) => (e.id ? e.id.toLowerCase() : created.get(e.slug!)!));
    const rows = new Map((await variants.findProducts(tx, store, order)).map((row) => [row.id, row]));
    const saved = await withHeld(tx, store, order.map((id) => productView(rows.get(id)!)));
    for (const [i, product] of saved.entries()) {
      const before = existing.get(order[i]!);
      record(before ? 'product.updated' : 'product.created', { product });
      if (before) await recordStockCrossing(tx, record, store, product.id, before.quantity, product.quantity);
    }
    return { group, products: saved };
  } catch (error) {
    // A concurrent writer took a slug or a combination after the checks above.
    const conflict = sameOptionsConflict(error);
    if (conflict) throw conflict;
    if (postgresErrorCode(error) === '23505') throw new AppError('CONFLICT', 'a slug of these variants was taken by another product meanwhile; nothing was saved');
    throw error;
  }
}

/** The checks that need no database: what new products lack, repeated ids, option names. */
function checkEntries(entries: VariantWrite[]): void {
  const problems: EntryProblem[] = [...repeats(entries.map((e) => e.id?.toLowerCase()), 'id', 'is also the id of')];
  for (const [i, entry] of entries.entries()) {
    if (!entry.id) {
      for (const key of REQUIRED_TO_CREATE) if (entry[key] === undefined) problems.push({ field: fieldOf(i, key), message: 'is required for a new product (an entry without id)' });
    }
    const twice = repeatedOptionName(entry.options);
    if (twice !== undefined) problems.push({ field: fieldOf(i, 'options'), message: `names "${twice}" twice (names are compared ignoring case)` });
  }
  if (problems.length > 0) refuse('VALIDATION_FAILED', problems);
}

/** An entry whose value an earlier entry already has, named by the field and the earlier entry. */
function repeats(values: Array<string | undefined>, key: string, saying: string): EntryProblem[] {
  const first = new Map<string, number>();
  const problems: EntryProblem[] = [];
  for (const [i, value] of values.entries()) {
    if (value === undefined) continue;
    const earlier = first.get(value);
    if (earlier === undefined) first.set(value, i);
    else problems.push({ field: fieldOf(i, key), message: `${saying} variants[${earlier}]` });
  }
  return problems;
}
