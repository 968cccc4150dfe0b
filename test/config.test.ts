import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../src/plugins/config.js';
import { ROOT } from './support/database.js';
import { inheritedEnv } from './support/server-process.js';

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
    PORT: '8080', HOST: '0.0.0.0', DATA_DIR: '/tmp/x', DATABASE_URL: 'postgres://u@h:5432/db', STOREFRONT_ROOT_TOKEN: 'a-long-enough-root-token-of-32-chars',
    SEED_DEMO: 'false', CART_TTL_SECONDS: '60', LOG_LEVEL: 'warn',
  });
  assert.deepEqual(
    [c.port, c.host, c.dataDir, c.databaseUrl, c.rootToken, c.seedDemo, c.cartTtlSeconds, c.logLevel],
    [8080, '0.0.0.0', '/tmp/x', 'postgres://u@h:5432/db', 'a-long-enough-root-token-of-32-chars', false, 60, 'warn'],
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
    env: { ...inheritedEnv(), PORT: 'not-a-port', CART_TTL_SECONDS: '0' },
    encoding: 'utf8',
    timeout: 60000,
  });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /invalid configuration/);
  assert.match(r.stderr, /PORT="not-a-port" must be an integer from 0 to 65535/);
  assert.match(r.stderr, /CART_TTL_SECONDS/);
});

test('SEED_DEMO defaults to true on the embedded database and to false with DATABASE_URL', () => {
  assert.equal(loadConfig({}).seedDemo, true);
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db' }).seedDemo, false);
  assert.equal(loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db', SEED_DEMO: 'true' }).seedDemo, true);
  assert.equal(loadConfig({ SEED_DEMO: 'false' }).seedDemo, false);
});

test('STOREFRONT_ROOT_TOKEN: at least 32 characters, not one repeated character, not an example value', () => {
  const problemOf = (token: string) => {
    try {
      loadConfig({ STOREFRONT_ROOT_TOKEN: token });
      return undefined;
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.message;
    }
  };
  assert.match(problemOf('x'.repeat(31).replace(/^x/, 'y')) ?? '', /STOREFRONT_ROOT_TOKEN must be at least 32 characters/);
  assert.match(problemOf('a'.repeat(64)) ?? '', /single repeated character/);
  assert.match(problemOf('change-me-to-a-long-secret-of-32-chars') ?? '', /example value/);
  assert.match(problemOf(`${'k'.repeat(20)} ${'k'.repeat(20)}`) ?? '', /spaces/);
  assert.equal(problemOf('q3V0n7r1e+Zk9GmYp2sXw8bTfLcHdJ4u/A5oNiR6e1E='), undefined, 'a token from openssl rand -base64 32');
});

test('TRUST_PROXY: false, a hop count, or a list of proxy addresses and CIDRs; true (every hop) stops the start', () => {
  assert.equal(loadConfig({}).trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'false' }).trustProxy, false);
  assert.throws(
    () => loadConfig({ TRUST_PROXY: 'true' }),
    (error: unknown) => error instanceof ConfigError && /TRUST_PROXY=true/.test(error.message) && /hop count/.test(error.message),
    'true lets any client name its own address: refused with what to set instead',
  );
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.1,::1,fd00::/8' }).trustProxy, ['10.0.0.0/8', '192.168.1.1', '::1', 'fd00::/8']);
  for (const bad of ['yes please', '10.0.0.0/33', 'proxy.example', '10.0.0.1/8/8']) {
    assert.throws(() => loadConfig({ TRUST_PROXY: bad }), (error: unknown) => error instanceof ConfigError && /TRUST_PROXY/.test(error.message), bad);
  }
});

test('DB_START_TIMEOUT_SECONDS bounds the wait for an unreachable database (default 30)', () => {
  assert.equal(loadConfig({}).dbStartTimeoutSeconds, 30);
  assert.equal(loadConfig({ DB_START_TIMEOUT_SECONDS: '5' }).dbStartTimeoutSeconds, 5);
  assert.throws(() => loadConfig({ DB_START_TIMEOUT_SECONDS: '-1' }), ConfigError);
});

test('ALLOW_PRIVATE_NETWORKS covers webhooks and JWK Sets; its older name WEBHOOK_ALLOW_PRIVATE_NETWORKS still works, and two values that disagree stop the start', () => {
  assert.equal(loadConfig({}).allowPrivateNetworks, false);
  assert.equal(loadConfig({ ALLOW_PRIVATE_NETWORKS: 'true' }).allowPrivateNetworks, true);
  assert.equal(loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).allowPrivateNetworks, true);
  assert.equal(loadConfig({ ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).allowPrivateNetworks, true);
  assert.throws(() => loadConfig({ ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }), (e: ConfigError) => /disagree/.test(e.message));
  assert.deepEqual(loadConfig({ SHARED_JWT_ISSUERS: ' https://accounts.google.com ,https://login.example/,' }).sharedJwtIssuers, ['https://accounts.google.com', 'https://login.example/']);
});

test('read replica and pooler settings: DATABASE_READ_URL needs DATABASE_URL, lag and prepared statements are checked', () => {
  const defaults = loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db' });
  assert.deepEqual([defaults.databaseReadUrl, defaults.databaseReadMaxLagMs, defaults.dbPreparedStatements], [undefined, 1000, true]);
  const set = loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db', DATABASE_READ_URL: 'postgres://u@replica:5432/db', DATABASE_READ_MAX_LAG_MS: '250', DB_PREPARED_STATEMENTS: 'false' });
  assert.deepEqual([set.databaseReadUrl, set.databaseReadMaxLagMs, set.dbPreparedStatements], ['postgres://u@replica:5432/db', 250, false]);
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      return error.problems;
    }
  };
  assert.deepEqual(problems({ DATABASE_READ_URL: 'postgres://u@replica:5432/db' }), [
    'DATABASE_READ_URL needs DATABASE_URL: read replicas follow a PostgreSQL server, and the embedded database has none',
  ]);
  assert.deepEqual(problems({ DATABASE_URL: 'postgres://u@h/db', DATABASE_READ_URL: 'mysql://x', DATABASE_READ_MAX_LAG_MS: '-1', DB_PREPARED_STATEMENTS: 'sometimes' }), [
    'DATABASE_READ_URL must be a postgres:// or postgresql:// URL of a replica (or of a router to replicas)',
    'DATABASE_READ_MAX_LAG_MS="-1" must be an integer from 0 to 3600000',
    'DB_PREPARED_STATEMENTS="sometimes" must be true or false',
  ]);
});
