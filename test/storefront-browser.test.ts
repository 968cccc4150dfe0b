/**
 * The example storefront (examples/storefront) in headless Chromium, as a shopper uses it. First on
 * its own throwaway service (the demo store): the grid with collections, a sold-out product, a
 * product page, the cart with unit prices, guest checkout, a confirmation in words, the order
 * history, then the demo sign-in, whose orders come back from the API after the browser forgot
 * everything. Then against a service it did not start. Screenshots go to test-results/. Skipped
 * with a message where /usr/bin/chromium is missing (.ci/run installs it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp } from './support/app.js';
import { ROOT } from './support/database.js';
import { addToCollection, createCollection, createProduct, createStore } from './support/factories.js';
import { freePort } from './support/server-process.js';
import { startStorefront } from '../examples/storefront/serve.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(ROOT, 'test-results');
const skip = !existsSync(CHROMIUM) && `${CHROMIUM} is missing (apt-get install chromium)`;

async function shot(page: Page, name: string, { fullPage = true } = {}) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `storefront-${name}.png`), fullPage });
}

async function withBrowser(run: (page: Page) => Promise<void>) {
  const profile = mkdtempSync(join(tmpdir(), 'storefront-chromium-'));
  let browser: BrowserContext | undefined;
  try {
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1100, height: 800 },
    });
    await run(browser.pages()[0] ?? (await browser.newPage()));
  } finally {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const stockOf = async (page: Page, slug: string) => Number(await page.locator(`[data-product="${slug}"] [data-stock]`).getAttribute('data-stock'));

async function fillAddress(page: Page) {
  const form = page.locator('#address');
  for (const [name, value] of Object.entries({ street: 'Rua Augusta', number: '1508', city: 'São Paulo', state: 'SP', zipcode: '01001-000', country: 'BR' })) {
    await form.locator(`input[name=${name}]`).fill(value);
  }
}

async function buy(page: Page, base: string, slug: string, quantity: number) {
  await page.goto(`${base}/#/p/${slug}`);
  await page.locator('#quantity').fill(String(quantity));
  await page.locator('#add').click();
  await page.locator('#message.ok').waitFor();
  await page.goto(`${base}/#/cart`);
  await page.locator('#checkout').click();
  await page.locator('#address').waitFor();
  await fillAddress(page);
  await page.locator('#address').getByRole('button', { name: 'Place order' }).click();
  await page.locator('#confirmation').waitFor({ timeout: 30_000 });
}

async function signIn(page: Page, base: string, email: string) {
  await page.goto(`${base}/#/account`);
  await page.locator('#sign-in input[name=email]').fill(email);
  await page.locator('#sign-in').getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#message.ok').waitFor();
}

test('a shopper buys as a guest, then signs in and finds their orders from the API', { skip, timeout: 240_000 }, async () => {
  const storefront = await startStorefront({ apiPort: await freePort(), webPort: await freePort() });
  try {
    await withBrowser(async (page) => {
      const base = storefront.url;
      await page.goto(base);
      await page.locator('[data-product="oxford-shirt"]').waitFor({ timeout: 30_000 });
      assert.equal(await stockOf(page, 'oxford-shirt'), 5);
      assert.equal(await page.locator('[data-product="chambray-shirt"] .soldout').innerText(), 'Sold out');
      // Its picture, or a neutral placeholder while the demo store's products have none.
      assert.equal(await page.locator('[data-product="oxford-shirt"] .image').count(), 1, 'every card shows an image or a placeholder');
      await shot(page, '1-grid', { fullPage: false });

      await page.getByRole('button', { name: 'Accessories' }).click();
      await page.locator('button[data-collection="accessories"][aria-pressed="true"]').waitFor();
      await page.locator('[data-product="canvas-tote"]').waitFor();
      assert.equal(await page.locator('[data-product="oxford-shirt"]').count(), 0);
      await page.getByRole('button', { name: 'All' }).click();
      await page.locator('button[data-collection=""][aria-pressed="true"]').waitFor();

      await page.locator('[data-product="chambray-shirt"]').click();
      await page.locator('#add').waitFor();
      assert.ok(await page.locator('#add').isDisabled(), 'a sold-out product cannot be added');

      await page.goto(`${base}/#/p/oxford-shirt`);
      await page.locator('#quantity').fill('9');
      await page.locator('#add').click();
      await page.locator('#message:not([hidden])').waitFor();
      assert.equal(await page.locator('#message').innerText(), 'Only 5 left of Oxford shirt.');
      await page.locator('#quantity').fill('2');
      await page.locator('#add').click();
      await page.locator('#message.ok').waitFor();
      assert.equal(await page.locator('#cart-count').innerText(), '2');
      await shot(page, '2-product');

      await page.goto(`${base}/#/cart`);
      await page.locator('#total').waitFor();
      const line = page.locator('table.lines tbody tr').first();
      assert.match(await line.innerText(), /Oxford shirt\s+\$54.90\s+.*\$109.80/s, 'the line shows its unit price and its total');
      assert.equal(await page.locator('#total').innerText(), '$109.80');
      await shot(page, '3-cart');
      await page.locator('#checkout').click();
      await page.locator('#address').waitFor();
      assert.match(await page.locator('main').innerText(), /You check out as a guest/);
      await fillAddress(page);
      await shot(page, '4-checkout');
      await page.locator('#address').getByRole('button', { name: 'Place order' }).click();
      await page.locator('#confirmation').waitFor({ timeout: 30_000 });
      assert.match(await page.locator('#order-number').innerText(), /^#[0-9A-F]{8}$/);
      assert.equal(await page.locator('#order-status').innerText(), 'Received: we are preparing it');
      assert.equal(await page.locator('#order-total').innerText(), '$109.80');
      assert.match(await page.locator('#confirmation table').innerText(), /Oxford shirt\s+\$54.90\s+2\s+\$109.80/);
      assert.doesNotMatch(await page.locator('#confirmation').innerText(), /CREATED|[0-9a-f]{8}-[0-9a-f]{4}-/, 'no raw status or UUID');
      await shot(page, '5-confirmation');

      await page.getByRole('link', { name: 'All my orders' }).click();
      await page.locator('#orders').waitFor();
      assert.match(await page.locator('#orders').innerText(), /2 × Oxford shirt/);

      // The demo sign-in: a customer of its own, whose orders live in the API, not in this browser.
      await signIn(page, base, 'ada@example.com');
      await page.locator('main').getByText('No orders yet.').waitFor();
      await shot(page, '6-signed-in');
      await buy(page, base, 'canvas-tote', 1);
      assert.match(await page.locator('#confirmation table').innerText(), /Canvas tote/);
      await page.evaluate(() => localStorage.clear());
      await signIn(page, base, 'ada@example.com');
      await page.locator('#orders').waitFor();
      const history = await page.locator('#orders').innerText();
      assert.match(history, /1 × Canvas tote/);
      assert.doesNotMatch(history, /Oxford shirt/, "the guest's order is not this customer's");
      await shot(page, '7-order-history');

      await page.getByRole('link', { name: 'Shop', exact: true }).click();
      await page.locator('[data-product="oxford-shirt"]').waitFor();
      assert.equal(await stockOf(page, 'oxford-shirt'), 3, 'the stock shown dropped by the 2 bought');
      assert.equal(await page.locator('#cart-count').innerText(), '0');
    });
  } finally {
    await storefront.stop();
  }
});

test('against a running service it did not start: that store, its sign-in and its orders', { skip, timeout: 180_000 }, async () => {
  const t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const s = await createStore(t);
  const mugs = await createCollection(t, s, { slug: 'mugs', name: 'Mugs' });
  const mug = await createProduct(t, s, { slug: 'blue-mug', name: 'Blue mug', price: 1500, quantity: 4 });
  await addToCollection(t, s, mugs.id, mug.id);
  const storefront = await startStorefront({
    webPort: await freePort(),
    apiUrl: `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/api`,
    storefrontToken: s.storefront,
    serverToken: s.server,
    storeName: 'Mug shop',
  });
  try {
    assert.equal(storefront.adminToken, undefined, 'no service of its own');
    await withBrowser(async (page) => {
      await page.goto(storefront.url);
      await page.locator('[data-product="blue-mug"]').waitFor({ timeout: 30_000 });
      assert.equal(await page.locator('.brand').innerText(), 'Mug shop');
      assert.equal(await page.locator('[data-product]').count(), 1, "only this store's products");
      assert.equal(await page.locator('[data-product="blue-mug"] .placeholder').count(), 1, 'a product without images gets a neutral placeholder');
      await signIn(page, storefront.url, 'grace@example.com');
      await buy(page, storefront.url, 'blue-mug', 3);
      assert.equal(await page.locator('#order-total').innerText(), '$45.00');
      await page.goto(`${storefront.url}/#/orders`);
      await page.locator('#orders').waitFor();
      assert.match(await page.locator('#orders').innerText(), /3 × Blue mug/);
    });
    const after = await t.request('GET', '/api/v1/products/blue-mug', { token: s.storefront });
    assert.equal(after.json.product.quantity, 1, 'the order reached that service');
  } finally {
    await storefront.stop();
  }
});
