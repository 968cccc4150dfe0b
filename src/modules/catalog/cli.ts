/**
 * The catalog commands of `npm run cli`, on the configured database, by the admin API's rules:
 *   product list [--status DRAFT|ACTIVE] [--q <words>]
 *   product create --name <text> --slug <slug> --sku <text> --price <n> --quantity <n> [...]
 *   product update <slug|id> [--name ..] [--price ..] [--quantity ..] [--status ..] [...]
 *   collection list
 * Bodies are checked with the API's own schemas (CreateProductBody, UpdateProductBody), so the
 * command line refuses exactly what the API refuses; a change records its events and bumps the
 * store's catalog version, as the write pipeline does, so running servers see it at once.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import type { Database } from '../../db/client.js';
import { AppError } from '../../plugins/errors.js';
import { withRecordedEvents } from '../events/index.js';
import { findStore, markCatalogChanged } from '../stores/index.js';
import * as admin from './admin-service.js';
import { findProductIdBySlug } from './repository.js';
import { CreateProductBody, UpdateProductBody } from './schemas.js';

export const CATALOG_USAGE = `  npm run cli -- product list [--store <slug>] [--status DRAFT|ACTIVE] [--q <words>]
  npm run cli -- product create [--store <slug>] --name "Name" --slug <slug> --sku <sku> --price <n> --quantity <n>
      [--status DRAFT|ACTIVE] [--original-price <n>] [--description "<p>HTML</p>"] [--collection <slug>]
  npm run cli -- product update [--store <slug>] <product slug or id> [--name ..] [--slug ..] [--sku ..] [--price ..]
      [--original-price <n>|null] [--quantity ..] [--status ..] [--description ..]
  npm run cli -- collection list [--store <slug>]
      Prices are integers in the smallest currency unit (--price 4990 is 49.90); a new product is a DRAFT unless --status ACTIVE.`;

export interface CatalogFlags {
  store: string;
  name?: string;
  slug?: string;
  sku?: string;
  price?: string;
  'original-price'?: string;
  quantity?: string;
  status?: string;
  description?: string;
  collection?: string;
  q?: string;
}

type Usage = (message: string) => never;

// ajv-formats is CommonJS; its default export arrives wrapped under ES modules.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: false }));

const FLAG_OF: Record<string, string> = { originalPrice: 'original-price' };
const flagOf = (field: string) => `--${FLAG_OF[field] ?? field}`;

/** The API's refusal of a body, in the command line's words: the flag and what is wrong with it. */
function describe(errors: ErrorObject[]): string {
  return errors
    .map((error) => {
      if (error.keyword === 'required') return `${flagOf(String(error.params.missingProperty))} is required`;
      const field = error.instancePath.split('/')[1] ?? '';
      const unit = field === 'price' || field === 'originalPrice' ? ' (an integer in the smallest currency unit: 4990 is 49.90)' : '';
      return `${flagOf(field)} ${error.message ?? 'is not valid'}${unit}`;
    })
    .filter((line, i, all) => all.indexOf(line) === i)
    .join('; ');
}

function checked<T>(schema: TSchema, body: Record<string, unknown>, usage: Usage): T {
  const validate = ajv.compile(schema);
  if (!validate(body)) usage(describe(validate.errors ?? []));
  return body as T;
}

/** What the flags say of a product: numbers as numbers (anything else is left for the schema to refuse). */
function productBody(flags: CatalogFlags): Record<string, unknown> {
  const number = (text: string | undefined) => (text !== undefined && /^-?\d+$/.test(text) ? Number(text) : text);
  const fields: Record<string, unknown> = {
    name: flags.name, slug: flags.slug, sku: flags.sku, price: number(flags.price), quantity: number(flags.quantity),
    status: flags.status, description: flags.description,
    originalPrice: flags['original-price'] === 'null' ? null : number(flags['original-price']),
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** A change, as the write pipeline makes it: its events in its transaction, then the catalog version. */
async function change<T>(db: Database, store: string, work: Parameters<typeof withRecordedEvents<T>>[2]): Promise<T> {
  const result = await withRecordedEvents(db, store, work);
  await markCatalogChanged(db, store);
  return result;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The command for `product|collection <verb> ...`; calls `usage` (which throws) on bad usage. */
export function catalogCommand(noun: string, verb: string | undefined, args: string[], flags: CatalogFlags, usage: Usage) {
  const { store } = flags;
  const inStore = (run: (db: Database) => Promise<unknown>) => async (db: Database) => {
    if (!(await findStore(db, store))) throw new AppError('NOT_FOUND', `store "${store}" not found`);
    return run(db);
  };
  const collectionId = async (db: Database, slug: string) => {
    const { collections } = await admin.listAdminCollections(db, store, { limit: 250 });
    const found = collections.find((c) => c.slug === slug);
    if (!found) throw new AppError('NOT_FOUND', `collection "${slug}" not found`);
    return found.id;
  };
  if (noun === 'collection' && verb === 'list') {
    if (args.length > 0) usage('collection list takes no arguments');
    return inStore((db) => admin.listAdminCollections(db, store, { limit: 250 }));
  }
  if (noun !== 'product') return usage(`unknown command: ${noun} ${verb ?? ''}`);
  switch (verb) {
    case 'list': {
      if (args.length > 0) usage('product list takes no arguments');
      if (flags.status !== undefined && flags.status !== 'DRAFT' && flags.status !== 'ACTIVE') usage('--status must be DRAFT or ACTIVE');
      const query = { limit: 250, status: flags.status as 'DRAFT' | 'ACTIVE' | undefined, q: flags.q };
      return inStore((db) => admin.listAdminProducts(db, store, query));
    }
    case 'create': {
      if (args.length > 0) usage('product create takes flags only (--name, --slug, ...)');
      const body = checked<CreateProductBody>(CreateProductBody, productBody(flags), usage);
      return inStore(async (db) => {
        const into = flags.collection === undefined ? undefined : await collectionId(db, flags.collection);
        const created = await change(db, store, async (tx, record) => {
          const { product } = await admin.createProduct(tx, record, store, body);
          if (into) await admin.addProductToCollection(tx, record, store, into, product.id);
          return product;
        });
        // Read again once committed: its counts include the collection it was put in.
        return into ? admin.getAdminProduct(db, store, created.id) : { product: created };
      });
    }
    case 'update': {
      if (args.length !== 1) usage('product update takes one product: its slug or id');
      if (flags.collection !== undefined) usage('product update does not change collections');
      const body = productBody(flags);
      if (Object.keys(body).length === 0) usage('product update needs something to change (--name, --price, --quantity, --status, ...)');
      const valid = checked<UpdateProductBody>(UpdateProductBody, body, usage);
      const [ref] = args as [string];
      return inStore(async (db) => {
        const id = UUID.test(ref) ? ref : await findProductIdBySlug(db, store, ref);
        if (!id) throw new AppError('NOT_FOUND', `product "${ref}" not found`);
        return change(db, store, (tx, record) => admin.updateProduct(tx, record, store, id, valid));
      });
    }
    default:
      return usage(`unknown command: product ${verb ?? ''}`);
  }
}
