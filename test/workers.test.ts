/** WORKERS=N: one primary, N workers on one port; PostgreSQL only. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT_TOKEN } from './support/app.js';
import { ROOT, TEST_DATABASE_URL } from './support/database.js';
import { call, inheritedEnv, startServerProcess } from './support/server-process.js';

test('WORKERS above 1 without DATABASE_URL is refused with a clear message', () => {
  const env: Record<string, string | undefined> = { ...inheritedEnv(), WORKERS: '2', PORT: '0' };
  delete env.DATABASE_URL;
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server.ts')], { cwd: ROOT, env, encoding: 'utf8', timeout: 60000 });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /WORKERS=2 needs DATABASE_URL/);
});

test('WORKERS=2 serves from two processes, replaces a dead worker, and stops cleanly on SIGTERM', { skip: !TEST_DATABASE_URL && 'needs TEST_DATABASE_URL (PostgreSQL)' }, async () => {
  const server = await startServerProcess({ DATABASE_URL: TEST_DATABASE_URL!, WORKERS: '2', SEED_DEMO: 'false' });
  try {
    const created = await call(server.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `workers-${Date.now().toString(36)}` } });
    assert.equal(created.status, 201, created.text);
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(server.base, 'GET', '/v1/products', { token: created.json.tokens.storefront })));
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [200]);
    // The banner comes once both workers listen; /api/health answered as soon as the first did.
    for (let i = 0; i < 300 && !/with 2 workers/.test(server.output()); i++) await new Promise((r) => setTimeout(r, 100));
    assert.match(server.output(), /with 2 workers/);
    assert.match(server.output(), /several processes count alone/, 'no REDIS_URL: the start says each process counts alone');
    const workerPids = spawnSync('pgrep', ['-P', String(server.child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n').map(Number).filter(Boolean);
    assert.equal(workerPids.length, 2, `workers: ${workerPids.join(',')}`);
    process.kill(workerPids[0]!, 'SIGKILL');
    let replaced = false;
    for (let i = 0; i < 100 && !replaced; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = spawnSync('pgrep', ['-P', String(server.child.pid)], { encoding: 'utf8' }).stdout.trim().split('\n').map(Number).filter(Boolean);
      replaced = now.length === 2 && !now.includes(workerPids[0]!);
    }
    assert.ok(replaced, 'the primary started a new worker');
    for (let i = 0; i < 50; i++) {
      if ((await call(server.base, 'GET', '/api/health').catch(() => ({ status: 0 }))).status === 200) break;
    }
    assert.equal((await call(server.base, 'GET', '/v1/products', { token: created.json.tokens.storefront })).status, 200);
  } finally {
    assert.equal(await server.stop('SIGTERM'), 0, server.output());
  }
});
