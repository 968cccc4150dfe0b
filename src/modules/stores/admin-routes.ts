/** Stores (root token) and a store's own tokens (admin token). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { errorResponses, NullableTimestamp, StringEnum, Timestamp, Uuid, named } from '../../lib/http-schemas.js';
import { ISSUABLE_TOKEN_KINDS, TOKEN_KIND_NAMES } from './tokens.js';
import * as stores from './service.js';

const tags = ['admin'];

const Store = named('Store', Type.Object({ slug: Type.String({ examples: ['demo'] }), name: Type.String(), createdAt: Timestamp() }));
const Token = named('Token', Type.Object({
  id: Uuid('token id'),
  kind: StringEnum(TOKEN_KIND_NAMES),
  createdAt: Timestamp(),
  revokedAt: NullableTimestamp(),
}));
const Secret = Type.String({ description: 'the token secret; shown only in this answer', examples: ['sf_demo_3q2...'] });

const CreateStoreBody = named('CreateStoreBody', Type.Object(
  {
    slug: Type.String({ pattern: '^[a-z0-9][a-z0-9-]{1,62}$', description: 'the store name in every record', examples: ['acme'] }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
));
const CreatedStore = named('CreatedStore', Type.Object({ store: Store, tokens: Type.Object({ admin: Secret, storefront: Secret }) }));
const CreateTokenBody = named('CreateTokenBody', Type.Object(
  { kind: StringEnum(ISSUABLE_TOKEN_KINDS, { description: 'admin: the admin API; server: a shop back end (secret); storefront: public, ships in web pages' }) },
  { additionalProperties: false },
));

const storesAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/stores', operationId: 'createStore', tags, summary: 'Create a store (root token)',
    description: 'Answers the store and its first admin and storefront tokens, shown once.',
    body: CreateStoreBody, status: 201, response: CreatedStore, errors: ['CONFLICT'],
    run: ({ body }, { tx }) => stores.createStore(tx, body.slug, body.name),
  });
  app.get(
    '/v1/admin/tokens',
    { schema: { operationId: 'adminListTokens', tags, summary: 'List the store\'s tokens (never their secrets)', response: { 200: Type.Object({ tokens: Type.Array(Token) }), ...errorResponses([]) } } },
    async (request) => ({ tokens: await stores.listTokens(app.db, storeOf(request)) }),
  );
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/tokens', operationId: 'adminCreateToken', tags, summary: 'Issue a token',
    body: CreateTokenBody, status: 201, response: Type.Object({ token: Token, secret: Secret }), errors: [],
    run: ({ store, body }, { tx }) => stores.createToken(tx, store, body.kind),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/tokens/:id', operationId: 'adminRevokeToken', tags, summary: 'Revoke a token; it stops working at once',
    params: Type.Object({ id: Uuid('token id') }), status: 200, response: Type.Object({ token: Token }), errors: ['NOT_FOUND'],
    run: async ({ store, params }, { tx }) => ({ token: await stores.revokeToken(tx, store, params.id) }),
  });
};

export default storesAdminRoutes;
