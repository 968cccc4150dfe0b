/**
 * GET /api/images/:file: the pictures the project ships, public, cacheable, and inert when opened
 * alone. Also that the image library is loaded only for a picture (uploads.test.ts loads it itself).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestApp } from './support/app.js';
import { assertProblem, createStore } from './support/factories.js';
import { ROOT } from './support/database.js';

const t = await startTestApp();

// A 1x1 PNG, written out so that this file never loads sharp itself.
const ONE_PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const libvipsMapped = () => readFileSync('/proc/self/maps', 'utf8').includes('libvips');

test('sharp (libvips) is loaded at the first picture, not before: a process that never takes one never pays its memory', { skip: !existsSync('/proc/self/maps') && 'needs /proc' }, async () => {
  const s = await createStore(t);
  assert.equal((await t.request('GET', '/api/v1/products', { token: s.storefront })).status, 200);
  assert.equal(libvipsMapped(), false, 'not loaded by starting or by a catalog read');
  const r = await t.request('POST', '/api/v1/admin/images', { token: s.admin, rawBody: ONE_PIXEL_PNG, headers: { 'content-type': 'image/png' } });
  assert.equal(r.status, 201, r.text);
  assert.deepEqual([r.json.image.width, r.json.image.height], [1, 1]);
  assert.equal(libvipsMapped(), true, 'loaded for the picture');
});

test('every shipped image is served without a token, small, with its type, an ETag, a 304 and a policy that runs nothing', async () => {
  const files = readdirSync(join(ROOT, 'assets/images'));
  assert.ok(files.length >= 9, files.join(', '));
  for (const file of files) {
    const r = await t.request('GET', `/api/images/${file}`);
    assert.equal(r.status, 200, file);
    assert.equal(r.headers['content-type'], 'image/svg+xml');
    assert.ok(r.text.length < 4096, `${file} stays small (${r.text.length} bytes)`);
    assert.equal(r.headers['cache-control'], 'public, max-age=86400');
    assert.match(String(r.headers['content-security-policy']), /default-src 'none'.*sandbox/);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['cross-origin-resource-policy'], 'cross-origin', 'a storefront on another origin may show it');
    const again = await t.request('GET', `/api/images/${file}`, { headers: { 'if-none-match': String(r.headers.etag) } });
    assert.equal(again.status, 304);
  }
});

test('an unknown image is 404, a name that is not a file name is 400 or 404, and nothing outside the folder is reachable', async () => {
  assertProblem(await t.request('GET', '/api/images/nothing.svg'), 404, 'NOT_FOUND');
  assertProblem(await t.request('GET', '/api/images/README.md'), 400, 'VALIDATION_FAILED');
  assertProblem(await t.request('GET', '/api/images/..%2Fpackage.json'), 400, 'VALIDATION_FAILED');
  assert.equal((await t.request('GET', '/api/images/../../package.json')).status, 404);
});
