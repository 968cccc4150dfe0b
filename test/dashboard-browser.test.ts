/**
 * The dashboard (/admin) in headless Chromium, as a merchant uses it: sign in, create a product in
 * two sizes with an uploaded photo, find it through the storefront API, find an order by its id and
 * change its status, invite a colleague; at 1280 and 390 px wide. Screenshots of the main screens
 * go to docs/dashboard/ (committed, shown in the README). Skipped where /usr/bin/chromium is missing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp } from './support/app.js';
import { ROOT } from './support/database.js';
import { createProduct, createStore } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';
import { STAFF_PASSWORD, staffMember } from './support/staff.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(ROOT, 'docs', 'dashboard');
const skip = (!existsSync(CHROMIUM) && `${CHROMIUM} is missing (apt-get install chromium)`) || (!existsSync(join(ROOT, 'dashboard', 'dist', 'index.html')) && 'the dashboard is not built (npm install)');

async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

const t = skip ? undefined! : await startTestApp({});

describe('the dashboard in Chromium', { skip }, () => {
  let base = '';
  let browser: BrowserContext;
  let profile = '';
  before(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    profile = mkdtempSync(join(tmpdir(), 'dashboard-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-component-update', '--disable-sync'],
      viewport: { width: 1280, height: 800 },
    });
  }, { timeout: 120_000 });
  after(async () => {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  test('sign in, create a product in two sizes with a photo, find it in the storefront, find an order, invite a colleague', { timeout: 240_000 }, async () => {
    const s = await createStore(t);
    const owner = await staffMember(t, s, 'owner', 'owner@shop.example');
    await createProduct(t, s, { name: 'Canvas tote', slug: 'canvas-tote', price: 2500 });
    const page = browser.pages()[0] ?? (await browser.newPage());
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(String(error)));

    await page.goto(`${base}/admin`);
    await page.locator('input[name=store]').fill(s.slug);
    await page.locator('input[name=email]').fill(owner.email);
    await page.locator('input[name=password]').fill('not the password');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'wrong' }).waitFor();
    await page.locator('input[name=password]').fill(STAFF_PASSWORD);
    await shot(page, 'sign-in');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    await page.locator('tr.link', { hasText: 'Canvas tote' }).waitFor();
    await shot(page, 'products');

    // A new product in two sizes, with a photo uploaded through the file picker of the drop zone.
    await page.getByRole('button', { name: 'New product' }).click();
    await page.locator('input[name=name]').fill('Linen shirt');
    await page.locator('input[name=sku]').fill('LIN');
    await page.locator('input[name=price]').fill('49.90');
    await page.locator('select[name=status]').selectOption('ACTIVE');
    const photo = await sharp({ create: { width: 900, height: 1200, channels: 3, background: { r: 120, g: 150, b: 200 } } }).jpeg().toBuffer();
    await page.locator('input[name=photos]').setInputFiles({ name: 'shirt.jpg', mimeType: 'image/jpeg', buffer: photo });
    await page.locator('.thumbs img').waitFor();
    // A second photo dropped on the drop zone, as a merchant drags it from their files.
    const back = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 20, g: 20, b: 20 } } }).png().toBuffer();
    const dropped = await page.evaluateHandle((bytes) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([new Uint8Array(bytes)], 'back.png', { type: 'image/png' }));
      return transfer;
    }, [...back]);
    await page.locator('.drop').dispatchEvent('drop', { dataTransfer: dropped });
    await page.locator('.thumbs img').nth(1).waitFor();
    for (const [i, size] of ['S', 'M'].entries()) {
      await page.getByRole('button', { name: 'Add variant' }).click();
      await page.locator(`input[name=variant-${i}-value]`).fill(size);
      await page.locator(`input[name=variant-${i}-quantity]`).fill(String(3 + i));
    }
    await shot(page, 'product-editor');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: 'Products' }).waitFor();

    const group = await t.request('GET', '/api/v1/product-groups/linen-shirt', { token: s.storefront });
    assert.equal(group.status, 200, group.text);
    assert.deepEqual(group.json.group.options, [{ name: 'Size', values: ['S', 'M'] }]);
    assert.equal(group.json.group.products[0].images.length, 2, 'the picked and the dropped photo');
    const image = group.json.group.products[0].images[0].url as string;
    assert.match(image, new RegExp(`^/api/images/${s.slug}/`));
    assert.equal((await t.app.inject({ method: 'GET', url: image })).statusCode, 200, 'the uploaded photo is served');

    // A refusal shown beside its field: a second product with a slug already taken.
    await page.getByRole('button', { name: 'New product' }).click();
    await page.locator('input[name=name]').fill('Tote again');
    await page.locator('input[name=slug]').fill('canvas-tote');
    await page.locator('input[name=sku]').fill('T2');
    await page.locator('input[name=price]').fill('not a price');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.error, .field-error').first().waitFor();

    // An order, found by its id (orders have no number in this API yet).
    const { customer, address } = await createAddress(t, s);
    const order = await placeOrder(t, s, customer, { address: address.id, products: [{ id: group.json.group.products[0].id, quantity: 1 }] });
    assert.equal(order.status, 201, order.text);
    await page.goto(`${base}/admin/#/orders`);
    await page.locator('input[name=find]').fill(order.json.order.id);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.getByText('Linen shirt').first().waitFor();
    await shot(page, 'order');
    await page.locator('select[name=status]').selectOption('PAID');
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByRole('status').filter({ hasText: 'Status changed to PAID' }).waitFor();
    assert.equal((await t.request('GET', `/api/v1/admin/orders/${order.json.order.id}`, { token: s.admin })).json.order.status, 'PAID');

    // Staff (owner only): an invitation with its link.
    await page.goto(`${base}/admin/#/staff`);
    await page.locator('input[name=email]').fill('colleague@shop.example');
    await page.getByRole('button', { name: 'Invite' }).click();
    await page.getByText('Hand this link over').waitFor();
    await shot(page, 'staff');

    // Narrow: the same screens at 390 px.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/admin/#/products`);
    await page.locator('tr.link').first().waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen`);
    await shot(page, 'products-390');
    assert.deepEqual(failures, []);
  });
});
