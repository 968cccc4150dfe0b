/**
 * Store and token management on the configured database, without a running server:
 *   npm run cli -- store create <slug> [--name "Name"]
 *   npm run cli -- store list
 *   npm run cli -- token create [--store <slug>] --kind admin|server|storefront
 *   npm run cli -- token revoke [--store <slug>] <token-id>
 *   npm run cli -- token list [--store <slug>]
 * `--store` may be left out while the database holds a single store.
 *   npm run cli -- webhook ... (see src/modules/webhooks/cli.ts)
 *   npm run cli -- order list|show|fulfil|cancel|refund ... (see src/modules/orders/cli.ts)
 *   npm run cli -- discount create <CODE> --type percentage|fixed --value <n> [...]; discount list
 *   npm run cli -- tax-rate create <COUNTRY> --rate <basis points> --name <name> [...]; tax-rate list
 *   npm run cli -- shipping-option create <name> --price <n> [...]; shipping-option list
 * Answers are JSON on stdout; `--help` prints the usage and exits 0; exit code 2 for bad usage,
 * 1 for a refusal or failure.
 */
import { parseArgs } from 'node:util';
import { openConfiguredDatabase } from './bootstrap.js';
import type { DatabaseHandle } from './db/client.js';
import { ConfigError, loadConfig } from './plugins/config.js';
import { AppError } from './plugins/errors.js';
import * as stores from './modules/stores/index.js';
import { ISSUABLE_TOKEN_KINDS, listStoreSlugs, type IssuableTokenKind } from './modules/stores/index.js';
import { WEBHOOK_USAGE, webhookCommand } from './modules/webhooks/cli.js';
import { ORDER_USAGE, orderCommand } from './modules/orders/cli.js';
import * as discounts from './modules/discounts/index.js';
import * as taxes from './modules/taxes/index.js';
import * as shipping from './modules/shipping/index.js';

const KINDS = ISSUABLE_TOKEN_KINDS.join('|');
const USAGE = `usage:
  npm run cli -- store create <slug> [--name "Store name"]
  npm run cli -- store list
  npm run cli -- token create [--store <slug>] --kind ${KINDS}
  npm run cli -- token revoke [--store <slug>] <token-id>
  npm run cli -- token list [--store <slug>]
  npm run cli -- discount create [--store <slug>] <CODE> --type percentage|fixed --value <n>
      [--min-subtotal <n>] [--usage-limit <n>] [--once-per-customer] [--starts-at <iso>] [--ends-at <iso>]
  npm run cli -- discount list [--store <slug>]
  npm run cli -- tax-rate create [--store <slug>] <COUNTRY> --rate <basis points> --name <name> [--region <state>] [--category <category>]
  npm run cli -- tax-rate list [--store <slug>]
  npm run cli -- shipping-option create [--store <slug>] <name> --price <n> [--countries US,CA] [--free-above <n>] [--min-subtotal <n>] [--inactive]
  npm run cli -- shipping-option list [--store <slug>]
--store may be left out while the database holds a single store.
${WEBHOOK_USAGE}
${ORDER_USAGE}`;

class UsageError extends Error {}
const usageError = (message: string): never => {
  throw new UsageError(message);
};
/** `--help`: the usage on stdout, and success. */
class HelpRequested extends Error {}

type Command = (database: DatabaseHandle) => Promise<unknown>;

function parse(argv: string[]): Command {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' }, store: { type: 'string' }, kind: { type: 'string' }, help: { type: 'boolean', short: 'h' },
      url: { type: 'string' }, events: { type: 'string' }, description: { type: 'string' }, status: { type: 'string' },
      disable: { type: 'boolean' }, enable: { type: 'boolean' },
      type: { type: 'string' }, value: { type: 'string' }, 'min-subtotal': { type: 'string' }, 'usage-limit': { type: 'string' },
      'once-per-customer': { type: 'boolean' }, 'starts-at': { type: 'string' }, 'ends-at': { type: 'string' },
      rate: { type: 'string' }, region: { type: 'string' }, category: { type: 'string' }, price: { type: 'string' }, countries: { type: 'string' },
      'free-above': { type: 'string' }, inactive: { type: 'boolean' },
      'fulfillment-status': { type: 'string' }, 'payment-status': { type: 'string' }, lines: { type: 'string' }, 'tracking-number': { type: 'string' },
      'tracking-url': { type: 'string' }, carrier: { type: 'string' }, amount: { type: 'string' }, reason: { type: 'string' }, restock: { type: 'boolean' },
    },
  });
  if (values.help) throw new HelpRequested();
  const [noun, verb, arg] = positionals;
  // The named store, or the only one there is.
  const store = () => async (database: DatabaseHandle) => {
    if (values.store) return values.store;
    const slugs = await listStoreSlugs(database.db, 2);
    if (slugs.length !== 1) throw new UsageError(`--store <slug> is required: the database holds ${slugs.length === 0 ? 'no store' : 'several stores'}`);
    return slugs[0]!;
  };
  if (noun === 'store' && verb === 'create' && arg && positionals.length === 3) {
    return (d) => stores.createStore(d.db, arg, values.name);
  }
  if (noun === 'store' && verb === 'list' && positionals.length === 2) {
    return async (d) => ({ stores: await stores.listStores(d.db) });
  }
  if (noun === 'token' && verb === 'create' && positionals.length === 2) {
    const kind = values.kind;
    if (!(ISSUABLE_TOKEN_KINDS as string[]).includes(kind ?? '')) throw new UsageError(`--kind must be one of ${KINDS}`);
    const slug = store();
    return async (d) => stores.createToken(d.db, await slug(d), kind as IssuableTokenKind);
  }
  if (noun === 'token' && verb === 'revoke' && arg && positionals.length === 3) {
    const slug = store();
    if (!/^[0-9a-f-]{36}$/i.test(arg)) throw new UsageError('the token id must be a UUID');
    return async (d) => ({ token: await stores.revokeToken(d.db, await slug(d), arg) });
  }
  if (noun === 'token' && verb === 'list' && positionals.length === 2) {
    const slug = store();
    return async (d) => ({ tokens: await stores.listTokens(d.db, await slug(d)) });
  }
  const int = (name: string, text: string | undefined, min: number, max = 100_000_000) => {
    if (text === undefined) return undefined;
    if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new UsageError(`--${name} must be an integer ${min}..${max}`);
    return Number(text);
  };
  const text = (name: string, value: string | undefined, max: number) => {
    if (value !== undefined && (value.length < 1 || value.length > max)) throw new UsageError(`--${name} must be 1..${max} characters`);
    return value;
  };
  if (noun === 'tax-rate' && verb === 'create' && arg && positionals.length === 3) {
    if (!/^[A-Za-z]{2}$/.test(arg)) throw new UsageError('the country must be an ISO 3166-1 alpha-2 code');
    const body = {
      country: arg, rate: int('rate', values.rate, 0, 10000) ?? usageError('--rate is required (basis points: 825 = 8.25 %)'),
      name: text('name', values.name, 80) ?? usageError('--name is required'), region: text('region', values.region, 40) ?? null, category: text('category', values.category, 40) ?? null,
    };
    const slug = store();
    return async (d) => {
      const target = await slug(d);
      return d.db.transaction((tx) => taxes.createTaxRate(tx, target, body));
    };
  }
  if (noun === 'tax-rate' && verb === 'list' && positionals.length === 2) {
    const slug = store();
    return async (d) => taxes.listTaxRates(d.db, await slug(d), { limit: 250 });
  }
  if (noun === 'shipping-option' && verb === 'create' && arg && positionals.length === 3) {
    const countries = values.countries === undefined ? [] : values.countries.split(',').map((c) => c.trim());
    if (countries.some((c) => !/^[A-Za-z]{2}$/.test(c))) throw new UsageError('--countries must be ISO 3166-1 alpha-2 codes, comma-separated');
    const body = {
      name: text('name', arg, 80)!, price: int('price', values.price, 0) ?? usageError('--price is required'), countries,
      freeAbove: int('free-above', values['free-above'], 0) ?? null, minSubtotal: int('min-subtotal', values['min-subtotal'], 0) ?? 0, active: !values.inactive,
    };
    const slug = store();
    return async (d) => {
      const target = await slug(d);
      return d.db.transaction((tx) => shipping.createShippingOption(tx, target, body));
    };
  }
  if (noun === 'shipping-option' && verb === 'list' && positionals.length === 2) {
    const slug = store();
    return async (d) => shipping.listShippingOptions(d.db, await slug(d), { limit: 250 });
  }
  if (noun === 'discount' && verb === 'create' && arg && positionals.length === 3) {
    const when = (name: string, text: string | undefined) => {
      if (text !== undefined && Number.isNaN(Date.parse(text))) throw new UsageError(`--${name} must be an ISO 8601 timestamp`);
      return text === undefined ? undefined : new Date(text).toISOString();
    };
    if (!/^[A-Za-z0-9_-]{3,40}$/.test(arg)) throw new UsageError('the code must be 3..40 letters, digits, _ or -');
    if (values.type !== 'percentage' && values.type !== 'fixed') throw new UsageError('--type must be percentage or fixed');
    const body = {
      code: arg, type: values.type as 'percentage' | 'fixed', value: int('value', values.value, 1) ?? usageError('--value is required'),
      minSubtotal: int('min-subtotal', values['min-subtotal'], 0), usageLimit: int('usage-limit', values['usage-limit'], 1),
      oncePerCustomer: values['once-per-customer'], startsAt: when('starts-at', values['starts-at']), endsAt: when('ends-at', values['ends-at']),
    };
    const slug = store();
    return async (d) => {
      const target = await slug(d);
      return d.db.transaction((tx) => discounts.createDiscount(tx, target, body));
    };
  }
  if (noun === 'discount' && verb === 'list' && positionals.length === 2) {
    const slug = store();
    return async (d) => discounts.listDiscounts(d.db, await slug(d), { limit: 250 });
  }
  if (noun === 'webhook') {
    const usage = (message: string): never => {
      throw new UsageError(message);
    };
    const slug = store();
    return async (d) => webhookCommand(verb, positionals.slice(2), { ...values, store: await slug(d) }, loadConfig().allowPrivateNetworks, usage)(d.db);
  }
  if (noun === 'order') {
    const slug = store();
    return async (d) => orderCommand(verb, positionals.slice(2), { ...values, store: await slug(d) }, loadConfig(), usageError)(d.db);
  }
  throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
}

async function main(): Promise<number> {
  let command: Command;
  try {
    command = parse(process.argv.slice(2));
  } catch (error) {
    if (error instanceof HelpRequested) {
      console.log(USAGE);
      return 0;
    }
    const message = error instanceof Error ? error.message : String(error);
    console.error(message ? `${message}\n${USAGE}` : USAGE);
    return 2;
  }
  let database: DatabaseHandle | undefined;
  try {
    database = await openConfiguredDatabase(loadConfig(), { waitMs: 5000 });
    console.log(JSON.stringify(await command(database), null, 2));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n${USAGE}`);
      return 2;
    }
    const message = error instanceof AppError ? error.detail : error instanceof Error ? error.message : String(error);
    console.error(error instanceof ConfigError ? message : `error: ${message}`);
    return 1;
  } finally {
    await database?.close();
  }
}

process.exitCode = await main();
