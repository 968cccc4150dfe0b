import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyTemplate, TEST_DATABASE_URL } from './support/database.js';
import { call, startServerProcess } from './support/server-process.js';
import { cliInProcess, runCli } from './support/cli.js';

const copy = TEST_DATABASE_URL ? undefined : copyTemplate();
const dbEnv: Record<string, string> = copy ? { DATA_DIR: copy.dataDir } : { DATABASE_URL: TEST_DATABASE_URL! };
after(() => copy?.remove());

/** In this process; the last test runs the real one. */
const cli = (...args: string[]) => cliInProcess(dbEnv, ...args);

test('store create prints the store and its tokens as JSON; the tokens work on the server', async () => {
  const slug = `cli-${Date.now().toString(36)}`;
  const created = await cli('store', 'create', slug, '--name', 'CLI Store');
  assert.equal(created.status, 0, created.stderr);
  assert.equal(created.json.store.slug, slug);
  assert.equal(created.json.store.name, 'CLI Store');
  const { admin, storefront } = created.json.tokens;
  assert.equal((await cli('store', 'create', slug)).status, 1, 'an existing slug is refused');
  assert.equal((await cli('store', 'create', 'Bad Slug')).status, 1);

  const listedStores = await cli('store', 'list');
  assert.equal(listedStores.status, 0, listedStores.stderr);
  assert.deepEqual(listedStores.json.stores.find((s: { slug: string }) => s.slug === slug)?.name, 'CLI Store');
  assert.ok(!listedStores.stdout.includes(admin), 'store list shows no secret');

  const token = await cli('token', 'create', '--store', slug, '--kind', 'storefront');
  assert.equal(token.status, 0, token.stderr);
  assert.equal(token.json.token.kind, 'storefront');
  const listed = await cli('token', 'list', '--store', slug);
  assert.equal(listed.json.tokens.length, 3);
  assert.ok(!listed.stdout.includes(token.json.secret), 'listings never show secrets');
  const revoked = await cli('token', 'revoke', '--store', slug, token.json.token.id);
  assert.equal(revoked.status, 0, revoked.stderr);
  assert.ok(revoked.json.token.revokedAt);

  const discount = await cli('discount', 'create', '--store', slug, 'welcome10', '--type', 'percentage', '--value', '10', '--usage-limit', '100');
  assert.equal(discount.status, 0, discount.stderr);
  assert.deepEqual([discount.json.discount.code, discount.json.discount.value, discount.json.discount.usageLimit], ['WELCOME10', 10, 100]);
  assert.equal((await cli('discount', 'create', '--store', slug, 'WELCOME10', '--type', 'fixed', '--value', '5')).status, 1, 'a code in use is refused');
  assert.equal((await cli('discount', 'create', '--store', slug, 'PCT', '--type', 'percentage', '--value', '150')).status, 1, 'a percentage over 100 is refused');
  assert.equal((await cli('discount', 'create', '--store', slug, 'NOVALUE', '--type', 'fixed')).status, 2);
  const discounts = await cli('discount', 'list', '--store', slug);
  assert.equal(discounts.status, 0, discounts.stderr);
  assert.deepEqual(discounts.json.discounts.map((d: { code: string }) => d.code), ['WELCOME10']);
  // The API's own schema judges the body: its bounds and pattern, with exit 2 naming the field.
  for (const [args, field] of [
    [['BIGVALUE', '--type', 'fixed', '--value', '2000000000'], /value/],
    [['BIGSUB', '--type', 'fixed', '--value', '1', '--min-subtotal', '10000000000000'], /minSubtotal/],
    [['BADLIMIT', '--type', 'fixed', '--value', '1', '--usage-limit', '0'], /usageLimit/],
    [['bad code!', '--type', 'fixed', '--value', '1'], /code/],
    [['NOTYPE', '--type', 'bogus', '--value', '1'], /type/],
  ] as const) {
    const refused = await cli('discount', 'create', '--store', slug, ...args);
    assert.equal(refused.status, 2, `${args.join(' ')}: ${refused.stderr}`);
    assert.match(refused.stderr, field);
  }
  // A database error says its SQLSTATE, never the statement or its parameters.
  const failed = await cli('discount', 'create', '--store', 'no-such-store', 'SECRETCODE1', '--type', 'fixed', '--value', '1');
  assert.equal(failed.status, 1, failed.stderr);
  assert.doesNotMatch(failed.stderr, /insert|select|params|SECRETCODE1/i, failed.stderr);
  assert.match(failed.stderr, /SQLSTATE|no-such-store|not found/);

  const rate = await cli('tax-rate', 'create', '--store', slug, 'us', '--region', 'TX', '--rate', '825', '--name', 'Sales tax');
  assert.equal(rate.status, 0, rate.stderr);
  assert.deepEqual([rate.json.taxRate.country, rate.json.taxRate.region, rate.json.taxRate.rate], ['US', 'TX', 825]);
  assert.equal((await cli('tax-rate', 'create', '--store', slug, 'US', '--region', 'tx', '--rate', '800', '--name', 'Sales tax')).status, 1, 'one rate per place');
  assert.equal((await cli('tax-rate', 'create', '--store', slug, 'US', '--rate', '10001', '--name', 'x')).status, 2);
  assert.equal((await cli('tax-rate', 'create', '--store', slug, 'USA', '--rate', '1', '--name', 'x')).status, 2);
  assert.deepEqual((await cli('tax-rate', 'list', '--store', slug)).json.taxRates.map((r: { rate: number }) => r.rate), [825]);
  const option = await cli('shipping-option', 'create', '--store', slug, 'Standard', '--price', '500', '--countries', 'us,CA', '--free-above', '5000');
  assert.equal(option.status, 0, option.stderr);
  assert.deepEqual([option.json.shippingOption.countries, option.json.shippingOption.freeAbove, option.json.shippingOption.active], [['US', 'CA'], 5000, true]);
  assert.equal((await cli('shipping-option', 'create', '--store', slug, 'Bad', '--price', '-1')).status, 2);
  assert.deepEqual((await cli('shipping-option', 'list', '--store', slug)).json.shippingOptions.map((o: { name: string }) => o.name), ['Standard']);
  const owner = await cli('staff', 'create-owner', '--store', slug, 'ana@cli.example');
  assert.equal(owner.status, 0, owner.stderr);
  assert.deepEqual([owner.json.staff.role, owner.json.staff.status], ['owner', 'active']);
  assert.ok(owner.json.password.length >= 12);
  assert.equal((await cli('staff', 'create-owner', '--store', slug, 'ANA@cli.example')).status, 1, 'an email in use is refused');
  assert.equal((await cli('staff', 'create-owner', '--store', slug, 'not-an-email')).status, 2);

  const server = await startServerProcess(dbEnv);
  try {
    assert.equal((await call(server.base, 'GET', '/v1/products', { token: storefront })).status, 200);
    assert.equal((await call(server.base, 'GET', '/v1/admin/products', { token: admin })).status, 200);
    assert.equal((await call(server.base, 'GET', '/v1/products', { token: token.json.secret })).status, 401, 'revoked by the CLI');
    const session = await call(server.base, 'POST', '/v1/staff/sessions', { body: { store: slug, email: 'ana@cli.example', password: owner.json.password } });
    assert.equal(session.status, 201, 'the owner the CLI made signs in');
    if (copy) {
      const locked = await cli('token', 'list', '--store', slug);
      assert.equal(locked.status, 1);
      assert.match(locked.stderr, /in use by process/, 'the CLI refuses an embedded database a server holds');
    }
  } finally {
    await server.stop();
  }
});

test('--help prints the usage on stdout and exits 0', async () => {
  for (const flag of ['--help', '-h']) {
    const r = await cli(flag);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /usage:[\s\S]*store list/);
  }
});

test('bad usage exits 2 with the usage', async () => {
  for (const args of [[], ['store'], ['token', 'create', '--store', 'x', '--kind', 'root'], ['token', 'revoke', '--store', 'x', 'not-a-uuid'], ['frobnicate']]) {
    const r = await cli(...args);
    assert.equal(r.status, 2, args.join(' '));
    assert.match(r.stderr, /usage:/);
  }
});

test('the real process: the usage on stdout with exit 0 for --help, on stderr with exit 2 for no command', () => {
  const help = runCli(dbEnv, '--help');
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /usage:[\s\S]*store list/);
  const none = runCli(dbEnv);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /usage:/);
});

test('product list|create|update and collection list, checked with the API\'s own schemas', async () => {
  const slug = `cat-${Date.now().toString(36)}`;
  assert.equal((await cli('store', 'create', slug)).status, 0);
  const create = (...flags: string[]) => cli('product', 'create', '--store', slug, ...flags);

  const created = await create('--name', 'Linen apron', '--slug', 'linen-apron', '--sku', 'LA-1', '--price', '2990', '--quantity', '3');
  assert.equal(created.status, 0, created.stderr);
  assert.deepEqual([created.json.product.name, created.json.product.price, created.json.product.status], ['Linen apron', 2990, 'DRAFT']);

  const badPrice = await create('--name', 'X', '--slug', 'x', '--sku', 'X', '--price', '29.90', '--quantity', '1');
  assert.equal(badPrice.status, 2);
  assert.match(badPrice.stderr, /^--price must be integer \(an integer in the smallest currency unit: 4990 is 49\.90\)/);
  const missing = await create('--name', 'X', '--slug', 'x', '--price', '100', '--quantity', '1');
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^--sku is required/);
  assert.equal((await create('--name', 'X', '--slug', 'Not A Slug', '--sku', 'X', '--price', '1', '--quantity', '1')).status, 2, 'the API\'s slug rule');
  assert.equal((await create('--name', 'Again', '--slug', 'linen-apron', '--sku', 'LA-2', '--price', '1', '--quantity', '1')).status, 1, 'a slug in use is refused, as by the API');

  const updated = await cli('product', 'update', '--store', slug, 'linen-apron', '--price', '3190', '--status', 'ACTIVE', '--original-price', '3990');
  assert.equal(updated.status, 0, updated.stderr);
  assert.deepEqual([updated.json.product.price, updated.json.product.originalPrice, updated.json.product.status], [3190, 3990, 'ACTIVE']);
  assert.equal((await cli('product', 'update', '--store', slug, updated.json.product.id, '--quantity', '-1')).status, 2, 'a negative stock is refused');
  assert.equal((await cli('product', 'update', '--store', slug, 'linen-apron')).status, 2, 'nothing to change');
  assert.equal((await cli('product', 'update', '--store', slug, 'no-such-product', '--price', '1')).status, 1);

  const listed = await cli('product', 'list', '--store', slug, '--status', 'ACTIVE');
  assert.equal(listed.status, 0, listed.stderr);
  assert.deepEqual(listed.json.products.map((p: { slug: string }) => p.slug), ['linen-apron']);
  const collections = await cli('collection', 'list', '--store', slug);
  assert.equal(collections.status, 0, collections.stderr);
  assert.deepEqual(collections.json, { collections: [], total: 0 });
});

test('the usage: --store is optional everywhere, --value says its unit, the product commands are listed', async () => {
  const { stdout } = await cli('--help');
  assert.doesNotMatch(stdout, /(?<!\[)--store <slug>/, '--store is always in brackets');
  assert.match(stdout, /--value is percent with --type percentage/);
  assert.match(stdout, /smallest currency\s+unit with --type fixed/);
  assert.match(stdout, /product create/);
  assert.match(stdout, /collection list/);
});
