/**
 * Applies the SQL migrations that drizzle-kit generated (drizzle/, committed) in journal order.
 * It runs in one transaction under an advisory lock, so several processes starting at once on one
 * PostgreSQL apply each migration exactly once, and a failing migration leaves nothing behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from './client.js';

// src/db/ when run from source, dist/src/db/ when compiled: the migrations stay at the top.
const MIGRATIONS_DIR = ['../../drizzle/', '../../../drizzle/']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((dir) => existsSync(`${dir}meta/_journal.json`))!;
const MIGRATION_LOCK_ID = 7_242_001;

interface JournalEntry {
  idx: number;
  tag: string;
}

export async function migrate(db: Database): Promise<string[]> {
  const journal = JSON.parse(readFileSync(MIGRATIONS_DIR + 'meta/_journal.json', 'utf8')) as { entries: JournalEntry[] };
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    await tx.execute(sql`create table if not exists schema_migrations (
      tag text primary key,
      applied_at timestamptz(3) not null default now()
    )`);
    const applied = new Set((await queryRows<{ tag: string }>(tx, sql`select tag from schema_migrations`)).map((r) => r.tag));
    const done: string[] = [];
    for (const entry of [...journal.entries].sort((a, b) => a.idx - b.idx)) {
      if (applied.has(entry.tag)) continue;
      const text = readFileSync(`${MIGRATIONS_DIR}${entry.tag}.sql`, 'utf8');
      for (const statement of text.split('--> statement-breakpoint')) {
        if (statement.trim()) await tx.execute(sql.raw(statement));
      }
      await tx.execute(sql`insert into schema_migrations (tag) values (${entry.tag})`);
      done.push(entry.tag);
    }
    return done;
  });
}
