import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../src/db/client.js';
import { startTestApp } from './support/app.js';
import { assertProblem, createStore } from './support/factories.js';

// No private networks: only a public address is accepted. 203.0.113.0/24 is TEST-NET-3 (documentation
// only); the worker is off in this file, so nothing is ever sent to it.
const t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
const PUBLIC_URL = 'https://203.0.113.10/hooks';

test('create answers 201 with the endpoint and a whsec_ secret shown once; list, get, patch, delete', async () => {
  const s = await createStore(t);
  const created = await t.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: PUBLIC_URL, events: ['order.created', 'order.paid'], description: 'ERP' } });
  assert.equal(created.status, 201, created.text);
  const { webhook, secret } = created.json;
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.deepEqual(Object.keys(webhook).sort(), ['createdAt', 'description', 'disabled', 'events', 'id', 'updatedAt', 'url']);
  assert.deepEqual([webhook.url, webhook.events, webhook.description, webhook.disabled], [PUBLIC_URL, ['order.created', 'order.paid'], 'ERP', false]);

  const listed = await t.request('GET', '/api/v1/admin/webhooks', { token: s.admin });
  assert.deepEqual(listed.json, { webhooks: [webhook], total: 1 });
  assert.ok(!listed.text.includes(secret), 'the secret is never shown again');
  const got = await t.request('GET', `/api/v1/admin/webhooks/${webhook.id}`, { token: s.admin });
  assert.deepEqual(got.json, { webhook });

  const patched = await t.request('PATCH', `/api/v1/admin/webhooks/${webhook.id}`, { token: s.admin, body: { events: ['*'], disabled: true, description: '' } });
  assert.equal(patched.status, 200);
  assert.deepEqual([patched.json.webhook.events, patched.json.webhook.disabled, patched.json.webhook.description], [['*'], true, '']);

  const other = await createStore(t);
  assertProblem(await t.request('GET', `/api/v1/admin/webhooks/${webhook.id}`, { token: other.admin }), 404, 'NOT_FOUND');
  assertProblem(await t.request('DELETE', `/api/v1/admin/webhooks/${webhook.id}`, { token: other.admin }), 404, 'NOT_FOUND');

  const deleted = await t.request('DELETE', `/api/v1/admin/webhooks/${webhook.id}`, { token: s.admin });
  assert.equal(deleted.status, 200);
  assert.equal(deleted.json.webhook.id, webhook.id);
  assertProblem(await t.request('GET', `/api/v1/admin/webhooks/${webhook.id}`, { token: s.admin }), 404, 'NOT_FOUND');
});

test('rotate-secret answers a new secret and keeps the old one valid for 24 hours', async () => {
  const s = await createStore(t);
  const created = await t.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: PUBLIC_URL, events: ['*'] } });
  const rotated = await t.request('POST', `/api/v1/admin/webhooks/${created.json.webhook.id}/rotate-secret`, { token: s.admin });
  assert.equal(rotated.status, 200, rotated.text);
  assert.match(rotated.json.secret, /^whsec_/);
  assert.notEqual(rotated.json.secret, created.json.secret);
  const [row] = await queryRows<{ previous: string; hours: number }>(
    t.database.db,
    sql`select previous_secret as previous, extract(epoch from previous_secret_expires_at - now()) / 3600 as hours from webhook_endpoints where id = ${created.json.webhook.id}`,
  );
  assert.equal(row!.previous, created.json.secret);
  assert.ok(Math.abs(Number(row!.hours) - 24) < 0.1);
});

test('test answers 202 with a webhook.test event that is not in the feed, and queues one delivery', async () => {
  const s = await createStore(t);
  const created = await t.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: PUBLIC_URL, events: ['order.created'] } });
  const id = created.json.webhook.id;
  const r = await t.request('POST', `/api/v1/admin/webhooks/${id}/test`, { token: s.admin });
  assert.equal(r.status, 202, r.text);
  assert.equal(r.json.event.type, 'webhook.test');
  assert.equal(r.json.event.store, s.slug);
  const feed = await t.request('GET', '/api/v1/admin/events', { token: s.admin });
  assert.deepEqual(feed.json.events, []);
  const log = await t.request('GET', `/api/v1/admin/webhooks/${id}/deliveries`, { token: s.admin });
  assert.equal(log.json.total, 1);
  assert.deepEqual(
    [log.json.deliveries[0].eventId, log.json.deliveries[0].type, log.json.deliveries[0].status, log.json.deliveries[0].attempts],
    [r.json.event.id, 'webhook.test', 'pending', 0],
  );
  const pendingOnly = await t.request('GET', `/api/v1/admin/webhooks/${id}/deliveries?status=delivered`, { token: s.admin });
  assert.deepEqual(pendingOnly.json, { deliveries: [], total: 0 });
  const notFailed = await t.request('POST', `/api/v1/admin/webhooks/${id}/deliveries/${log.json.deliveries[0].id}/retry`, { token: s.admin });
  assertProblem(notFailed, 409, 'CONFLICT');
});

test('SSRF: http, loopback, private, link-local and unspecified targets are refused with 422, and nothing is stored', async () => {
  const s = await createStore(t);
  const refused = [
    'http://203.0.113.10/hooks',
    'https://127.0.0.1/hooks',
    'https://10.0.0.1/hooks',
    'https://172.16.5.4/hooks',
    'https://192.168.1.1/hooks',
    'https://169.254.169.254/latest/meta-data',
    'https://0.0.0.0/hooks',
    'https://[::1]/hooks',
    'https://[::]/hooks',
    'https://[fe80::1]/hooks',
    'https://[fd00::1]/hooks',
    'https://[::ffff:127.0.0.1]/hooks',
    'https://localhost/hooks',
    'https://2130706433/hooks',
    'ftp://203.0.113.10/hooks',
    'not a url',
  ];
  for (const url of refused) {
    const r = await t.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url, events: ['*'] } });
    assertProblem(r, 422, 'WEBHOOK_URL_NOT_ALLOWED');
  }
  const ok = await t.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body: { url: PUBLIC_URL, events: ['*'] } });
  const patched = await t.request('PATCH', `/api/v1/admin/webhooks/${ok.json.webhook.id}`, { token: s.admin, body: { url: 'https://127.0.0.1/x' } });
  assertProblem(patched, 422, 'WEBHOOK_URL_NOT_ALLOWED');
  const list = await t.request('GET', '/api/v1/admin/webhooks', { token: s.admin });
  assert.deepEqual(list.json.webhooks.map((w: { url: string }) => w.url), [PUBLIC_URL]);
});

test('bad input is 400 and only the admin token may manage webhooks', async () => {
  const s = await createStore(t);
  for (const body of [{ url: PUBLIC_URL }, { url: PUBLIC_URL, events: [] }, { url: PUBLIC_URL, events: ['order.nope'] }, { url: PUBLIC_URL, events: ['*'], secret: 'x' }, { events: ['*'] }]) {
    assertProblem(await t.request('POST', '/api/v1/admin/webhooks', { token: s.admin, body }), 400, 'VALIDATION_FAILED');
  }
  assertProblem(await t.request('GET', '/api/v1/admin/webhooks/not-a-uuid', { token: s.admin }), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('GET', '/api/v1/admin/webhooks', { token: s.storefront }), 403, 'FORBIDDEN');
  assertProblem(await t.request('POST', '/api/v1/admin/webhooks', { token: s.storefront, body: { url: PUBLIC_URL, events: ['*'] } }), 403, 'FORBIDDEN');
  const list = await t.request('GET', '/api/v1/admin/webhooks', { token: s.admin });
  assert.equal(list.json.total, 0);
});
