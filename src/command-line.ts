/**
 * The command line (`npm run cli`, src/cli.ts): store and token management on the configured
 * database, without a running server:
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
 *   npm run cli -- product list|create|update, collection list (see src/modules/catalog/cli.ts)
 *   npm run cli -- staff create-owner [--store <slug>] <email>   (prints a generated password once)
 * Answers are JSON on stdout; `--help` prints the usage and exits 0; exit code 2 for bad usage,
 * 1 for a refusal or failure. It takes its arguments, environment and output streams as values, so
 * the tests run it in their own process: a new process costs seconds of module loading a call.
 */
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { openConfiguredDatabase } from './bootstrap.js';
import { DataDirLockedError } from './db/data-dir-lock.js';
import { demoTokensPath, shownPath } from './seed/demo-tokens.js';
import type { DatabaseHandle } from './db/client.js';
import { ConfigError, loadConfig, type Config } from './plugins/config.js';
import { AppError } from './plugins/errors.js';
import { bodyValidator } from './plugins/validation.js';
import { postgresErrorCode } from './db/errors.js';
import * as stores from './modules/stores/index.js';
import { ISSUABLE_TOKEN_KINDS, listStoreSlugs, type IssuableTokenKind } from './modules/stores/index.js';
import { WEBHOOK_USAGE, webhookCommand } from './modules/webhooks/cli.js';
import { CATALOG_USAGE, catalogCommand } from './modules/catalog/cli.js';
import { ORDER_USAGE, orderCommand } from './modules/orders/cli.js';
import * as discounts from './modules/discounts/index.js';
import * as taxes from './modules/taxes/index.js';
import * as shipping from './modules/shipping/index.js';
import * as staff from './modules/staff/index.js';

const KINDS = ISSUABLE_TOKEN_KINDS.join('|');
const USAGE = `usage:
  npm run cli -- store create <slug> [--name "Store name"]
  npm run cli -- store list
  npm run cli -- token create [--store <slug>] --kind ${KINDS}
  npm run cli -- token revoke [--store <slug>] <token-id>
  npm run cli -- token list [--store <slug>]
  npm run cli -- discount create [--store <slug>] <CODE> --type percentage|fixed --value <n>
      [--min-subtotal <n>] [--usage-limit <n>] [--once-per-customer] [--starts-at <iso>] [--ends-at <iso>]
      --value is percent with --type percentage (1..100: 10 is 10 % off), an amount in the smallest currency
      unit with --type fixed (500 is 5.00 off); --min-subtotal is in the smallest currency unit too.
  npm run cli -- discount list [--store <slug>]
  npm run cli -- tax-rate create [--store <slug>] <COUNTRY> --rate <basis points> --name <name> [--region <state>] [--category <category>]
  npm run cli -- tax-rate list [--store <slug>]
  npm run cli -- shipping-option create [--store <slug>] <name> --price <n> [--countries US,CA] [--free-above <n>] [--min-subtotal <n>] [--inactive]
  npm run cli -- shipping-option list [--store <slug>]
  npm run cli -- staff create-owner [--store <slug>] <email>
      (an owner who signs in to the dashboard at /admin with the password printed once)
${CATALOG_USAGE}
${WEBHOOK_USAGE}
${ORDER_USAGE}
--store may be left out while the database holds a single store. The embedded database is one process's:
with it, run these while the server is stopped (with DATABASE_URL, at any time).`;

class UsageError extends Error {}
const usageError = (message: string): never => {
  throw new UsageError(message);
};
/** `--help`: the usage on stdout, and success. */
class HelpRequested extends Error {}

type Command = (database: DatabaseHandle, config: Config) => Promise<unknown>;

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
      rate: { type: 'string' }, region: { type: 'string' }, category: { type: 'string' }, countries: { type: 'string' },
      'free-above': { type: 'string' }, inactive: { type: 'boolean' },
      slug: { type: 'string' }, sku: { type: 'string' }, price: { type: 'string' }, 'original-price': { type: 'string' },
      quantity: { type: 'string' }, collection: { type: 'string' }, q: { type: 'string' },
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
    // Any integer: the API's schema below judges the bounds, as POST /v1/admin/discounts would.
    const int = (name: string, text: string | undefined) => {
      if (text === undefined) return undefined;
      if (!/^-?\d+$/.test(text)) throw new UsageError(`--${name} must be an integer`);
      return Number(text);
    };
    const when = (name: string, text: string | undefined) => {
      if (text !== undefined && Number.isNaN(Date.parse(text))) throw new UsageError(`--${name} must be an ISO 8601 timestamp`);
      return text === undefined ? undefined : new Date(text).toISOString();
    };
    const given = {
      code: arg, type: values.type ?? usageError('--type is required'), value: int('value', values.value) ?? usageError('--value is required'),
      minSubtotal: int('min-subtotal', values['min-subtotal']), usageLimit: int('usage-limit', values['usage-limit']),
      oncePerCustomer: values['once-per-customer'], startsAt: when('starts-at', values['starts-at']), endsAt: when('ends-at', values['ends-at']),
    };
    // The API's own schema judges the body (bounds, the code's pattern), as POST /v1/admin/discounts would.
    const body = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as unknown as discounts.CreateDiscountBody;
    const problems = validateDiscount(body);
    if (problems.length > 0) throw new UsageError(problems.map((p) => `${p.field.replace(/^body\/?/, '') || 'body'} ${p.message}`).join('; '));
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
  if (noun === 'product' || noun === 'collection') {
    const slug = store();
    return async (d) => catalogCommand(noun, verb, positionals.slice(2), { ...values, store: await slug(d) }, usageError)(d.db);
  }
  if (noun === 'staff' && verb === 'create-owner' && arg && positionals.length === 3) {
    if (!/^[^\s@]+@[^\s@]+$/.test(arg) || arg.length > 254) throw new UsageError('the email must look like name@example.com');
    const slug = store();
    return async (d) => {
      const target = await slug(d);
      const password = staff.newPassword();
      const owner = await d.db.transaction((tx) => staff.createOwner(tx, target, arg, password));
      if (!owner) throw new AppError('CONFLICT', `${arg} already has an account in store ${target}`);
      return { staff: owner, store: target, password };
    };
  }
  if (noun === 'webhook') {
    const usage = (message: string): never => {
      throw new UsageError(message);
    };
    const slug = store();
    return async (d, config) => webhookCommand(verb, positionals.slice(2), { ...values, store: await slug(d) }, config.allowPrivateNetworks, usage)(d.db);
  }
  if (noun === 'order') {
    const slug = store();
    return async (d, config) => orderCommand(verb, positionals.slice(2), { ...values, store: await slug(d) }, config, usageError)(d.db);
  }
  throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
}

/**
 * The embedded database is one process's (PGlite): beside a running server the CLI cannot open
 * it, so it says what to do instead, with the tokens `npm start` keeps for the demo store.
 */
function besideARunningServer(dataDir: string): string {
  const tokens = existsSync(demoTokensPath(dataDir))
    ? `The demo store's tokens are in ${shownPath(demoTokensPath(dataDir))}: load them with \`. ${shownPath(demoTokensPath(dataDir))}\` and use the API (the README's walkthrough), or `
    : '';
  return `${tokens}stop the server (Ctrl-C) and run this command again; to run both at once, use a PostgreSQL server (DATABASE_URL).`;
}

const validateDiscount = bodyValidator(discounts.CreateDiscountBody);

/**
 * What a failure says: a refusal's detail, or for a database error only its SQLSTATE, never the
 * statement or its parameters (they may carry a customer's data or a secret).
 */
function failureMessage(error: unknown): string {
  if (error instanceof AppError) return error.detail;
  const code = postgresErrorCode(error);
  if (code !== undefined) return `the database refused the command (SQLSTATE ${code})`;
  const message = error instanceof Error ? error.message : String(error);
  return /Failed query|params:/i.test(message) ? 'the database command failed' : message;
}

/** Where a run of the command line reads its settings and writes its answer. */
export interface CommandLineIo {
  env: NodeJS.ProcessEnv;
  /** The answer, for stdout (a newline follows it, as console.log writes). */
  out: (text: string) => void;
  /** A refusal or the usage, for stderr (a newline follows it). */
  err: (text: string) => void;
}

/** Runs one command to its end; resolves with the process exit code. */
export async function runCommandLine(argv: string[], { env, out, err }: CommandLineIo): Promise<number> {
  let command: Command;
  try {
    command = parse(argv);
  } catch (error) {
    if (error instanceof HelpRequested) {
      out(USAGE);
      return 0;
    }
    const message = error instanceof Error ? error.message : String(error);
    err(message ? `${message}\n${USAGE}` : USAGE);
    return 2;
  }
  let database: DatabaseHandle | undefined;
  let config: Config | undefined;
  try {
    config = loadConfig(env);
    database = await openConfiguredDatabase(config, { waitMs: 5000 });
    out(JSON.stringify(await command(database, config), null, 2));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      err(`${error.message}\n${USAGE}`);
      return 2;
    }
    if (error instanceof DataDirLockedError && config) {
      err(`error: ${error.message}\n${besideARunningServer(config.dataDir)}`);
      return 1;
    }
    err(error instanceof ConfigError ? error.message : `error: ${failureMessage(error)}`);
    return 1;
  } finally {
    await database?.close();
  }
}
