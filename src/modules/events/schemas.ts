import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../lib/http-schemas.js';

export const Event = Type.Object({
  id: Uuid('event id; the `webhook-id` of its deliveries'),
  type: Type.String({ examples: ['order.created'] }),
  store: Type.String({ examples: ['demo'] }),
  timestamp: Timestamp('when the change was committed'),
  actor: Type.Union(
    [
      Type.Object({ type: Type.Literal('staff'), id: Uuid('staff id'), email: Type.String() }),
      Type.Object({ type: Type.Literal('token'), id: Uuid('token id') }),
      Type.Object({ type: Type.Literal('customer'), id: Uuid('customer id') }),
      Type.Object({ type: Type.Literal('system') }),
    ],
    { description: 'who made the change: a staff member, a store token, a customer, or the system (jobs, the CLI, payment providers)' },
  ),
  data: Type.Object({}, { additionalProperties: true, description: '`{order}`, `{product}` or `{collection}`, as the API answers it' }),
});
export type EventView = Static<typeof Event>;

export const EventFeedQuery = Type.Object(
  {
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the `nextCursor` of the previous page' })),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100, description: 'page size (1..500)' }),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'comma-separated event types to keep, e.g. `order.created,order.paid`' })),
  },
  { additionalProperties: false },
);
export type EventFeedQuery = Static<typeof EventFeedQuery>;

export const EventFeed = Type.Object({
  events: Type.Array(Event),
  nextCursor: Nullable('string', { description: 'pass as `after` for the next page; null only when the feed was empty from the start' }),
});
