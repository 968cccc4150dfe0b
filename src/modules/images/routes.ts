/**
 * Pictures. GET /api/images/:file: the small images the project ships in assets/images (the demo
 * store's product pictures), so the demo works offline. GET /api/images/:store/:id: a picture a
 * store uploaded (POST /v1/admin/images), kept in the database so every process serves it, at its
 * own size or resized (`?w=`). Both are public like /api/health, cacheable by browsers, and outside
 * the OpenAPI document like the document itself: they are files, not the API.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../plugins/errors.js';
import { registerCommand } from '../../plugins/commands.js';
import { Timestamp, Uuid } from '../../lib/http-schemas.js';
import { toIso } from '../../lib/time.js';
import { judge, MAX_UPLOAD_BYTES, resized, UPLOAD_TYPES, WIDTHS, type UploadType } from './formats.js';
import * as repo from './repository.js';

/** Where pictures are served (under /api): the bundled ones and the stores' uploads. */
export const IMAGES_PATH = '/images';

/** What a picture runs when opened on its own: nothing (no scripts, no requests, only inline styles). */
export const IMAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

const UploadedImage = Type.Object({
  id: Uuid('image id'),
  url: Type.String({ description: '`/api/images/<store>/<id>`: put it in a product\'s `images`; `?w=160|320|640|1280` serves it resized' }),
  contentType: Type.String({ examples: ['image/png'] }),
  width: Type.Integer(),
  height: Type.Integer(),
  bytes: Type.Integer(),
  createdAt: Timestamp(),
});

/** Resized copies recently served by this process, so a busy picture is resized once. */
class ResizedCache {
  private readonly entries = new Map<string, Buffer>();
  private size = 0;
  constructor(private readonly maxBytes = 32 * 1024 * 1024) {}
  get(key: string) {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }
  set(key: string, value: Buffer) {
    this.entries.set(key, value);
    this.size += value.length;
    for (const [oldest, buffer] of this.entries) {
      if (this.size <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.size -= buffer.length;
    }
  }
}

// src/modules/images/ when run from source, dist/src/modules/images/ when compiled: the assets stay at the top.
const IMAGES_DIR = ['../../../assets/images/', '../../../../assets/images/']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((dir) => existsSync(dir));

const TYPES: Record<string, string> = { svg: 'image/svg+xml', png: 'image/png', webp: 'image/webp' };
const FILE = '^[a-z0-9][a-z0-9-]*\\.(svg|png|webp)$';

interface Image {
  body: Buffer;
  type: string;
  etag: string;
}

function loadImages(): Map<string, Image> {
  const images = new Map<string, Image>();
  for (const file of IMAGES_DIR ? readdirSync(IMAGES_DIR) : []) {
    const type = TYPES[file.split('.').pop()!];
    if (!type || !new RegExp(FILE).test(file)) continue;
    const body = readFileSync(IMAGES_DIR + file);
    images.set(file, { body, type, etag: `"${createHash('sha1').update(body).digest('base64url')}"` });
  }
  return images;
}

const imageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const images = loadImages();
  app.get(
    `${IMAGES_PATH}/:file`,
    { schema: { hide: true, params: Type.Object({ file: Type.String({ pattern: FILE, maxLength: 100 }) }) } },
    async (request, reply) => {
      const image = images.get(request.params.file);
      if (!image) throw new AppError('NOT_FOUND', `no image "${request.params.file}"`);
      // An SVG opened on its own runs nothing: no scripts, no requests, only its inline styles.
      reply.header('etag', image.etag).header('cache-control', 'public, max-age=86400').header('content-security-policy', IMAGE_CSP);
      if (request.headers['if-none-match'] === image.etag) return reply.code(304).send();
      return reply.type(image.type).send(image.body);
    },
  );

  const cache = new ResizedCache();
  app.get(
    `${IMAGES_PATH}/:store/:id`,
    {
      schema: {
        hide: true,
        params: Type.Object({ store: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,62}$' }), id: Uuid() }),
        querystring: Type.Object({ w: Type.Optional(Type.Union(WIDTHS.map((w) => Type.Literal(w)))) }, { additionalProperties: false }),
      },
    },
    async (request, reply) => {
      const { store, id } = request.params;
      const width = request.query.w;
      const key = `${store}/${id.toLowerCase()}/${width ?? ''}`;
      // The bytes of an id never change: the answer is cached for a year, and its tag is its key.
      const etag = `"${key}"`;
      reply.header('cache-control', 'public, max-age=31536000, immutable').header('content-security-policy', IMAGE_CSP).header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      const image = await repo.findImageData(app.db, store, id);
      if (!image) {
        reply.header('cache-control', 'no-store');
        throw new AppError('NOT_FOUND', 'no such image');
      }
      let body = image.data;
      if (width) {
        body = cache.get(key) ?? (await resized(image.data, image.contentType as UploadType, width));
        cache.set(key, body);
      }
      return reply.type(image.contentType).send(body);
    },
  );

  // The picture is the raw body; its bytes, not this header, decide what it is (formats.ts).
  app.addContentTypeParser([...UPLOAD_TYPES], { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) => done(null, body));
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/images', operationId: 'adminUploadImage', tags: ['admin'], summary: 'Upload a product picture (the raw bytes as the body)',
    description:
      'The body is the picture itself with `Content-Type` image/jpeg, image/png, image/webp or image/avif, at most 10 MiB. The bytes must be a whole picture of that type: anything else (another format, SVG, a truncated file) is 415 or 400 and nothing is stored. Put the answered `url` in a product\'s `images`.',
    status: 201, response: Type.Object({ image: UploadedImage }), errors: ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'],
    bodyLimit: MAX_UPLOAD_BYTES,
    before: async (request) => {
      if (!Buffer.isBuffer(request.body)) throw new AppError('UNSUPPORTED_MEDIA_TYPE', `send the picture as the body, with Content-Type one of ${UPLOAD_TYPES.join(', ')}`);
      const verdict = await judge(request.body, String(request.headers['content-type'] ?? ''));
      if (!verdict.ok) throw new AppError(verdict.status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'VALIDATION_FAILED', verdict.detail);
      request.body = { checked: verdict, data: request.body };
    },
    run: async ({ store, body }, { tx }) => {
      const { checked, data } = body as unknown as { checked: { contentType: UploadType; width: number; height: number }; data: Buffer };
      const row = await repo.insertImage(tx, store, { ...checked, data });
      return { image: { id: row.id, url: `/api/images/${store}/${row.id}`, contentType: row.contentType, width: row.width, height: row.height, bytes: row.bytes, createdAt: toIso(row.createdAt) } };
    },
  });
};

export default imageRoutes;
