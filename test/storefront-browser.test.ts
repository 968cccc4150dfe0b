/**
 * The example storefront (examples/storefront) in headless Chromium, as a shopper uses it: the grid
 * with collections, a sold-out product, a product page, the cart, guest checkout with an address,
 * the confirmation and the order history; the stock shown drops by what was bought. Screenshots
 * go to test-results/. Skipped with a message where /usr/bin/chromium is missing (.ci/run installs it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { ROOT } from './support/database.js';
import { freePort } from './support/server-process.js';
import { startStorefront } from '../examples/storefront/serve.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(ROOT, 'test-results');

async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `storefront-${name}.png`), fullPage: true });
}

const stockOf = async (page: Page, slug: string) => Number(await page.locator(`[data-product="${slug}"] [data-stock]`).getAttribute('data-stock'));

test('a shopper buys a product as a guest, and the stock shown drops', { skip: !existsSync(CHROMIUM) && `${CHROMIUM} is missing (apt-get install chromium)`, timeout: 180_000 }, async () => {
  const storefront = await startStorefront({ apiPort: await freePort(), webPort: await freePort() });
  const profile = mkdtempSync(join(tmpdir(), 'storefront-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1100, height: 800 },
  });
  try {
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(storefront.url);
    await page.locator('[data-product="linen-shirt"]').waitFor({ timeout: 30_000 });
    assert.equal(await stockOf(page, 'linen-shirt'), 5);
    assert.equal(await page.locator('[data-product="flannel-shirt"] .soldout').innerText(), 'Sold out');
    await shot(page, '1-grid');

    await page.getByRole('button', { name: 'Accessories' }).click();
    await page.locator('button[data-collection="accessories"][aria-pressed="true"]').waitFor();
    await page.locator('[data-product="canvas-tote"]').waitFor();
    assert.equal(await page.locator('[data-product="linen-shirt"]').count(), 0);
    await page.getByRole('button', { name: 'All' }).click();
    await page.locator('button[data-collection=""][aria-pressed="true"]').waitFor();

    await page.locator('[data-product="flannel-shirt"] a').click();
    assert.ok(await page.locator('#add').isDisabled(), 'a sold-out product cannot be added');

    await page.goto(`${storefront.url}/#/p/linen-shirt`);
    await page.locator('#quantity').fill('9');
    await page.locator('#add').click();
    await page.locator('#message:not([hidden])').waitFor();
    assert.equal(await page.locator('#message').innerText(), 'Only 5 left of Linen shirt.');
    await shot(page, '2-not-enough-stock');

    await page.locator('#quantity').fill('2');
    await page.locator('#add').click();
    await page.locator('#message.ok').waitFor();
    assert.equal(await page.locator('#cart-count').innerText(), '2');
    await shot(page, '3-product');

    await page.goto(`${storefront.url}/#/cart`);
    await page.locator('#total').waitFor();
    assert.equal(await page.locator('#total').innerText(), '$99.80');
    await shot(page, '4-cart');
    await page.locator('#checkout').click();

    const form = page.locator('#address');
    for (const [name, value] of Object.entries({ street: 'Rua Augusta', number: '1508', city: 'São Paulo', state: 'SP', zipcode: '01001-000', country: 'BR' })) {
      await form.locator(`input[name=${name}]`).fill(value);
    }
    await shot(page, '5-checkout');
    await form.getByRole('button', { name: 'Place order' }).click();
    await page.locator('#confirmation').waitFor({ timeout: 30_000 });
    assert.match(await page.locator('#confirmation').innerText(), /is placed \(CREATED\)/);
    await shot(page, '6-confirmation');

    await page.getByRole('link', { name: 'All my orders' }).click();
    await page.locator('#orders').waitFor();
    assert.match(await page.locator('#orders').innerText(), /2 × Linen shirt/);
    await shot(page, '7-order-history');

    await page.getByRole('link', { name: 'Shop', exact: true }).click();
    await page.locator('[data-product="linen-shirt"]').waitFor();
    assert.equal(await stockOf(page, 'linen-shirt'), 3, 'the stock shown dropped by the 2 bought');
    assert.equal(await page.locator('#cart-count').innerText(), '0');
    await shot(page, '8-grid-after');
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
    await storefront.stop();
  }
});
