/**
 * Store and token management on the configured database, without a running server:
 *   npm run cli -- store create <slug> [--name "Name"]
 *   npm run cli -- store list
 *   npm run cli -- token create [--store <slug>] --kind admin|server|storefront
 *   npm run cli -- token revoke [--store <slug>] <token-id>
 *   npm run cli -- token list [--store <slug>]
 * `--store` may be left out while the database holds a single store.
 *   npm run cli -- webhook ... (see src/modules/webhooks/cli.ts)
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

const KINDS = ISSUABLE_TOKEN_KINDS.join('|');
const USAGE = `usage:
  npm run cli -- store create <slug> [--name "Store name"]
  npm run cli -- store list
  npm run cli -- token create [--store <slug>] --kind ${KINDS}
  npm run cli -- token revoke [--store <slug>] <token-id>
  npm run cli -- token list [--store <slug>]
--store may be left out while the database holds a single store.
${WEBHOOK_USAGE}`;

class UsageError extends Error {}
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
  if (noun === 'webhook') {
    const usage = (message: string): never => {
      throw new UsageError(message);
    };
    const slug = store();
    return async (d) => webhookCommand(verb, positionals.slice(2), { ...values, store: await slug(d) }, loadConfig().allowPrivateNetworks, usage)(d.db);
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
