/**
 * Input validation. Bodies are validated strictly (no type coercion: "5" is not a number, unknown
 * fields are refused); path and query values arrive as strings, so those are coerced. Text with a
 * NUL character, or that is not well-formed Unicode (a lone UTF-16 surrogate, which JSON's `\ud800`
 * escapes can make), is refused everywhere: PostgreSQL cannot store either.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Ajv, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AppError } from './errors.js';
import { hook } from '../lib/hooks.js';

// ajv-formats is CommonJS; its default export arrives wrapped under ES modules.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

// With the u flag a surrogate pair is one code point: only a surrogate on its own matches.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why a text cannot be stored, or undefined. */
function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'text must not contain NUL characters';
  if (LONE_SURROGATE.test(text)) return 'text must be well-formed Unicode (a lone UTF-16 surrogate is not)';
  return undefined;
}

function badText(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'string') return textProblem(value);
  // A raw body (a webhook's, kept as bytes for its signature) is the route's to read: walking it
  // here would visit every byte as an entry.
  if (depth > 64 || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const problem = textProblem(key) ?? badText(inner, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * A body validator with the API's own rules (for work outside HTTP, such as the CLI): what it
 * answers as problems is what the route would refuse with 400.
 */
export function bodyValidator(schema: object): (body: unknown) => Array<{ field: string; message: string }> {
  const check = makeAjv({ coerceTypes: false }).compile(schema);
  return (body) => {
    const problem = badText(body);
    if (problem) return [{ field: 'body', message: problem }];
    return check(body) ? [] : (check.errors ?? []).map((e) => ({ field: `body${e.instancePath}`, message: e.message ?? 'is not valid' }));
  };
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
    app.addHook('preValidation', hook((request) => {
      const problem = badText(request.params) ?? badText(request.query) ?? badText(request.body);
      if (problem) throw new AppError('VALIDATION_FAILED', problem);
    }));
  },
  { name: 'validation' },
);
