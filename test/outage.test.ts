/**
 * A database that stops answering: requests fail fast with 503, /api/ready says not ready, and the
 * service recovers by itself when the database is back. The database is a PostgreSQL server behind
 * a proxy that the test cuts and restores.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { loadConfig } from '../src/plugins/config.js';
import { inject, ROOT_TOKEN, testEnv } from './support/app.js';
import { TEST_DATABASE_URL } from './support/database.js';
import { assertProblem } from './support/factories.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const SERVER_URL = TEST_DATABASE_URL ?? process.env.OUTAGE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(url: string): Promise<boolean> {
  try {
    const probe = await openDatabase({ url, poolSize: 1, connectTimeoutMs: 1000 });
    try {
      await probe.ping(1000);
      return true;
    } finally {
      await probe.close();
    }
  } catch {
    return false;
  }
}

const skip = (await reachable(SERVER_URL)) ? false : `no PostgreSQL answers at ${SERVER_URL.replace(/:[^:@/]*@/, ':***@')}`;

test('a database outage answers 503 fast, /api/ready is 503, and the service recovers by itself', { skip }, async () => {
  const target = new URL(SERVER_URL);
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  after(() => proxy.close());
  const viaProxy = new URL(SERVER_URL);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const database = await openDatabase({ url: viaProxy.toString(), poolSize: 4, connectTimeoutMs: 1000, statementTimeoutMs: 5000 });
  // With TEST_DATABASE_URL the suite's prepare step reset it; a borrowed database starts empty here.
  if (!TEST_DATABASE_URL) {
    await database.db.execute(sql`drop schema if exists public cascade`);
    await database.db.execute(sql`create schema public`);
  }
  await migrate(database.db);
  const app = await buildApp({ config: loadConfig(testEnv()), database });
  after(async () => {
    await app.close();
    await database.close();
  });
  const slug = `outage-${randomUUID().slice(0, 8)}`;
  const created = await inject(app, 'POST', '/api/v1/admin/stores', { token: ROOT_TOKEN, body: { slug } });
  assert.equal(created.status, 201, created.text);
  const token = created.json.tokens.storefront;
  assert.equal((await inject(app, 'GET', '/api/v1/products', { token })).status, 200);

  await proxy.cut();
  const startedAt = Date.now();
  const down = await inject(app, 'GET', '/api/v1/products', { token });
  assertProblem(down, 503, 'SERVICE_UNAVAILABLE');
  assert.ok(down.headers['retry-after']);
  assert.doesNotMatch(down.text, /ECONNREFUSED|127\.0\.0\.1|stack/i, 'a 5xx shows no internals');
  assertProblem(await inject(app, 'GET', '/api/ready'), 503, 'SERVICE_UNAVAILABLE');
  assert.equal((await inject(app, 'GET', '/api/health')).status, 200, 'the process itself is up');
  const failFastMs = Date.now() - startedAt;

  await proxy.restore();
  const backAt = Date.now();
  let status = 0;
  for (let i = 0; i < 100 && status !== 200; i++) {
    status = (await inject(app, 'GET', '/api/v1/products', { token })).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(status, 200, 'the service recovered without a restart');
  assert.equal((await inject(app, 'GET', '/api/ready')).status, 200);
  console.log(`# outage: three requests answered during the outage in ${failFastMs} ms; recovered ${Date.now() - backAt} ms after the database came back`);
});
