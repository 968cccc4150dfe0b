/** The OpenAPI 3.1 document (built from the routes' own schemas) and the human docs page. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export default fp(
  async (app: FastifyInstance) => {
    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: {
          title: 'Storefront API',
          version: '1.0.0',
          description:
            'Multi-store storefront commerce API: catalog, carts, orders and addresses. Every `/v1` route needs ' +
            '`Authorization: Bearer <token>`; the token names the store. Errors are RFC 9457 `application/problem+json` ' +
            'with a stable `code`.',
        },
        servers: [{ url: '/', description: 'this server' }],
        components: {
          securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'a root, admin or storefront token' } },
        },
        tags: [
          { name: 'catalog', description: 'Products and collections (storefront)' },
          { name: 'carts', description: 'Carts (storefront)' },
          { name: 'orders', description: 'Orders (storefront)' },
          { name: 'addresses', description: 'Customer addresses (storefront)' },
          { name: 'admin', description: 'Store administration' },
          { name: 'operations', description: 'Health, readiness and documents' },
        ],
      },
    });
    await app.register(swaggerUi, { routePrefix: '/api/docs', staticCSP: true, uiConfig: { deepLinking: true, persistAuthorization: true } });
    app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  },
  { name: 'openapi' },
);
