/**
 * GET /api/images/:file: the small images the project ships in assets/images (the demo store's
 * product pictures), so the demo works offline. Public like /api/health, read once at start,
 * cacheable by browsers, and outside the OpenAPI document like the document itself: they are
 * files, not the API.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../plugins/errors.js';

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
    '/images/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String({ pattern: FILE, maxLength: 100 }) }) } },
    async (request, reply) => {
      const image = images.get(request.params.file);
      if (!image) throw new AppError('NOT_FOUND', `no image "${request.params.file}"`);
      // An SVG opened on its own runs nothing: no scripts, no requests, only its inline styles.
      reply.header('etag', image.etag).header('cache-control', 'public, max-age=86400').header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
      if (request.headers['if-none-match'] === image.etag) return reply.code(304).send();
      return reply.type(image.type).send(image.body);
    },
  );
};

export default imageRoutes;
