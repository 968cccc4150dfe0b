/**
 * A migrated, empty database for a bench script: a throwaway PGlite DATA_DIR (`embedded`), or
 * BENCH_DATABASE_URL (default the local `bench` database) emptied first. Answers the open handle,
 * the environment a server process needs to reach it, and how to remove it afterwards.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, type DatabaseHandle } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';

export async function freshBenchDatabase(embedded: boolean, prefix: string): Promise<{ database: DatabaseHandle; env: Record<string, string>; cleanup: () => void }> {
  let database: DatabaseHandle;
  let env: Record<string, string>;
  let cleanup = () => {};
  if (embedded) {
    const dataDir = mkdtempSync(join(tmpdir(), prefix));
    database = await openDatabase({ dataDir });
    env = { DATA_DIR: dataDir };
    cleanup = () => rmSync(dataDir, { recursive: true, force: true });
  } else {
    const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench';
    database = await openDatabase({ url, poolSize: 2, statementTimeoutMs: 600_000 });
    await database.db.execute(sql`drop schema if exists public cascade`);
    await database.db.execute(sql`create schema public`);
    env = { DATABASE_URL: url };
  }
  await migrate(database.db);
  return { database, env, cleanup };
}
