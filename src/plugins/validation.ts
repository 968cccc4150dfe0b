/**
 * Input validation. Bodies are validated strictly (no type coercion: "5" is not a number, unknown
 * fields are refused); path and query values arrive as strings, so those are coerced. Text with a
 * NUL character is refused everywhere: PostgreSQL cannot store it.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError } from './errors.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ES modules.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 64 || value === null || typeof value !== 'object') return false;
  for (const [key, inner] of Object.entries(value)) {
    if (key.includes('\u0000') || containsNul(inner, depth + 1)) return true;
  }
  return false;
}

export default fp(
  async (app: FastifyInstance) => {
    const bodyAjv = makeAjv({ coerceTypes: false });
    const urlAjv = makeAjv({ coerceTypes: 'array' });
    // JSON is the only body this API takes: anything else is 415, including Fastify's default text/plain.
    app.removeContentTypeParser('text/plain');
    // An empty JSON body on a route without one (a DELETE from a client that always sends the header,
    // or a POST that takes no body, such as a cart's hold) is no body.
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      if (body === '' && (request.method === 'DELETE' || request.method === 'GET' || request.routeOptions.schema?.body === undefined)) return done(null, undefined);
      parseJson(request, body as string, done);
    });
    app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : urlAjv).compile(schema));
    app.addHook('preValidation', async (request) => {
      if (containsNul(request.params) || containsNul(request.query) || containsNul(request.body)) {
        throw new AppError('VALIDATION_FAILED', 'text must not contain NUL characters');
      }
    });
  },
  { name: 'validation' },
);
