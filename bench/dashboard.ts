/**
 * The dashboard at size, in headless Chromium: the product list's first page after navigation, the
 * next pages (cursor paging), and saving a product with 100 variants (the form's Save click until
 * the list shows again: one POST /v1/admin/product-groups/:group/variants), beside the same 100
 * products made one request each from the page, as the dashboard did before that route, and the
 * 100 variants edited together on one of their pages (a new price each, one request). Targets:
 * first page within 1 s, each next page within 300 ms, the 100-variant save within 1 s. On a shared
 * machine the figures are indicative.
 *   BENCH_DATABASE_URL=postgres://.../bench_x npx tsx bench/dashboard.ts [100000] [--seed]
 * --seed empties that database and seeds the catalog as `npm run bench` does (its own database only).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { openDatabase, queryRows } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { loadConfig } from '../src/plugins/config.js';
import { createOwner } from '../src/modules/staff/index.js';
import { seedBench } from './seed.js';

const url = process.env.BENCH_DATABASE_URL;
if (!url) throw new Error('set BENCH_DATABASE_URL to a benchmark database of your own');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing`);
const size = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100000);
const store = `bench-${size}`;
const EMAIL = 'owner@bench.example';
const PASSWORD = 'benchmark owner password';
const NEXT_PAGES = 5;
const VARIANTS = 100;

const database = await openDatabase({ url, poolSize: 10, statementTimeoutMs: 600_000 });
if (process.argv.includes('--seed')) {
  await database.db.execute(sql`drop schema if exists public cascade`);
  await database.db.execute(sql`create schema public`);
  await migrate(database.db);
  const started = Date.now();
  await seedBench(database.db, size, 10);
  console.log(`seeded ${size} products in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
await database.db.execute(sql`delete from staff_sessions where store = ${store}`);
await database.db.execute(sql`delete from staff where store = ${store}`);
await database.db.transaction((tx) => createOwner(tx, store, EMAIL, PASSWORD));

const config = loadConfig({ DATABASE_URL: url, SEED_DEMO: 'false', LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0', WEBHOOK_POLL_INTERVAL_MS: '0', MAINTENANCE_INTERVAL_SECONDS: '0' });
const app = await buildApp({ config, database });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const profile = mkdtempSync(join(tmpdir(), 'bench-dashboard-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 800 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const results: Record<string, number | number[]> = {};
try {
  const page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(`${base}/admin/`);
  await page.locator('input[name=store]').fill(store);
  await page.locator('input[name=email]').fill(EMAIL);
  await page.locator('input[name=password]').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.locator('table[data-page="1"] tr.link').first().waitFor({ timeout: 60_000 });

  // The first page: from a navigation (a reload of the list) until its rows show.
  let t0 = Date.now();
  await page.goto(`${base}/admin/#/products`);
  await page.reload();
  await page.locator('table[data-page="1"] tr.link').first().waitFor();
  results.firstPageMs = Date.now() - t0;
  const nextPages: number[] = [];
  for (let n = 2; n <= NEXT_PAGES + 1; n++) {
    t0 = Date.now();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.locator(`table[data-page="${n}"] tr.link`).first().waitFor();
    nextPages.push(Date.now() - t0);
  }
  results.nextPagesMs = nextPages;

  // A product in 100 sizes: the rows are filled first (not timed), then Save until the list is back.
  await page.getByRole('button', { name: 'New product' }).click();
  const slug = `bench-variants-${Date.now()}`;
  await page.locator('input[name=name]').fill(slug);
  await page.locator('input[name=sku]').fill(slug);
  await page.locator('input[name=price]').fill('19.90');
  for (let i = 0; i < VARIANTS; i++) await page.getByRole('button', { name: 'Add variant' }).click();
  for (let i = 0; i < VARIANTS; i++) await page.locator(`input[name=variant-${i}-value]`).fill(`V${i + 1}`);
  t0 = Date.now();
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('heading', { name: 'Products' }).waitFor({ timeout: 120_000 });
  results.save100VariantsMs = Date.now() - t0;
  const [saved] = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from products where store = ${store} and group_slug = ${slug}`);
  results.variantsSaved = saved?.n ?? 0;

  // The item's 100 variants edited together on one of their pages: every price changed (not timed),
  // then Save variants until the page says so (100 changes in one request).
  const [one] = await queryRows<{ id: string }>(database.db, sql`select id from products where store = ${store} and group_slug = ${slug} limit 1`);
  await page.goto(`${base}/admin/#/products/${one!.id}`);
  await page.locator(`input[name=group-${VARIANTS - 1}-price]`).waitFor({ timeout: 60_000 });
  for (let i = 0; i < VARIANTS; i++) await page.locator(`input[name=group-${i}-price]`).fill('21.50');
  t0 = Date.now();
  await page.getByRole('button', { name: 'Save variants' }).click();
  await page.getByRole('status').filter({ hasText: `Saved ${VARIANTS} variants` }).waitFor({ timeout: 120_000 });
  results.edit100VariantsMs = Date.now() - t0;

  // The same 100 products the way the dashboard saved them before the variants route: one request
  // each, in a row, from the page (the ratio to the save above is what this machine's load leaves out).
  results.save100OneRequestEachMs = await page.evaluate(async ({ group, n }) => {
    const secret = (JSON.parse(sessionStorage.getItem('dashboard.session') ?? '{}') as { secret: string }).secret;
    const started = performance.now();
    for (let i = 1; i <= n; i++) {
      const body = { name: group, slug: `${group}-v${i}`, sku: `${group}-V${i}`, price: 1990, quantity: 0, status: 'DRAFT', description: '', images: [], group, options: { Size: `V${i}` } };
      const r = await fetch('/api/v1/admin/products', { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!r.ok) throw new Error(await r.text());
    }
    return Math.round(performance.now() - started);
  }, { group: `${slug}-one-by-one`, n: VARIANTS });
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
  await app.close();
  await database.close();
}
console.log(JSON.stringify({ products: size, ...results, targets: { firstPageMs: 1000, nextPageMs: 300, save100VariantsMs: 1000, edit100VariantsMs: 1000 } }, null, 2));
