/**
 * The Storefront API's typed client: `paths` and the named schemas are generated from the service's
 * OpenAPI document (`npm run generate`), and openapi-fetch makes each call type-checked: the path,
 * its parameters and headers (Idempotency-Key, If-None-Match), the body, and every answer, errors
 * included (`error.code` is the union of the codes that status can carry).
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

type Schemas = components['schemas'];
export type Product = Schemas['Product'];
export type ProductLine = Schemas['ProductLine'];
export type Collection = Schemas['Collection'];
export type Cart = Schemas['Cart'];
export type CartWarning = Schemas['CartWarning'];
export type Order = Schemas['Order'];
export type Address = Schemas['Address'];
export type AddressInput = Schemas['AddressInput'];
export type CreateOrderBody = Schemas['CreateOrderBody'];
export type GuestSession = Schemas['GuestSession'];
export type CustomerToken = Schemas['CustomerToken'];
export type Problem = Schemas['Problem'];

export type StorefrontClient = Client<paths>;

export interface StorefrontClientOptions {
  /** Where the service listens, e.g. `http://localhost:3000` (the paths start with /api). */
  baseUrl: string;
  /** The bearer token, or a function returning the current one (a storefront token, then a customer token). */
  token?: string | (() => string | undefined);
  /** A fetch of your own (tests, SSR); the global one otherwise. */
  fetch?: typeof globalThis.fetch;
}

/** A client of one store: every call carries `Authorization: Bearer <token>`. */
export function createStorefrontClient(options: StorefrontClientOptions): StorefrontClient {
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: options.fetch });
  const auth: Middleware = {
    onRequest({ request }) {
      const token = typeof options.token === 'function' ? options.token() : options.token;
      if (token) request.headers.set('Authorization', `Bearer ${token}`);
      return request;
    },
  };
  client.use(auth);
  return client;
}

/** A problem answer (RFC 9457) as an exception, for code that prefers throwing. */
export class StorefrontError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
  ) {
    super(`${problem.code}: ${problem.detail}`);
    this.name = 'StorefrontError';
  }
}

/** The data of an openapi-fetch answer, or a StorefrontError with its problem. */
export function unwrap<T, E>(result: { data?: T; error?: E; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    const problem = (result.error ?? { code: 'EMPTY', detail: `HTTP ${result.response.status} without a body` }) as Problem;
    throw new StorefrontError(result.response.status, problem);
  }
  return result.data;
}
