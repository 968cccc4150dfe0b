/** Schema pieces shared by every module: ids, timestamps, pagination and the problem body. */
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { ERROR_STATUS, type ErrorCode } from './app-error.js';

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const Uuid = (description = 'UUID') =>
  Type.String({ pattern: UUID_PATTERN, description, examples: ['0b6f3f0e-8a5c-4b9e-9a55-6a4c1f2d3e4f'] });

export const Timestamp = (description = 'ISO 8601 UTC timestamp with milliseconds') =>
  Type.String({ format: 'date-time', description, examples: ['2026-11-23T10:15:30.123Z'] });

/** A value or null, as a JSON Schema type array (fast to serialize, plain in OpenAPI 3.1). */
export function Nullable<T extends 'string' | 'integer' | 'number'>(
  type: T,
  options: Record<string, unknown> = {},
): TUnsafe<(T extends 'string' ? string : number) | null> {
  return Type.Unsafe<(T extends 'string' ? string : number) | null>({ ...options, type: [type, 'null'] });
}

export const NullableTimestamp = (description = 'ISO 8601 UTC timestamp with milliseconds, or null while unset') =>
  Nullable('string', { format: 'date-time', description });

/** One of fixed strings, as a plain JSON Schema `enum` (clearer in the docs than a union of literals). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ ...options, type: 'string', enum: [...values] });
}

/** `:customer` is a UUID chosen by the client; anything else is 400. */
export const CustomerParams = Type.Object({ customer: Uuid('customer id, chosen by the client') });

/** Slugs of stores, products and collections. */
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]{0,198}[a-z0-9])?$';
export const Slug = (description = 'lower-case letters, digits and hyphens') =>
  Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 200, description, examples: ['linen-shirt'] });

export const Limit = Type.Integer({ minimum: 1, maximum: 250, default: 50, description: 'page size (1..250)' });
export const Offset = Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0, description: 'rows to skip' });

const problemProperties = {
  type: Type.String({ description: 'URI naming the kind of problem' }),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String({ description: 'what went wrong, for a human' }),
  code: Type.String({ description: 'stable SCREAMING_SNAKE code', examples: ['VALIDATION_FAILED'] }),
  instance: Type.String({ description: 'urn:request:<X-Request-Id>' }),
  errors: Type.Optional(
    Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: 'field problems `{field, message}`, or per product `{productId, requested, available}`',
    }),
  ),
  reason: Type.Optional(
    Type.String({
      description: 'DISCOUNT_NOT_APPLICABLE only: unknown, inactive, not_started, expired, used_up, min_subtotal, no_eligible_products or already_used',
      examples: ['used_up'],
    }),
  ),
};

/**
 * Error responses of a route (their serializer, and for the OpenAPI document the codes each status
 * can carry). Every route can also answer 400, 401/403 (unless public), 429 and 503, added to the
 * document centrally (src/plugins/openapi-document.ts); callers list their own codes here.
 */
export function errorResponses(codes: ErrorCode[], { isPublic = false } = {}): Record<number, TSchema> {
  const all: ErrorCode[] = ['VALIDATION_FAILED', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE', ...codes];
  if (!isPublic) all.push('UNAUTHORIZED', 'FORBIDDEN');
  const byStatus: Record<number, ErrorCode[]> = {};
  for (const code of all) (byStatus[ERROR_STATUS[code]] ??= []).push(code);
  return Object.fromEntries(
    Object.entries(byStatus).map(([status, statusCodes]) => {
      const unique = [...new Set(statusCodes)];
      return [
        status,
        Type.Object(
          { ...problemProperties, code: Type.String({ enum: unique, description: 'stable SCREAMING_SNAKE code' }) },
          { description: `application/problem+json; code ${unique.join(' or ')}` },
        ),
      ];
    }),
  );
}

/**
 * Names a schema: the OpenAPI document lists it under components.schemas by this title and refers
 * to it wherever it is used (the title is an annotation: validation and serialization ignore it).
 */
export function named<T extends TSchema>(title: string, schema: T): T {
  return { ...schema, title };
}
