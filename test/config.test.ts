import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/plugins/config.js';
import { ROOT } from './support/database.js';

test('defaults', () => {
  const c = loadConfig({});
  assert.equal(c.port, 3000);
  assert.equal(c.host, '127.0.0.1');
  assert.ok(c.dataDir.endsWith('/data'));
  assert.equal(c.databaseUrl, undefined);
  assert.equal(c.rootToken, undefined);
  assert.equal(c.seedDemo, true);
  assert.equal(c.cartTtlSeconds, 604800);
  assert.equal(c.logLevel, 'info');
});

test('values are read and converted', () => {
  const c = loadConfig({
    PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/tmp/x', DATABASE_URL: 'postgres://u@h:5432/db', STOREFRONT_ROOT_TOKEN: 'a-long-enough-root-token',
    SEED_DEMO: 'false', CART_TTL_SECONDS: '60', LOG_LEVEL: 'warn',
  });
  assert.deepEqual(
    [c.port, c.host, c.dataDir, c.databaseUrl, c.rootToken, c.seedDemo, c.cartTtlSeconds, c.logLevel],
    [8080, '0.0.0.0', '/tmp/x', 'postgres://u@h:5432/db', 'a-long-enough-root-token', false, 60, 'warn'],
  );
});

test('every bad value is reported at once, naming the variable', () => {
  try {
    loadConfig({ PORT: 'eighty', CART_TTL_SECONDS: '-5', SEED_DEMO: 'maybe', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', STOREFRONT_ROOT_TOKEN: 'short' });
    assert.fail('expected a ConfigError');
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    for (const name of ['PORT', 'CART_TTL_SECONDS', 'SEED_DEMO', 'LOG_LEVEL', 'DATABASE_URL', 'STOREFRONT_ROOT_TOKEN']) {
      assert.ok(error.problems.some((p) => p.startsWith(name)), `${name} in ${error.message}`);
    }
  }
  assert.throws(() => loadConfig({ PORT: '70000' }), ConfigError);
  assert.throws(() => loadConfig({ PORT: '3000.5' }), ConfigError);
});

test('the server refuses to start on a bad value, with a clear message and a non-zero exit', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: 'not-a-port', CART_TTL_SECONDS: '0' },
    encoding: 'utf8',
    timeout: 60000,
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /invalid configuration/);
  assert.match(r.stderr, /PORT="not-a-port" must be an integer from 0 to 65535/);
  assert.match(r.stderr, /CART_TTL_SECONDS/);
});
