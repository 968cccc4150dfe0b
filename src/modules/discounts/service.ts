/**
 * Discount codes: the admin API's rules, and what carts and orders read of a code (the rules
 * pricing decides with). The amount and whether a code applies are pricing's (pricing/discount.ts).
 */
import { mapped, parts, type BesideWrite, type Database, type Executor, type Part } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import type { DiscountRule } from '../pricing/index.js';
import * as repo from './repository.js';
import type { CreateDiscountBody, UpdateDiscountBody } from './schemas.js';
import { discountView } from './views.js';

const notFound = (id: string) => new AppError('NOT_FOUND', `discount ${id} not found`);
const invalid = (field: string, message: string) => new AppError('VALIDATION_FAILED', `${field} ${message}`, { errors: [{ field, message }] });

/** The code as stored and matched: upper-case. */
export const normalizeCode = (code: string) => code.trim().toUpperCase();

const lower = (ids: readonly string[]) => [...new Set(ids.map((id) => id.toLowerCase()))];
const dateOrNull = (value: string | null | undefined) => (value == null ? null : new Date(value));

/** The rules no schema can say: a percentage is at most 100, start before end, ids of this store. */
async function validate(db: Executor, store: string, f: repo.DiscountFields): Promise<void> {
  if (f.type === 'percentage' && f.value > 100) throw invalid('/value', 'must be at most 100 for a percentage');
  if (f.startsAt && f.endsAt && f.startsAt.getTime() >= f.endsAt.getTime()) throw invalid('/endsAt', 'must be after startsAt');
  for (const table of ['products', 'collections'] as const) {
    const ids = f[table];
    const found = await repo.existingIds(db, store, table, ids);
    const missing = ids.find((id) => !found.has(id));
    if (missing) throw invalid(`/${table}`, `holds ${missing}, which is not a ${table.slice(0, -1)} of this store`);
  }
}

export async function createDiscount(tx: Executor, store: string, body: CreateDiscountBody) {
  const fields: repo.DiscountFields = {
    type: body.type,
    value: body.value,
    minSubtotal: body.minSubtotal ?? 0,
    startsAt: dateOrNull(body.startsAt),
    endsAt: dateOrNull(body.endsAt),
    usageLimit: body.usageLimit ?? null,
    oncePerCustomer: body.oncePerCustomer ?? false,
    products: lower(body.products ?? []),
    collections: lower(body.collections ?? []),
    active: body.active ?? true,
  };
  await validate(tx, store, fields);
  const code = normalizeCode(body.code);
  if ((await repo.findByCodes(tx, store, [code])).length > 0) throw new AppError('CONFLICT', `discount code ${code} already exists`);
  return { discount: discountView(await repo.insertDiscount(tx, store, code, fields)) };
}

export async function updateDiscount(tx: Executor, store: string, id: string, body: UpdateDiscountBody) {
  const row = await repo.findDiscount(tx, store, id, { lock: true });
  if (!row) throw notFound(id);
  const fields: repo.DiscountFields = {
    type: body.type ?? row.type,
    value: body.value ?? row.value,
    minSubtotal: body.minSubtotal ?? row.minSubtotal,
    startsAt: body.startsAt === undefined ? row.startsAt : dateOrNull(body.startsAt),
    endsAt: body.endsAt === undefined ? row.endsAt : dateOrNull(body.endsAt),
    usageLimit: body.usageLimit === undefined ? row.usageLimit : body.usageLimit,
    oncePerCustomer: body.oncePerCustomer ?? row.oncePerCustomer,
    products: body.products ? lower(body.products) : row.products,
    collections: body.collections ? lower(body.collections) : row.collections,
    active: body.active ?? row.active,
  };
  await validate(tx, store, fields);
  return { discount: discountView(await repo.updateDiscount(tx, store, row.id, fields)) };
}

export async function deleteDiscount(tx: Executor, store: string, id: string) {
  const row = await repo.findDiscount(tx, store, id, { lock: true });
  if (!row) throw notFound(id);
  return { discount: discountView(await repo.softDeleteDiscount(tx, store, row.id)) };
}

export async function getDiscount(db: Database, store: string, id: string) {
  const row = await repo.findDiscount(db, store, id);
  if (!row) throw notFound(id);
  return { discount: discountView(row) };
}

export async function listDiscounts(db: Executor, store: string, query: { limit?: number; offset?: number }) {
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0 };
  const [rows, total] = await Promise.all([repo.listDiscounts(db, store, page), repo.countDiscounts(db, store)]);
  return { discounts: rows.map(discountView), total };
}

/** A discount row with what pricing needs to know about the given products. */
async function ruleOf(db: Executor, store: string, row: repo.DiscountRow, productIds: string[]): Promise<DiscountRule> {
  return { ...row, inCollections: await repo.productsInCollections(db, store, row.collections, productIds) };
}

/** The non-deleted discount with this code (any case), as a rule for these products; undefined when there is none. */
export async function discountByCode(db: Executor, store: string, code: string, productIds: string[]): Promise<DiscountRule | undefined> {
  const [row] = await repo.findByCodes(db, store, [normalizeCode(code)]);
  return row ? ruleOf(db, store, row, productIds) : undefined;
}

/** Discounts by id (deleted ones too: a cart keeps showing its code), as rules for the given products of each. */
export async function discountsById(db: Executor, store: string, wanted: Array<{ id: string; productIds: string[] }>): Promise<Map<string, DiscountRule>> {
  const rows = await repo.findByIds(db, store, [...new Set(wanted.map((w) => w.id))]);
  return rulesFor(db, store, rows, wanted);
}

/**
 * `discountsById` for several stores (a round of many): the discounts of them all in one statement
 * (a code's collections, when it has some, are read for its store). Every store given has its map.
 */
export async function discountsByIdOfStores(db: Executor, wanted: Array<{ store: string; ids: Array<{ id: string; productIds: string[] }> }>): Promise<Map<string, Map<string, DiscountRule>>> {
  const keys = wanted.flatMap(({ store, ids }) => [...new Set(ids.map((w) => w.id))].map((key) => ({ store, key })));
  const found = await repo.findByStoresIds(db, keys);
  const rules = new Map<string, Map<string, DiscountRule>>();
  for (const { store, ids } of wanted) rules.set(store, await rulesFor(db, store, found.filter((r) => r.store === store), ids));
  return rules;
}

async function rulesFor(db: Executor, store: string, rows: repo.DiscountRow[], wanted: Array<{ id: string; productIds: string[] }>): Promise<Map<string, DiscountRule>> {
  const rules = new Map<string, DiscountRule>();
  for (const row of rows) {
    const productIds = [...new Set(wanted.filter((w) => w.id === row.id).flatMap((w) => w.productIds))];
    rules.set(row.id, await ruleOf(db, store, row, productIds));
  }
  return rules;
}

/** What a round of orders needs of its codes: the rules (by id and by code) and who used a once-per-customer code. */
export interface RoundDiscounts {
  byId: Map<string, DiscountRule>;
  byCode: Map<string, DiscountRule>;
  usedBy: string[];
}

/** What a round of orders names of codes: cart codes by id, product-list codes by code, for the products of each. */
export interface RoundWanted {
  ids: Array<{ id: string; productIds: string[] }>;
  codes: Array<{ code: string; productIds: string[] }>;
  customerIds: string[];
  emails: string[];
}

/**
 * Reads the discounts a round of orders of one store or several names (cart discounts by id,
 * product-list orders by code), one statement per step over all its stores: by store, every store
 * given answered, a store's codes only its own. The part is the first step, an unlocked read, sent
 * with the round's other reads; its value takes the rest: a code with a usage limit or once per
 * customer is locked ((store, id) order, after the products) and read again under the lock, so the
 * round's count is exact whatever the concurrency and the number of processes; an unlimited code is
 * only read (its count is added by a guarded update, `countedUses`).
 */
export function discountsForStoresRoundPart(stores: Array<{ store: string; wanted: RoundWanted }>): Part<(tx: Executor) => Promise<Map<string, RoundDiscounts>>> {
  const asked = stores.map(({ store, wanted }) => ({ store, wanted, codes: [...new Set(wanted.codes.map((c) => normalizeCode(c.code)))] }));
  const reads = parts([
    repo.findByStoresIdsPart(asked.flatMap(({ store, wanted }) => [...new Set(wanted.ids.map((w) => w.id))].map((key) => ({ store, key })))),
    repo.findByStoresCodesPart(asked.flatMap(({ store, codes }) => codes.map((key) => ({ store, key })))),
  ] as const);
  return mapped(reads, ([byId, byCode]) => (tx: Executor) => roundDiscounts(tx, asked, [...byId, ...byCode]));
}

async function roundDiscounts(tx: Executor, asked: Array<{ store: string; wanted: RoundWanted; codes: string[] }>, found: repo.DiscountRow[]): Promise<Map<string, RoundDiscounts>> {
  const guarded = [...new Map(found.filter((r) => r.usageLimit !== null || r.oncePerCustomer).map((r) => [`${r.store}\n${r.id}`, { store: r.store, key: r.id }])).values()];
  const locked = new Map((await repo.findByStoresIds(tx, guarded, { lock: true })).map((r) => [`${r.store}\n${r.id}`, r]));
  const rowsOf = new Map<string, repo.DiscountRow[]>(asked.map(({ store }) => [store, []]));
  for (const r of new Map(found.map((r) => [`${r.store}\n${r.id}`, locked.get(`${r.store}\n${r.id}`) ?? r])).values()) rowsOf.get(r.store)!.push(r);
  const rounds = [];
  for (const { store, wanted, codes } of asked) {
    const rows = rowsOf.get(store)!;
    const byCodeRows = rows.filter((r) => r.deletedAt === null && codes.includes(r.code));
    const needs = [
      ...wanted.ids,
      ...wanted.codes.flatMap((c) => byCodeRows.filter((r) => r.code === normalizeCode(c.code)).map((r) => ({ id: r.id, productIds: c.productIds }))),
    ];
    // A rule reads its collections' products only when it has collections: most stores read nothing here.
    const byId = await rulesFor(tx, store, rows, needs);
    const byCode = new Map(byCodeRows.map((r) => [r.code, byId.get(r.id)!]));
    const once = rows.filter((r) => r.oncePerCustomer).map((r) => r.id);
    rounds.push({ store, byId, byCode, once, customerIds: wanted.customerIds, emails: [...new Set(wanted.emails.map((e) => e.toLowerCase()))] });
  }
  const customers = await repo.storesCustomersWhoUsed(tx, rounds.map((r) => ({ store: r.store, discountIds: r.once, customerIds: r.customerIds })));
  const emails = await repo.storesEmailsWhoUsed(tx, rounds.map((r) => ({ store: r.store, discountIds: r.once, emails: r.emails })));
  return new Map(rounds.map((r) => [r.store, { byId: r.byId, byCode: r.byCode, usedBy: [...(customers.get(r.store) ?? []), ...(emails.get(r.store) ?? [])] }]));
}

/**
 * Counts a round's uses, of one store or several: `write`, one guarded update for them all, made
 * inside the statement that writes the round's orders (the round fails if it counted fewer codes
 * than it used, which the locks make impossible). With several codes they are locked in (store, id)
 * order first (`lock`), so two rounds counting the same codes cannot deadlock.
 */
export function countedUses(uses: Array<{ store: string; id: string; uses: number }>): { lock: (tx: Executor) => Promise<void>; write: BesideWrite | null } {
  return {
    lock: async (tx) => {
      if (uses.length > 1) await repo.findByStoresIds(tx, uses.map((u) => ({ store: u.store, key: u.id })), { lock: true });
    },
    write: uses.length === 0 ? null : repo.storesUses(uses),
  };
}

/** A cancelled order gives its use back. */
export const returnUse = repo.returnUse;
