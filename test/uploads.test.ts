/**
 * Photo uploads (docs/dashboard.md): each format is judged by its bytes and kept per store in the
 * database; served with a year's immutable cache, nosniff and the content security policy, and
 * resized on `?w=`; anything else (a PNG sent as JPEG, an SVG with a script, a truncated file,
 * 10 MiB + 1) is refused and stores nothing; another store's picture is not found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { startTestApp } from './support/app.js';
import { assertProblem, createProduct, createStore } from './support/factories.js';
import { staffMember } from './support/staff.js';

const t = await startTestApp();

const picture = (format: 'jpeg' | 'png' | 'webp' | 'avif', width = 800, height = 600) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 40 } } })[format]().toBuffer();

const upload = (token: string, body: Buffer | string, contentType: string) =>
  t.request('POST', '/api/v1/admin/images', { token, rawBody: body, headers: { 'content-type': contentType } });

async function countImages(store: string): Promise<number> {
  const rows = await t.database.db.execute(sql`select count(*)::int as n from images where store = ${store}`);
  return Number((rows as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
}

test('each format is taken, kept and served with its cache, nosniff and policy; ?w= resizes', async () => {
  const s = await createStore(t);
  const member = await staffMember(t, s, 'staff');
  for (const format of ['jpeg', 'png', 'webp', 'avif'] as const) {
    const bytes = await picture(format);
    const r = await upload(member.secret, bytes, `image/${format}`);
    assert.equal(r.status, 201, r.text);
    const image = r.json.image;
    assert.equal(image.contentType, `image/${format}`);
    assert.deepEqual([image.width, image.height, image.bytes], [800, 600, bytes.length]);
    assert.equal(image.url, `/api/images/${s.slug}/${image.id}`);

    const served = await t.app.inject({ method: 'GET', url: image.url });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], `image/${format}`);
    assert.equal(served.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(served.headers['x-content-type-options'], 'nosniff');
    assert.match(String(served.headers['content-security-policy']), /default-src 'none'.*sandbox/);
    assert.ok(served.rawPayload.equals(bytes), 'the original bytes');

    const small = await t.app.inject({ method: 'GET', url: `${image.url}?w=320` });
    assert.equal(small.statusCode, 200);
    const meta = await sharp(small.rawPayload).metadata();
    assert.deepEqual([meta.width, meta.height, `image/${meta.format === 'heif' ? 'avif' : meta.format}`], [320, 240, `image/${format}`]);
    assert.equal((await t.app.inject({ method: 'GET', url: `${image.url}?w=300` })).statusCode, 400, 'only the fixed widths');
    const again = await t.app.inject({ method: 'GET', url: image.url, headers: { 'if-none-match': String(served.headers.etag) } });
    assert.equal(again.statusCode, 304);
  }
  // The URL goes into a product's images.
  const first = (await upload(s.admin, await picture('png', 64, 64), 'image/png')).json.image;
  const product = await createProduct(t, s, { images: [{ url: first.url, alt: 'front' }] });
  assert.equal(product.images[0].url, first.url);
});

test('refused and nothing stored: a PNG sent as JPEG, an SVG with a script, a truncated file, other types, 10 MiB + 1', async () => {
  const s = await createStore(t);
  const png = await picture('png');
  assertProblem(await upload(s.admin, png, 'image/jpeg'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
  assertProblem(await upload(s.admin, svg, 'image/svg+xml'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  const disguised = await upload(s.admin, svg, 'image/png');
  assertProblem(disguised, 415, 'UNSUPPORTED_MEDIA_TYPE');
  assert.match(disguised.json.detail, /SVG/);
  const jpeg = await picture('jpeg', 1200, 900);
  const truncated = await upload(s.admin, jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'image/jpeg');
  assertProblem(truncated, 400, 'VALIDATION_FAILED');
  assertProblem(await upload(s.admin, png.subarray(0, png.length - 20), 'image/png'), 400, 'VALIDATION_FAILED');
  assertProblem(await upload(s.admin, Buffer.from('GIF89a....'), 'image/gif'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  assertProblem(await t.request('POST', '/api/v1/admin/images', { token: s.admin, body: { url: 'https://example.com/x.png' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  const huge = Buffer.concat([png, Buffer.alloc(10 * 1024 * 1024 + 1 - png.length)]);
  assertProblem(await upload(s.admin, huge, 'image/png'), 413, 'PAYLOAD_TOO_LARGE');
  assert.equal(await countImages(s.slug), 0);
  // A storefront token may not upload.
  assertProblem(await upload(s.storefront, png, 'image/png'), 403, 'FORBIDDEN');
});

test("another store's picture is not found under this store, and an unknown id is 404", async () => {
  const a = await createStore(t);
  const b = await createStore(t);
  const image = (await upload(a.admin, await picture('webp', 100, 100), 'image/webp')).json.image;
  assert.equal((await t.app.inject({ method: 'GET', url: `/api/images/${b.slug}/${image.id}` })).statusCode, 404);
  assert.equal((await t.app.inject({ method: 'GET', url: `/api/images/${a.slug}/00000000-0000-4000-8000-000000000000` })).statusCode, 404);
  assert.equal((await t.app.inject({ method: 'GET', url: `/api/images/${a.slug}/${image.id}` })).statusCode, 200);
});
