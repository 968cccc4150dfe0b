/**
 * Checks HTTP answers against the OpenAPI document, as a validating proxy would: the status is
 * declared for the operation, the content type is the declared one, the body matches its schema
 * (ajv, with the document's components), an empty body where none is declared, and every header
 * the service is known to send is declared for that status with a value its schema allows.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

type Json = Record<string, any>;

export interface Exchange {
  method: string;
  /** The request path, query string allowed. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

/** Headers the service sends that a client may rely on: each must be declared where it appears. */
const WATCHED_HEADERS = ['x-request-id', 'etag', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'idempotent-replayed', 'www-authenticate'];

interface Route {
  method: string;
  path: string;
  pattern: RegExp;
  params: number;
  operation: Json;
}

export class OpenApiValidator {
  private readonly ajv: Ajv;
  private readonly routes: Route[] = [];
  private readonly compiled = new Map<unknown, ValidateFunction>();

  constructor(private readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ $id: 'openapi', components: rewriteRefs(document.components) });
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
        this.routes.push({ method: method.toUpperCase(), path, pattern: new RegExp(`^${source}$`), params: (path.match(/\{/g) ?? []).length, operation });
      }
    }
    // Static segments win over parameters, as in Fastify's router.
    this.routes.sort((a, b) => a.params - b.params);
  }

  /** The operation an exchange went to, or undefined (a route the document does not list). */
  operationOf(method: string, url: string): Route | undefined {
    const path = url.split('?')[0] ?? '';
    return this.routes.find((route) => route.method === (method === 'HEAD' ? 'GET' : method) && route.pattern.test(path));
  }

  /** The violations of one exchange; an empty list when it matches the document. */
  check(exchange: Exchange): string[] {
    const route = this.operationOf(exchange.method, exchange.url);
    if (!route) return [];
    const where = `${exchange.method} ${exchange.url.split('?')[0]} -> ${exchange.status}`;
    const response = (route.operation.responses as Json)[String(exchange.status)] ?? (route.operation.responses as Json).default;
    if (!response) return [`${where}: status ${exchange.status} is not declared for ${route.operation.operationId}`];
    const resolved = response.$ref ? this.resolve(response.$ref) : response;
    const violations: string[] = [];
    const contentType = String(exchange.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    const content = resolved.content as Record<string, { schema: Json }> | undefined;
    if (!content) {
      if (exchange.text !== '' && exchange.method !== 'HEAD') violations.push(`${where}: a body where none is declared`);
    } else if (exchange.method !== 'HEAD') {
      const media = content[contentType];
      if (!media) violations.push(`${where}: content type ${contentType || '(none)'} is not declared (${Object.keys(content).join(', ')})`);
      else {
        const validate = this.compile(media.schema);
        let body: unknown;
        try {
          body = JSON.parse(exchange.text);
        } catch {
          violations.push(`${where}: the body is not JSON`);
        }
        if (body !== undefined && !validate(body)) {
          violations.push(`${where}: body ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`);
        }
      }
    }
    const declared = Object.fromEntries(Object.entries((resolved.headers ?? {}) as Json).map(([name, h]) => [name.toLowerCase(), h.$ref ? this.resolve(h.$ref) : h]));
    for (const name of WATCHED_HEADERS) {
      const value = exchange.headers[name];
      if (value === undefined) continue;
      const header = declared[name];
      if (!header) {
        violations.push(`${where}: header ${name} is sent but not declared`);
        continue;
      }
      const schema = header.schema as Json;
      const typed = schema.type === 'integer' ? Number(value) : String(value);
      const validate = this.compile(schema);
      if (!validate(typed)) violations.push(`${where}: header ${name}: ${String(value)} ${this.ajv.errorsText(validate.errors)}`);
    }
    return violations;
  }

  private resolve(ref: string): Json {
    return ref
      .slice(2)
      .split('/')
      .reduce<Json>((node, key) => node[key.replaceAll('~1', '/').replaceAll('~0', '~')], this.document);
  }

  private compile(schema: Json): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) {
      validate = this.ajv.compile(rewriteRefs(schema) as Json);
      this.compiled.set(schema, validate);
    }
    return validate;
  }
}

/** Local `#/components/...` references point into the schema registered as `openapi`. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `openapi${value}` : rewriteRefs(value)]),
  );
}
