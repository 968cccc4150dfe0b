/** Opens the configured database and brings its schema up to date; shared by the server and the CLI. */
import { openDatabase, type DatabaseHandle } from './db/client.js';
import { isDatabaseUnavailable } from './db/errors.js';
import { migrate } from './db/migrate.js';
import type { Config } from './plugins/config.js';

export async function openConfiguredDatabase(
  config: Config,
  { waitMs = 30000, onWait }: { waitMs?: number; onWait?: (error: unknown) => void } = {},
): Promise<DatabaseHandle> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    poolSize: config.dbPoolSize,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
  });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await migrate(database.db);
      return database;
    } catch (error) {
      // A server that is still starting is waited for; anything else stops the start at once.
      if (!isDatabaseUnavailable(error) || Date.now() > deadline) {
        await database.close().catch(() => {});
        throw error;
      }
      onWait?.(error);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
