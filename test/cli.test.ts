import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyTemplate, TEST_DATABASE_URL } from './support/database.js';
import { call, runCli, startServerProcess } from './support/server-process.js';

const copy = TEST_DATABASE_URL ? undefined : copyTemplate();
const dbEnv: Record<string, string> = copy ? { DATA_DIR: copy.dataDir } : { DATABASE_URL: TEST_DATABASE_URL! };

const cli = (...args: string[]) => runCli(dbEnv, ...args);

test('store create prints the store and its tokens as JSON; the tokens work on the server', async (t) => {
  t.after(() => copy?.remove());
  const slug = `cli-${Date.now().toString(36)}`;
  const created = cli('store', 'create', slug, '--name', 'CLI Store');
  assert.equal(created.status, 0, created.stderr);
  assert.equal(created.json.store.slug, slug);
  assert.equal(created.json.store.name, 'CLI Store');
  const { admin, storefront } = created.json.tokens;
  assert.equal(cli('store', 'create', slug).status, 1, 'an existing slug is refused');
  assert.equal(cli('store', 'create', 'Bad Slug').status, 1);

  const listedStores = cli('store', 'list');
  assert.equal(listedStores.status, 0, listedStores.stderr);
  assert.deepEqual(listedStores.json.stores.find((s: { slug: string }) => s.slug === slug)?.name, 'CLI Store');
  assert.ok(!listedStores.stdout.includes(admin), 'store list shows no secret');

  const token = cli('token', 'create', '--store', slug, '--kind', 'storefront');
  assert.equal(token.status, 0, token.stderr);
  assert.equal(token.json.token.kind, 'storefront');
  const listed = cli('token', 'list', '--store', slug);
  assert.equal(listed.json.tokens.length, 3);
  assert.ok(!listed.stdout.includes(token.json.secret), 'listings never show secrets');
  const revoked = cli('token', 'revoke', '--store', slug, token.json.token.id);
  assert.equal(revoked.status, 0, revoked.stderr);
  assert.ok(revoked.json.token.revokedAt);

  const discount = cli('discount', 'create', '--store', slug, 'welcome10', '--type', 'percentage', '--value', '10', '--usage-limit', '100');
  assert.equal(discount.status, 0, discount.stderr);
  assert.deepEqual([discount.json.discount.code, discount.json.discount.value, discount.json.discount.usageLimit], ['WELCOME10', 10, 100]);
  assert.equal(cli('discount', 'create', '--store', slug, 'WELCOME10', '--type', 'fixed', '--value', '5').status, 1, 'a code in use is refused');
  assert.equal(cli('discount', 'create', '--store', slug, 'PCT', '--type', 'percentage', '--value', '150').status, 1, 'a percentage over 100 is refused');
  assert.equal(cli('discount', 'create', '--store', slug, 'NOVALUE', '--type', 'fixed').status, 2);
  const discounts = cli('discount', 'list', '--store', slug);
  assert.equal(discounts.status, 0, discounts.stderr);
  assert.deepEqual(discounts.json.discounts.map((d: { code: string }) => d.code), ['WELCOME10']);
  const owner = cli('staff', 'create-owner', '--store', slug, 'ana@cli.example');
  assert.equal(owner.status, 0, owner.stderr);
  assert.deepEqual([owner.json.staff.role, owner.json.staff.status], ['owner', 'active']);
  assert.ok(owner.json.password.length >= 12);
  assert.equal(cli('staff', 'create-owner', '--store', slug, 'ANA@cli.example').status, 1, 'an email in use is refused');
  assert.equal(cli('staff', 'create-owner', '--store', slug, 'not-an-email').status, 2);

  const server = await startServerProcess(dbEnv);
  try {
    assert.equal((await call(server.base, 'GET', '/v1/products', { token: storefront })).status, 200);
    assert.equal((await call(server.base, 'GET', '/v1/admin/products', { token: admin })).status, 200);
    assert.equal((await call(server.base, 'GET', '/v1/products', { token: token.json.secret })).status, 401, 'revoked by the CLI');
    const session = await call(server.base, 'POST', '/v1/staff/sessions', { body: { store: slug, email: 'ana@cli.example', password: owner.json.password } });
    assert.equal(session.status, 201, 'the owner the CLI made signs in');
    if (copy) {
      const locked = cli('token', 'list', '--store', slug);
      assert.equal(locked.status, 1);
      assert.match(locked.stderr, /in use by process/, 'the CLI refuses an embedded database a server holds');
    }
  } finally {
    await server.stop();
  }
});

test('--help prints the usage on stdout and exits 0', () => {
  for (const flag of ['--help', '-h']) {
    const r = cli(flag);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /usage:[\s\S]*store list/);
  }
});

test('bad usage exits 2 with the usage', () => {
  for (const args of [[], ['store'], ['token', 'create', '--store', 'x', '--kind', 'root'], ['token', 'revoke', '--store', 'x', 'not-a-uuid'], ['frobnicate']]) {
    const r = cli(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /usage:/);
  }
});
