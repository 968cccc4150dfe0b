import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyTemplate, TEST_DATABASE_URL } from './support/database.js';
import { cliInProcess } from './support/cli.js';

const copy = TEST_DATABASE_URL ? undefined : copyTemplate();
const dbEnv: Record<string, string> = copy ? { DATA_DIR: copy.dataDir } : { DATABASE_URL: TEST_DATABASE_URL! };
after(() => copy?.remove());

const cli = (env: Record<string, string>, ...args: string[]) => cliInProcess({ ...dbEnv, ...env }, ...args);

test('webhook commands manage endpoints like the admin API, with the same SSRF guard', async () => {
  const strict = {};
  const dev = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };
  const slug = `wh-${Date.now().toString(36)}`;
  assert.equal((await cli(strict, 'store', 'create', slug)).status, 0);

  const refused = await cli(strict, 'webhook', 'create', '--store', slug, '--url', 'https://127.0.0.1/hooks', '--events', '*');
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /loopback, private/);
  assert.equal((await cli(strict, 'webhook', 'create', '--store', slug, '--url', 'https://203.0.113.9/h', '--events', 'order.nope')).status, 2);
  assert.equal((await cli(strict, 'webhook', 'create', '--store', 'no-such-store', '--url', 'https://203.0.113.9/h', '--events', '*')).status, 1);

  const created = await cli(dev, 'webhook', 'create', '--store', slug, '--url', 'http://127.0.0.1:9/hooks', '--events', 'order.created,order.paid', '--description', 'ERP');
  assert.equal(created.status, 0, created.stderr);
  assert.match(created.json.secret, /^whsec_/);
  const id = created.json.webhook.id as string;
  assert.deepEqual(created.json.webhook.events, ['order.created', 'order.paid']);

  const listed = await cli(strict, 'webhook', 'list', '--store', slug);
  assert.equal(listed.json.total, 1);
  assert.ok(!listed.stdout.includes(created.json.secret));
  const disabled = await cli(strict, 'webhook', 'update', '--store', slug, id, '--disable', '--events', '*');
  assert.equal(disabled.status, 0, disabled.stderr);
  assert.deepEqual([disabled.json.webhook.disabled, disabled.json.webhook.events], [true, ['*']]);
  const rotated = await cli(strict, 'webhook', 'rotate-secret', '--store', slug, id);
  assert.match(rotated.json.secret, /^whsec_/);
  const tested = await cli(strict, 'webhook', 'test', '--store', slug, id);
  assert.equal(tested.json.event.type, 'webhook.test');
  const log = await cli(strict, 'webhook', 'deliveries', '--store', slug, id, '--status', 'pending');
  assert.equal(log.json.total, 1);
  assert.equal((await cli(strict, 'webhook', 'retry', '--store', slug, id, log.json.deliveries[0].id)).status, 1, 'only a failed delivery can be retried');
  assert.equal((await cli(strict, 'webhook', 'delete', '--store', slug, id)).status, 0);
  assert.equal((await cli(strict, 'webhook', 'list', '--store', slug)).json.total, 0);
  assert.equal((await cli(strict, 'webhook', 'delete', '--store', slug, 'not-a-uuid')).status, 2);
});

test('webhook create: "order.*" is answered with the types it stands for, and a host that does not resolve says why', async () => {
  const slug = `dns-${Date.now().toString(36)}`;
  assert.equal((await cli({}, 'store', 'create', slug)).status, 0);
  const wildcard = await cli({}, 'webhook', 'create', '--store', slug, '--url', 'https://203.0.113.9/h', '--events', 'order.*');
  assert.equal(wildcard.status, 2);
  assert.match(wildcard.stderr, /"order\.\*" is not an event type: the API takes exact types or "\*" for every type; the order events are order\.created,/);

  const unresolved = await cli({}, 'webhook', 'create', '--store', slug, '--url', 'https://hooks.example.invalid/hooks', '--events', '*');
  assert.equal(unresolved.status, 1);
  assert.match(unresolved.stderr, /does not resolve from this machine \(is there DNS here\?\)/);
  assert.match(unresolved.stderr, /again before every delivery/);
});
