import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../plugins/errors.js';
import { errorResponses } from '../../lib/http-schemas.js';

const Health = Type.Object({ status: Type.String({ examples: ['ok'] }) }, { title: 'Health' });

const operationsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    { schema: { operationId: 'getHealth', tags: ['operations'], summary: 'The process is up', response: { 200: Health } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/ready',
    {
      schema: {
        operationId: 'getReadiness',
        tags: ['operations'],
        summary: 'The database answers',
        response: { 200: Health, ...errorResponses([], { isPublic: true }) },
      },
    },
    async () => {
      try {
        await app.database.ping(2000);
      } catch {
        throw new AppError('SERVICE_UNAVAILABLE', 'the database is not answering', { headers: { 'retry-after': '1' } });
      }
      return { status: 'ready' };
    },
  );
};

export default operationsRoutes;
