/**
 * The OpenAPI document is complete: what generated clients and linters need, all derived from the
 * route schemas and the access table. When a new route lacks an operationId or tags, this fails.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from './support/app.js';
import { accessOf } from '../src/plugins/access-table.js';
import { SECURITY_SCHEMES } from '../src/plugins/openapi-document.js';

const t = await startTestApp();
const document = (await t.request('GET', '/api/openapi.json')).json;
type Operation = { operationId?: string; tags?: string[]; security?: Array<Record<string, string[]>>; parameters?: Array<{ $ref?: string }>; responses: Record<string, any>; requestBody?: any };
const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
);

test('every operation has a unique operationId and declared tags', () => {
  const declaredTags = new Set((document.tags as Array<{ name: string }>).map((tag) => tag.name));
  for (const { method, path, operation } of operations) {
    assert.match(operation.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${path} needs an operationId (a verb: listProducts, adminGetOrder, ...)`);
    assert.ok((operation.tags ?? []).length > 0, `${method} ${path} needs tags`);
    for (const tag of operation.tags ?? []) assert.ok(declaredTags.has(tag), `${method} ${path}: tag ${tag} is not declared in openapi.ts`);
  }
  const ids = operations.map((o) => o.operation.operationId);
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
});

test('each operation\'s security is the access table\'s, one scheme per credential kind', () => {
  assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), Object.values(SECURITY_SCHEMES).map((s) => s.scheme).sort());
  for (const { method, path, operation } of operations) {
    const access = accessOf(method, path.replace(/\{([^}]+)\}/g, ':$1'));
    assert.ok(access, `${method} ${path} has an access-table entry`);
    const expected = access === 'public' ? [] : Object.keys(access).map((caller) => ({ [SECURITY_SCHEMES[caller as keyof typeof SECURITY_SCHEMES].scheme]: [] }));
    assert.deepEqual(operation.security, expected, `${method} ${path}`);
  }
  assert.deepEqual(document.paths['/api/health'].get.security, []);
  assert.deepEqual(document.paths['/api/ready'].get.security, []);
});

test('resources and the problem body are named components, referenced by the operations', () => {
  for (const name of ['Product', 'Collection', 'Cart', 'ProductLine', 'Order', 'Address', 'CustomerToken', 'GuestSession', 'Problem']) {
    assert.ok(document.components.schemas[name], `components.schemas.${name}`);
  }
  assert.deepEqual(document.paths['/api/v1/products/{slug}'].get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/ProductEnvelope' });
  assert.deepEqual(document.components.schemas.ProductEnvelope.properties.product, { $ref: '#/components/schemas/Product' });
});

test('errors are problem+json with their codes; 408, 413 and 415 where they apply', () => {
  for (const { method, path, operation } of operations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) < 400 || status === '408') continue;
      const schema = response.content?.['application/problem+json']?.schema;
      assert.equal(schema?.allOf?.[0]?.$ref, '#/components/schemas/Problem', `${method} ${path} ${status}`);
      assert.ok(schema.allOf[1].properties.code.enum.length > 0);
      assert.equal(response.content['application/json'], undefined);
    }
    assert.ok(operation.responses['408'], `${method} ${path} declares 408`);
    if (operation.requestBody) for (const status of ['413', '415']) assert.ok(operation.responses[status], `${method} ${path} declares ${status}`);
  }
  const placeOrder = document.paths['/api/v1/{customer}/orders'].post;
  assert.deepEqual(placeOrder.responses['422'].content['application/problem+json'].schema.allOf[1].properties.code.enum.sort(), ['ADDRESS_NOT_FOUND', 'DISCOUNT_NOT_APPLICABLE', 'IDEMPOTENCY_KEY_REUSED', 'INSUFFICIENT_STOCK', 'PRODUCT_UNAVAILABLE', 'QUANTITY_LIMIT_EXCEEDED', 'SHIPPING_NOT_AVAILABLE', 'SHIPPING_REQUIRED']);
});

test('headers: Idempotency-Key on the idempotent POSTs, If-None-Match, ETag and 304 on the catalog reads', () => {
  const refs = (o: Operation) => (o.parameters ?? []).map((p) => p.$ref);
  const idempotent = operations.filter((o) => refs(o.operation).includes('#/components/parameters/IdempotencyKey')).map((o) => o.operation.operationId).sort();
  assert.deepEqual(idempotent, ['adminCreateRefund', 'adminSaveVariants', 'createAddress', 'createCart', 'placeOrder']);
  assert.equal(document.components.parameters.IdempotencyKey.schema.maxLength, 255);
  for (const path of ['/api/v1/products', '/api/v1/products/{slug}', '/api/v1/collections']) {
    const operation = document.paths[path].get as Operation;
    assert.ok(refs(operation).includes('#/components/parameters/IfNoneMatch'));
    assert.ok(operation.responses['304'].headers.ETag);
    assert.ok(operation.responses['200'].headers.ETag);
  }
  for (const { operation } of operations) assert.ok(refs(operation).includes('#/components/parameters/XRequestId'));
  const createCart = document.paths['/api/v1/carts'].post;
  assert.ok(createCart.responses['201'].headers['Idempotent-Replayed']);
  assert.ok(createCart.responses['429'].headers['Retry-After']);
  assert.ok(createCart.responses['401'].headers['WWW-Authenticate']);
  assert.ok(createCart.responses['200'] === undefined && createCart.responses['201'].headers['RateLimit-Remaining']);
});

test('the order body is oneOf: from a cart or from products', () => {
  const schema = document.paths['/api/v1/{customer}/orders'].post.requestBody.content['application/json'].schema;
  assert.deepEqual(schema, { $ref: '#/components/schemas/CreateOrderBody' });
  const body = document.components.schemas.CreateOrderBody;
  assert.deepEqual(body.oneOf, [{ $ref: '#/components/schemas/OrderFromCart' }, { $ref: '#/components/schemas/OrderFromProducts' }]);
  assert.deepEqual(document.components.schemas.OrderFromCart.required, ['id', 'address']);
  assert.deepEqual(document.components.schemas.OrderFromProducts.required, ['address', 'products']);
});
