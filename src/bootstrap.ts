/** Opens the configured database and brings its schema up to date; shared by the server and the CLI. */
import { openDatabase, type DatabaseHandle } from './db/client.js';
import { isDatabaseUnavailable } from './db/errors.js';
import { migrate } from './db/migrate.js';
import type { Config } from './plugins/config.js';
import { DatabaseStartTimeout } from './start-failure.js';

/**
 * Opens and migrates the database. A server that does not answer yet is waited for, at most
 * `waitMs` (DB_START_TIMEOUT_SECONDS by default), then DatabaseStartTimeout; `onWait` is told once.
 */
export async function openConfiguredDatabase(
  config: Config,
  { waitMs = config.dbStartTimeoutSeconds * 1000, onWait }: { waitMs?: number; onWait?: (error: unknown) => void } = {},
): Promise<DatabaseHandle> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.databaseUrl ? undefined : config.dataDir,
    poolSize: config.dbPoolSize,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    preparedStatements: config.dbPreparedStatements,
  });
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    try {
      await migrate(database.db);
      return database;
    } catch (error) {
      // A server that is still starting is waited for; anything else stops the start at once.
      const unavailable = isDatabaseUnavailable(error);
      if (!unavailable || Date.now() + 1000 > deadline) {
        await database.close().catch(() => {});
        throw unavailable ? new DatabaseStartTimeout(Math.round(waitMs / 1000), error) : error;
      }
      if (!told) onWait?.(error);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}
