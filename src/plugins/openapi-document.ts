/**
 * Completes the OpenAPI document @fastify/swagger builds from the route schemas, with what the
 * routes declare elsewhere: who may call them (the access table), whether they take an
 * Idempotency-Key (`config.idempotent`), and what every route shares (problem+json errors,
 * X-Request-Id, rate limits, 408/413/415). Nothing here is written per route: a route's schema and
 * config stay the one source.
 */
import { accessOf, type Caller } from './access-table.js';

type Json = Record<string, unknown>;

/** Facts about a route that live outside its schema, keyed `METHOD /url/:param`. */
export interface RouteFacts {
  idempotent: boolean;
}

export const SECURITY_SCHEMES: Record<Caller, { scheme: string; description: string }> = {
  root: { scheme: 'rootToken', description: 'The platform root token (STOREFRONT_ROOT_TOKEN): creates stores.' },
  admin: { scheme: 'adminToken', description: 'An admin token of one store (`adm_…`): the whole admin API and every storefront route.' },
  server: { scheme: 'serverToken', description: "A server token of one store (`srv_…`), kept on a shop's back end: mints customer tokens, reaches every customer." },
  storefront: { scheme: 'storefrontToken', description: 'The public storefront token of one store (`sf_…`): catalog, carts and guest sessions.' },
  owner: { scheme: 'ownerSession', description: "A dashboard session of one of the store's owners (`stf_…`, from POST /v1/staff/sessions, 12 hours): what an admin token may do on the admin API." },
  staff: { scheme: 'staffSession', description: "A dashboard session of a staff member with the `staff` role (`stf_…`): the catalog, orders, discounts, shipping, taxes and images." },
  customer: { scheme: 'customerToken', description: "A customer credential: a customer token (`cus_…`, minted or from a guest session) or a JWT of the store's identity provider. Reaches that customer's own data." },
};

const PROBLEM = 'application/problem+json';
const header = (description: string, schema: Json = { type: 'string' }) => ({ description, schema });

const COMPONENT_HEADERS: Record<string, Json> = {
  XRequestId: header('The request id: the client\'s own X-Request-Id when it is sane, otherwise a new UUID.'),
  ETag: header('Strong validator of the representation; send it back as If-None-Match.'),
  RetryAfter: header('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }),
  RateLimitLimit: header('Requests allowed in the current window.', { type: 'integer', minimum: 0 }),
  RateLimitRemaining: header('Requests left in the current window.', { type: 'integer', minimum: 0 }),
  RateLimitReset: header('Seconds until the window resets.', { type: 'integer', minimum: 0 }),
  IdempotentReplayed: header('`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key.', { type: 'string', enum: ['true'] }),
  WWWAuthenticate: header('The Bearer challenge (RFC 6750).'),
};

const COMPONENT_PARAMETERS: Record<string, Json> = {
  XRequestId: {
    name: 'X-Request-Id', in: 'header', required: false,
    description: 'Your id for this request, echoed back and logged; anything else than 1..128 of `A-Za-z0-9._-` is replaced by a new one.',
    schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._-]{1,128}$' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key', in: 'header', required: false,
    description: 'Makes the request safe to retry: the same key with the same request replays the first answer (for 24 hours).',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
  IfNoneMatch: {
    name: 'If-None-Match', in: 'header', required: false,
    description: 'The ETag of a representation you hold: 304 without a body while it is still current.',
    schema: { type: 'string' },
  },
};

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** Statuses every route of a kind can answer that its schema does not list, with their codes. */
function sharedErrors(method: string, isPublic: boolean): Record<string, string[]> {
  const shared: Record<string, string[]> = { 503: ['SERVICE_UNAVAILABLE'] };
  if (!isPublic) Object.assign(shared, { 400: ['VALIDATION_FAILED'], 401: ['UNAUTHORIZED'], 403: ['FORBIDDEN'], 429: ['RATE_LIMITED'] });
  if (['POST', 'PUT', 'PATCH'].includes(method)) Object.assign(shared, { 413: ['PAYLOAD_TOO_LARGE'], 415: ['UNSUPPORTED_MEDIA_TYPE'] });
  return shared;
}

const STATUS_TEXT: Record<string, string> = {
  200: 'OK', 201: 'Created',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict', 413: 'Content Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Content', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

/** Moves every schema with a `title` into components.schemas and leaves a `$ref` in its place. */
function hoistNamedSchemas(node: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistNamedSchemas(item, components));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) out[key] = hoistNamedSchemas(value, components);
  const title = out.title;
  if (typeof title !== 'string') return out;
  const known = components[title];
  if (known && JSON.stringify(known) !== JSON.stringify(out)) {
    throw new Error(`two different schemas are both titled ${title}: give one another title`);
  }
  components[title] = out;
  return ref('schemas', title);
}

/** An error answer: the Problem component, narrowed to the codes this status can carry. */
function problemResponse(description: string, codes: string[]): Json {
  return {
    description,
    headers: {},
    content: {
      [PROBLEM]: {
        schema: { allOf: [ref('schemas', 'Problem'), { type: 'object', properties: { code: { type: 'string', enum: codes } } }] },
      },
    },
  };
}

/** The codes an error response's schema names (`code: { enum }`, see errorResponses). */
function codesOf(response: Json): string[] {
  const schema = (response.content as Record<string, { schema?: Json }> | undefined)?.['application/json']?.schema;
  const code = (schema?.properties as Record<string, Json> | undefined)?.code;
  return Array.isArray(code?.enum) ? (code.enum as string[]) : [];
}

/** Adds what the routes share to one operation, in place. */
function completeOperation(method: string, path: string, operation: Json, facts: RouteFacts | undefined) {
  const url = path.replace(/\{([^}]+)\}/g, ':$1');
  const access = accessOf(method, url);
  // A route whose summary says it all has no longer description: the summary is the description.
  operation.description ??= operation.summary;
  const isPublic = access === 'public' || access === undefined;
  operation.security = isPublic
    ? []
    : (Object.keys(access) as Caller[]).map((caller) => ({ [SECURITY_SCHEMES[caller].scheme]: [] }));

  const parameters = (operation.parameters as Json[] | undefined) ?? [];
  const responses = operation.responses as Record<string, Json>;
  parameters.push(ref('parameters', 'XRequestId'));
  if (facts?.idempotent) parameters.push(ref('parameters', 'IdempotencyKey'));
  const conditional = '304' in responses;
  if (conditional) parameters.push(ref('parameters', 'IfNoneMatch'));
  operation.parameters = parameters;

  for (const [status, codes] of Object.entries(sharedErrors(method, isPublic))) {
    const existing = responses[status];
    const merged = existing ? [...new Set([...codesOf(existing), ...codes])] : codes;
    // In the shape errorResponses gives, so the loop below turns it into a problem answer like the others.
    responses[status] = { description: '', content: { 'application/json': { schema: { properties: { code: { enum: merged } } } } } };
  }
  responses['408'] = {
    description: 'Request Timeout: the request did not arrive within REQUEST_TIMEOUT_MS; the connection is closed without a body.',
    headers: {},
  };

  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    if (code >= 400 && code !== 408) {
      const codes = codesOf(response);
      responses[status] = problemResponse(`${STATUS_TEXT[status] ?? 'Error'}: ${codes.join(' or ')}`, codes);
    }
    if (responses[status]!.description === 'Default Response') responses[status]!.description = STATUS_TEXT[status] ?? 'Success';
    if (code === 304) {
      responses[status] = { description: 'Not Modified: If-None-Match names the current ETag.', headers: { ETag: ref('headers', 'ETag') } };
    }
    const headers = (responses[status]!.headers ??= {}) as Json;
    headers['X-Request-Id'] = ref('headers', 'XRequestId');
    if (code === 200 && conditional) headers.ETag = ref('headers', 'ETag');
    if (code === 201 && facts?.idempotent) headers['Idempotent-Replayed'] = ref('headers', 'IdempotentReplayed');
    if (code === 401 || code === 403) headers['WWW-Authenticate'] = ref('headers', 'WWWAuthenticate');
    if (code === 409 && facts?.idempotent) headers['Retry-After'] = ref('headers', 'RetryAfter');
    if (code === 429 || code === 503) headers['Retry-After'] = ref('headers', 'RetryAfter');
    if (!isPublic && code !== 408) {
      headers['RateLimit-Limit'] = ref('headers', 'RateLimitLimit');
      headers['RateLimit-Remaining'] = ref('headers', 'RateLimitRemaining');
      headers['RateLimit-Reset'] = ref('headers', 'RateLimitReset');
    }
  }
}

/** The finished document: named schemas, problem+json errors, headers and security from the access table. */
export function completeDocument(document: Json, routeFacts: ReadonlyMap<string, RouteFacts>): Json {
  const paths = document.paths as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const url = path.replace(/\{([^}]+)\}/g, ':$1');
      completeOperation(method.toUpperCase(), path, operation, routeFacts.get(`${method.toUpperCase()} ${url}`));
    }
  }
  const schemas: Record<string, Json> = {};
  const hoisted = hoistNamedSchemas(paths, schemas) as Json;
  schemas.Problem = PROBLEM_COMPONENT;
  const components = (document.components ?? {}) as Json;
  const securitySchemes = Object.fromEntries(
    Object.values(SECURITY_SCHEMES).map(({ scheme, description }) => [scheme, { type: 'http', scheme: 'bearer', description }]),
  );
  return {
    ...document,
    paths: hoisted,
    components: {
      ...components,
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      parameters: COMPONENT_PARAMETERS,
      headers: COMPONENT_HEADERS,
      securitySchemes,
    },
  };
}

const PROBLEM_COMPONENT: Json = {
  title: 'Problem',
  description: 'RFC 9457 problem details; `code` is stable, `detail` is for a human.',
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code', 'instance'],
  properties: {
    type: { type: 'string', description: 'URI naming the kind of problem', examples: ['urn:storefront:problem:not-found'] },
    title: { type: 'string', examples: ['Not found'] },
    status: { type: 'integer', examples: [404] },
    detail: { type: 'string', description: 'what went wrong, for a human' },
    code: { type: 'string', description: 'stable SCREAMING_SNAKE code', examples: ['NOT_FOUND'] },
    instance: { type: 'string', description: 'urn:request:<X-Request-Id>' },
    errors: {
      type: 'array',
      description: 'field problems `{field, message}`, or per product `{productId, code, requested, available}`',
      items: { type: 'object', additionalProperties: true },
    },
    reason: {
      type: 'string',
      description: 'DISCOUNT_NOT_APPLICABLE only: why the code does not apply',
      enum: ['unknown', 'inactive', 'not_started', 'expired', 'used_up', 'min_subtotal', 'no_eligible_products', 'already_used'],
    },
  },
};

/**
 * The document as the docs page (/api/docs) shows it: one bearer scheme instead of one per kind
 * of token (so that a token pasted in the wrong box was never sent: 401), so its Authorize dialog has a single box and whatever token a reader has (admin,
 * server, storefront, customer or root) is sent to every operation; the token itself decides
 * what it may call, and each operation's description still names the kinds. The typed client and
 * /api/openapi.json keep the precise schemes.
 */
export function docsPageDocument(document: Json): Json {
  const paths = document.paths as Record<string, Record<string, Json>>;
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const security = operation.security as unknown[] | undefined;
      if (!security || security.length === 0) continue;
      const kinds = security.flatMap((requirement) => Object.keys(requirement as Json)).map((scheme) => KIND_OF_SCHEME.get(scheme) ?? scheme);
      operation.description = `${String(operation.description ?? '')}\n\nTokens: ${kinds.join(', ')}.`.trim();
      operation.security = [{ [DOCS_PAGE_SCHEME]: [] }];
    }
  }
  const components = document.components as Json;
  components.securitySchemes = {
    [DOCS_PAGE_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      description:
        'Any token you have: a store\'s admin (`adm_…`), server (`srv_…`) or storefront (`sf_…`) token, a customer token (`cus_…`), or the root token. ' +
        '`npm start` keeps the demo store\'s in `data/demo-store.env`. An operation the token may not call answers 403.',
    },
  };
  return document;
}

export const DOCS_PAGE_SCHEME = 'token';
const KIND_OF_SCHEME = new Map(Object.entries(SECURITY_SCHEMES).map(([caller, { scheme }]) => [scheme, caller]));
