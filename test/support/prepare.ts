/** Runs once before the suite: empties and migrates TEST_DATABASE_URL when set, and makes the PGlite template. */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { TEST_DATABASE_URL, TEST_PREPARED_STATEMENTS, templateDir } from './database.js';

// npm test's second reporter writes the run's full TAP there.
mkdirSync('test-results', { recursive: true });

if (TEST_DATABASE_URL) {
  const database = await openDatabase({ url: TEST_DATABASE_URL, poolSize: 1, preparedStatements: TEST_PREPARED_STATEMENTS });
  await database.db.execute(sql`drop schema if exists public cascade`);
  await database.db.execute(sql`create schema public`);
  const applied = await migrate(database.db);
  await database.close();
  console.log(`test database ${TEST_DATABASE_URL.replace(/:[^:@/]*@/, ':***@')} reset; migrations: ${applied.join(', ')}`);
}

// Made on PostgreSQL runs too: a few files start a server on an embedded database of its own
// (the demo seed, a DATA_DIR held by another server), whatever the suite's database.
const template = templateDir();
if (!existsSync(template)) {
  const building = `${template}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(dirname(building), { recursive: true });
  const database = await openDatabase({ dataDir: building });
  await migrate(database.db);
  await database.close();
  renameSync(building, template);
  console.log(`PGlite test template made at ${template}`);
}
