/** GET /v1/admin/events: the store's events, oldest first. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { errorResponses } from '../../lib/http-schemas.js';
import * as S from './schemas.js';
import { readEventFeed } from './service.js';

const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/events',
    {
      schema: {
        operationId: 'adminListEvents', tags: ['admin'], summary: 'Read the events feed (oldest first)',
        description: 'Events of committed changes, kept EVENT_RETENTION_DAYS. Page with `after` = the previous `nextCursor`; an empty page keeps the cursor, so a reader can poll with it.',
        querystring: S.EventFeedQuery, response: { 200: S.EventFeed, ...errorResponses([]) },
      },
    },
    async (request) => readEventFeed(app.db, storeOf(request), request.query, app.config.eventRetentionDays),
  );
};

export default eventRoutes;
