/**
 * Test databases. On PGlite (the default) `prepare.ts` migrates one template data directory per
 * run and every test file opens its own copy of it (a copy opens in under a second, a new one takes
 * seconds). With TEST_DATABASE_URL every file shares that PostgreSQL database, which `prepare.ts`
 * empties and migrates first; tests stay apart by creating their own stores.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/**
 * DB_PREPARED_STATEMENTS=false (a suite run through PgBouncer in transaction mode) reaches the
 * handles the tests open themselves; server processes inherit it from the environment.
 */
export const TEST_PREPARED_STATEMENTS = process.env.DB_PREPARED_STATEMENTS !== 'false';

/** The migrated PGlite template for the current migrations. */
export function templateDir(): string {
  const dir = join(ROOT, 'drizzle');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir).sort()) if (file.endsWith('.sql')) hash.update(readFileSync(join(dir, file)));
  return join(ROOT, '.test-cache', `pglite-${hash.digest('hex').slice(0, 12)}`);
}

/** A fresh DATA_DIR holding a migrated embedded database, and how to remove it. */
export function copyTemplate(): { dataDir: string; remove: () => void } {
  const template = templateDir();
  if (!existsSync(template)) throw new Error(`no test template at ${template}: run the suite with "npm test"`);
  const dataDir = mkdtempSync(join(tmpdir(), 'storefront-test-'));
  cpSync(template, dataDir, { recursive: true });
  return { dataDir, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}

/**
 * The skip of a test whose subject is a page, a document or a package rather than the database
 * (the README's walkthrough, the example shop, the dashboard, the docs page, the packed client):
 * it runs once, in the PGlite suite. The routes it calls are tested on both databases by the HTTP
 * tests, and the first two start their own embedded database whatever the suite.
 */
export const PGLITE_SUITE_ONLY = TEST_DATABASE_URL !== undefined && 'runs in the PGlite suite only: its subject is a page, a document or a package, not the database';
