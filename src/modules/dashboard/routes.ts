/**
 * GET /admin: the merchant's dashboard (dashboard/, a Vite + React build made by `npm install`).
 * Its files need no token: the app signs in with a staff session and calls the API like any
 * client. Read once at start; the hashed assets are cached for a year, the page itself revalidated.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';

// src/modules/dashboard/ from source, dist/src/modules/dashboard/ compiled: the build stays at the top.
const DIST = ['../../../dashboard/dist/', '../../../../dashboard/dist/']
  .map((relative) => fileURLToPath(new URL(relative, import.meta.url)))
  .find((dir) => existsSync(`${dir}index.html`));

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml', png: 'image/png', woff2: 'font/woff2' };

/** Where the dashboard is served: its page and assets. */
export const DASHBOARD_PATH = '/admin';

/** The page runs only its own scripts and talks only to this service. */
export const DASHBOARD_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data: blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const dashboardRoutes: FastifyPluginAsync = async (app) => {
  const page = DIST ? readFileSync(`${DIST}index.html`) : null;
  const assets = new Map<string, { body: Buffer; type: string }>();
  for (const file of DIST && existsSync(`${DIST}assets`) ? readdirSync(`${DIST}assets`) : []) {
    const type = TYPES[file.split('.').pop()!];
    if (type) assets.set(file, { body: readFileSync(`${DIST}assets/${file}`), type });
  }
  app.get(DASHBOARD_PATH, { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${DASHBOARD_PATH}/`));
  app.get(`${DASHBOARD_PATH}/`, { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-security-policy', DASHBOARD_CSP).header('cache-control', 'no-cache');
    if (!page) return reply.code(503).type('text/plain; charset=utf-8').send('The dashboard is not built: run `npm install` (its prepare script builds dashboard/dist).');
    return reply.type('text/html; charset=utf-8').send(page);
  });
  app.get<{ Params: { file: string } }>(`${DASHBOARD_PATH}/assets/:file`, { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.get(request.params.file);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
    return reply.header('cache-control', 'public, max-age=31536000, immutable').type(asset.type).send(asset.body);
  });
};

export default dashboardRoutes;
