/**
 * The docs page in a real browser: headless Chromium (Debian's package) opens /api/docs, finds the
 * operations, authorizes with a storefront token and runs "Try it out" on GET /v1/products.
 * Skipped with a message where /usr/bin/chromium is missing (.ci/run installs it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT_TOKEN } from './support/app.js';
import { copyTemplate, PGLITE_SUITE_ONLY, ROOT } from './support/database.js';
import { call, startServerProcess } from './support/server-process.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

test('the docs page lists the operations and "Try it out" works with a token', { skip: PGLITE_SUITE_ONLY || (!existsSync(CHROMIUM) && `${CHROMIUM} is missing (apt-get install chromium)`), timeout: 120_000 }, async () => {
  const copy = copyTemplate();
  const server = await startServerProcess({ DATA_DIR: copy.dataDir });
  const profile = mkdtempSync(join(tmpdir(), 'storefront-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const created = await call(server.base, 'POST', '/v1/admin/stores', { token: ROOT_TOKEN, body: { slug: `docs-${Date.now().toString(36)}` } });
    const { admin, storefront } = created.json.tokens;
    await call(server.base, 'POST', '/v1/admin/products', { token: admin, body: { name: 'Docs shirt', slug: 'docs-shirt', sku: 'D', price: 100, quantity: 3, status: 'ACTIVE' } });
    const page = await browser.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${server.base}/docs/`);
    await page.getByText('/api/v1/products/{slug}').first().waitFor({ timeout: 30_000 });
    for (const path of ['/api/v1/carts', '/api/v1/{customer}/orders', '/api/v1/admin/products']) {
      assert.ok((await page.getByText(path, { exact: true }).count()) > 0, `${path} is listed`);
    }
    // The page's document has one bearer scheme, sent to every operation that takes a token, the
    // admin's and the root's too; /api/openapi.json keeps one scheme per kind of token.
    const shown = (await (await fetch(`${server.base}/docs/json`)).json()) as { components: { securitySchemes: Record<string, unknown> }; paths: Record<string, Record<string, { security?: unknown[] }>> };
    assert.deepEqual(Object.keys(shown.components.securitySchemes), ['token']);
    assert.deepEqual(shown.paths['/api/v1/admin/products']!.post!.security, [{ token: [] }]);
    assert.deepEqual(shown.paths['/api/v1/admin/stores']!.post!.security, [{ token: [] }]);
    const precise = (await (await fetch(`${server.base}/openapi.json`)).json()) as { components: { securitySchemes: Record<string, unknown> } };
    assert.ok(Object.keys(precise.components.securitySchemes).length > 1);
    // The version is the package's.
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.match(await page.locator('.info .title').first().innerText(), new RegExp(`Storefront API\\s*${version.replace(/\./g, '\\.')}`));
    await page.getByRole('button', { name: /Authorize/ }).first().click();
    // One box, whatever token the reader has: here the storefront token.
    const boxes = page.locator('.modal-ux .auth-container');
    await boxes.first().waitFor();
    assert.equal(await boxes.count(), 1, 'one Authorize box');
    await boxes.locator('input[type=text]').first().fill(storefront);
    await boxes.locator('button.authorize').first().click();
    await page.locator('.modal-ux button.btn-done').first().click();
    const operation = page.locator('#operations-catalog-listProducts');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    assert.equal((await status.innerText()).trim(), '200');
    assert.match(await operation.locator('.live-responses-table .microlight').first().innerText(), /Docs shirt/);
    assert.deepEqual(consoleErrors, [], 'no console error (a content security policy refusal among them)');
    mkdirSync(join(ROOT, 'test-results'), { recursive: true });
    const shot = join(ROOT, 'test-results', 'docs-try-it-out.png');
    await status.scrollIntoViewIfNeeded();
    await page.screenshot({ path: shot, fullPage: false });
    console.log(`# docs screenshot: ${shot}`);
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
    await server.stop();
    copy.remove();
  }
});
