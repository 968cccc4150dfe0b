import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../plugins/errors.js';
import { errorResponses } from '../../lib/http-schemas.js';
import type { Degradation } from '../../plugins/rate-limiter.js';

const Health = Type.Object({ status: Type.String({ examples: ['ok'] }) }, { title: 'Health' });
const Readiness = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')], {
      description: '`degraded`: the service serves, but something is not as configured (see `degraded`)',
    }),
    degraded: Type.Optional(
      Type.Array(
        Type.Object({
          component: Type.String({ description: 'what is degraded', examples: ['rate-limits'] }),
          detail: Type.String({ examples: ['Redis at redis:6379 (REDIS_URL) does not answer: rate limits count in this process alone until it does'] }),
        }),
        { description: 'present only when status is degraded' },
      ),
    ),
  },
  { title: 'Readiness' },
);

export interface OperationsOptions {
  /** What is not as configured right now (Redis set but not answering, ...). */
  degradations?: () => Array<{ component: string; detail: string }>;
}

const operationsRoutes: FastifyPluginAsyncTypebox<OperationsOptions> = async (app, options) => {
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
        description: '200 while the database answers: `{"status":"ready"}`, or `{"status":"degraded","degraded":[...]}` when the service serves but something is not as configured (rate limits counted per process because Redis does not answer). 503 when the database does not answer.',
        response: { 200: Readiness, ...errorResponses([], { isPublic: true }) },
      },
    },
    async () => {
      try {
        await app.database.ping(2000);
      } catch {
        throw new AppError('SERVICE_UNAVAILABLE', 'the database is not answering', { headers: { 'retry-after': '1' } });
      }
      const degraded: Degradation[] = options.degradations?.() ?? [];
      return degraded.length > 0 ? { status: 'degraded' as const, degraded } : { status: 'ready' as const };
    },
  );
};

export default operationsRoutes;
