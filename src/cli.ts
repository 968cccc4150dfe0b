/**
 * Store and token management on the configured database, without a running server:
 *   npm run cli -- store create <slug> [--name "Name"]
 *   npm run cli -- token create --store <slug> --kind admin|storefront
 *   npm run cli -- token revoke --store <slug> <token-id>
 *   npm run cli -- token list --store <slug>
 * Answers are JSON on stdout; exit code 2 for bad usage, 1 for a refusal or failure.
 */
import { parseArgs } from 'node:util';
import { openConfiguredDatabase } from './bootstrap.js';
import type { DatabaseHandle } from './db/client.js';
import { ConfigError, loadConfig } from './plugins/config.js';
import { AppError } from './plugins/errors.js';
import * as stores from './modules/stores/service.js';

const USAGE = `usage:
  npm run cli -- store create <slug> [--name "Store name"]
  npm run cli -- token create --store <slug> --kind admin|storefront
  npm run cli -- token revoke --store <slug> <token-id>
  npm run cli -- token list --store <slug>`;

class UsageError extends Error {}

type Command = (database: DatabaseHandle) => Promise<unknown>;

function parse(argv: string[]): Command {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, store: { type: 'string' }, kind: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) throw new UsageError('');
  const [noun, verb, arg] = positionals;
  const store = () => {
    if (!values.store) throw new UsageError('--store <slug> is required');
    return values.store;
  };
  if (noun === 'store' && verb === 'create' && arg && positionals.length === 3) {
    return (d) => stores.createStore(d.db, arg, values.name);
  }
  if (noun === 'token' && verb === 'create' && positionals.length === 2) {
    const kind = values.kind;
    if (kind !== 'admin' && kind !== 'storefront') throw new UsageError('--kind must be admin or storefront');
    const slug = store();
    return (d) => stores.createToken(d.db, slug, kind);
  }
  if (noun === 'token' && verb === 'revoke' && arg && positionals.length === 3) {
    const slug = store();
    if (!/^[0-9a-f-]{36}$/i.test(arg)) throw new UsageError('the token id must be a UUID');
    return async (d) => ({ token: await stores.revokeToken(d.db, slug, arg) });
  }
  if (noun === 'token' && verb === 'list' && positionals.length === 2) {
    const slug = store();
    return async (d) => ({ tokens: await stores.listTokens(d.db, slug) });
  }
  throw new UsageError(`unknown command: ${positionals.join(' ') || '(none)'}`);
}

async function main(): Promise<number> {
  let command: Command;
  try {
    command = parse(process.argv.slice(2));
  } catch (error) {
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
    const message = error instanceof AppError ? error.detail : error instanceof Error ? error.message : String(error);
    console.error(error instanceof ConfigError ? message : `error: ${message}`);
    return 1;
  } finally {
    await database?.close();
  }
}

process.exitCode = await main();
