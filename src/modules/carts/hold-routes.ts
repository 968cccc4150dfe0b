/** Checkout hold endpoints: POST and DELETE /v1/carts/:id/hold, commands of the write pipeline. */
import type { FastifyInstance } from 'fastify';
import { registerCommand } from '../../plugins/commands.js';
import * as S from './schemas.js';
import { holdCarts, holdCartsOfStores, releaseHold } from './holds.js';

const tags = ['carts'];

export function registerHoldCommands(app: FastifyInstance): void {
  const policy = { seconds: app.config.cartHoldSeconds, maxSeconds: app.config.cartHoldMaxSeconds, perClient: app.config.holdsPerClient };
  registerCommand(app, {
    method: 'POST', url: '/v1/carts/:id/hold', operationId: 'holdCart', tags, summary: "Hold a cart's stock for checkout",
    description:
      'Holds every line of a PENDING cart for CART_HOLD_SECONDS, all or nothing: nobody else can order or hold those units until `heldUntil`. ' +
      'Holding a held cart checks and renews it, up to CART_HOLD_MAX_SECONDS after it was first taken (then 409 HOLD_LIMIT_REACHED). ' +
      'One client address keeps at most HOLDS_PER_CLIENT held carts of a store (429 RATE_LIMITED with Retry-After). ' +
      '422 with one `errors` entry per product that cannot be held (or is over its `maxPerOrder`: QUANTITY_LIMIT_EXCEEDED); nothing is held then.',
    params: S.CartParams, status: 200, response: S.CartEnvelope,
    errors: ['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING', 'HOLD_LIMIT_REACHED', 'INSUFFICIENT_STOCK', 'PRODUCT_UNAVAILABLE', 'QUANTITY_LIMIT_EXCEEDED'],
    // Its answers mark HOLDS_CHANGED: only the catalog answers showing the held products change.
    prepare: ({ params, client }) => ({ cartId: params.id.toLowerCase(), client }),
    runRound: (tx, store, jobs) => holdCarts(tx, store, jobs.map((j) => j.job), policy),
    runStores: (tx, stores) => holdCartsOfStores(tx, stores.map((s) => ({ store: s.store, requests: s.jobs.map((j) => j.job) })), policy),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/carts/:id/hold', operationId: 'releaseCartHold', tags, summary: "End a cart's checkout hold",
    description: 'Its units are available to everyone again at once; `heldUntil` becomes null. A cart that holds nothing answers as it is.',
    params: S.CartParams, status: 200, response: S.CartEnvelope, errors: ['NOT_FOUND', 'CART_EXPIRED', 'CART_NOT_PENDING'],
    run: ({ store, params }, { tx }) => releaseHold(tx, store, params.id),
  });
}
