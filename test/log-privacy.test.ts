/**
 * Logs carry no secrets or personal data: a run that provokes database errors on writes that carry
 * an address, a token hash and a webhook secret (constraints that refuse this store's rows), with
 * values in query strings too, logs the failures (code, constraint, statement) but none of those
 * values. The logger is the app's own JSON logger, into a buffer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { startAppOn, startTestApp } from './support/app.js';
import { createStore } from './support/factories.js';
import { LEVEL, logBuffer } from './support/log-buffer.js';
import { redactMessage } from '../src/plugins/log-serializers.js';

const base = await startTestApp();
const log = logBuffer('info');
const t = await startAppOn(base.database, {}, { logger: log.logger });
const s = await createStore(base);

// Constraints that refuse this store's rows: its writes fail inside the database, as a bug or a
// broken migration would make them fail.
// DDL takes no parameters: the slug is inlined (a slug is [a-z0-9-] only).
const refusing = [['addresses', `store <> '${s.slug}'`], ['tokens', `store <> '${s.slug}' or kind <> 'customer'`], ['webhook_endpoints', `store <> '${s.slug}'`]] as const;
async function refuseThisStoresRows(): Promise<() => Promise<void>> {
  for (const [table, check] of refusing) {
    await base.database.db.execute(sql`alter table ${sql.identifier(table)} add constraint ${sql.identifier(`log_privacy_${table}`)} check (${sql.raw(check)}) not valid`);
  }
  // The PostgreSQL test database is shared by the files that follow.
  return async () => {
    for (const [table] of refusing) await base.database.db.execute(sql`alter table ${sql.identifier(table)} drop constraint if exists ${sql.identifier(`log_privacy_${table}`)}`);
  };
}

test('database errors on writes are logged without their parameters, failing rows or query strings', async (context) => {
  const restore = await refuseThisStoresRows();
  context.after(restore);
  const street = `Rua Secreta ${randomUUID()}`;
  const email = `someone-${randomUUID().slice(0, 8)}@example.com`;
  const customer = randomUUID();
  const address = await t.request('POST', `/api/v1/${customer}/addresses?email=${encodeURIComponent(email)}`, {
    token: s.server,
    body: { address: { zipcode: '01310-100', street, number: '1000', city: 'São Paulo', state: 'SP', country: 'BR' } },
  });
  assert.equal(address.status, 500, address.text);
  const minted = await t.request('POST', '/api/v1/customer-tokens', { token: s.server, body: { customerId: customer } });
  assert.equal(minted.status, 500, minted.text);
  const hook = await t.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: 'https://203.0.113.10/hooks', events: ['*'] } });
  assert.equal(hook.status, 500, hook.text);

  const text = log.text();
  const failures = log.entries().filter((e) => e.level === LEVEL.error);
  assert.equal(failures.length, 3, text);
  for (const entry of failures) {
    const err = entry.err as Record<string, unknown>;
    const chain = JSON.stringify(err);
    assert.match(chain, /23514/, 'the SQLSTATE is kept');
    assert.match(chain, /log_privacy_/, 'the constraint name is kept');
  }
  for (const secret of [street, email, 'São Paulo', '01310-100', `cus_${s.slug}_`, 'whsec_', s.server, s.admin]) {
    assert.ok(!text.includes(secret), `the log shows ${secret}`);
  }
  assert.doesNotMatch(text, /[0-9a-f]{64}/, 'no token hash');
  assert.doesNotMatch(text, /Failing row|params:/);
});

test('values in database messages are redacted; the names of database objects are kept', () => {
  assert.equal(redactMessage('Failed query: insert into t values ($1)\nparams: secret,more'), 'Failed query: insert into t values ($1)');
  assert.equal(redactMessage('invalid input syntax for type uuid: "not-a-uuid"'), 'invalid input syntax for type uuid: "(redacted)"');
  assert.equal(redactMessage('value "99999999999" is out of range for type integer'), 'value "(redacted)" is out of range for type integer');
  assert.equal(redactMessage('duplicate key value violates unique constraint "tokens_pkey"'), 'duplicate key value violates unique constraint "tokens_pkey"');
  assert.equal(redactMessage('new row for relation "addresses" violates check constraint "c"'), 'new row for relation "addresses" violates check constraint "c"');
});
