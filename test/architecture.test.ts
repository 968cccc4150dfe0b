/**
 * The shape of the code, checked: modules stand side by side and reach each other only through
 * their public interface (`index.ts`), the layers below them never import them, and every write
 * route is a command of the write pipeline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { loadConfig } from '../src/plugins/config.js';
import { ROOT, TEST_DATABASE_URL } from './support/database.js';
import { testEnv } from './support/app.js';

const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every relative import of every file under src/, as paths relative to src/ (`modules/carts/service.ts`). */
function importArrows(): Array<{ from: string; to: string }> {
  return sourceFiles(SRC).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import\()\s*'(\.[^']+)'/g)].map((m) => m[1]!);
    return specifiers.map((s) => ({ from: relative(SRC, file), to: relative(SRC, resolve(dirname(file), s)).replace(/\.js$/, '.ts') }));
  });
}

const moduleOf = (path: string) => /^modules\/([^/]+)\//.exec(path)?.[1];

test('a module reaches another module only through its index.ts, never its repository', () => {
  const crossings = importArrows().filter(({ from, to }) => moduleOf(from) && moduleOf(to) && moduleOf(from) !== moduleOf(to));
  assert.ok(crossings.length > 0, 'the scan finds the arrows between modules');
  const intoRepositories = crossings.filter(({ to }) => /repository\.ts$/.test(to));
  assert.deepEqual(intoRepositories, [], 'no module imports another module\'s repository');
  const pastInterfaces = crossings.filter(({ to }) => !to.endsWith('/index.ts'));
  assert.deepEqual(pastInterfaces, [], 'modules import each other only through index.ts');
});

test('the layers below the modules do not import upward', () => {
  const arrows = importArrows();
  const upward = arrows.filter(
    ({ from, to }) =>
      (from === 'plugins/authentication.ts' && to.startsWith('modules/customers/')) ||
      (from.startsWith('db/') && (to.startsWith('modules/') || to.startsWith('plugins/'))) ||
      (from.startsWith('lib/') && (to.startsWith('plugins/') || to.startsWith('modules/'))),
  );
  assert.deepEqual(upward, []);
});

test('a write route registered without a command declaration makes the app refuse to start', async () => {
  const database = await openDatabase(TEST_DATABASE_URL ? { url: TEST_DATABASE_URL, poolSize: 1 } : {});
  try {
    const app = await buildApp({ config: loadConfig(testEnv()), database });
    try {
      // In the access table, so only the missing declaration refuses it.
      assert.throws(() => app.patch('/api/v1/carts/:id/products/:pid', async () => ({})), /is not a command: register it with registerCommand/);
      assert.throws(() => app.delete('/api/v1/admin/tokens/:id', async () => ({})), /is not a command/);
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
});
