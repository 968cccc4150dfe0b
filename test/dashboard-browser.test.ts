/**
 * The dashboard (/admin) in headless Chromium, as a merchant uses it: sign in, create a product in
 * two sizes with an uploaded photo (one request for both), find it through the storefront API, find
 * an order by its number, mark it paid, fulfil it with tracking and refund part of it, add a shipping
 * option and a tax rate, turn on manual payments, invite a colleague; every refusal of the API shown
 * beside the field it names; at 1280 and 390 px wide. Screenshots of the main screens go to
 * docs/dashboard/ (committed, shown in the README). Skipped where /usr/bin/chromium is missing.
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
import { PGLITE_SUITE_ONLY, ROOT } from './support/database.js';
import { createProduct, createStore } from './support/factories.js';
import { createAddress, placeOrder } from './support/shop.js';
import { STAFF_PASSWORD, staffMember } from './support/staff.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(ROOT, 'docs', 'dashboard');
const skip = PGLITE_SUITE_ONLY || (!existsSync(CHROMIUM) && `${CHROMIUM} is missing (apt-get install chromium)`) || (!existsSync(join(ROOT, 'dashboard', 'dist', 'index.html')) && 'the dashboard is not built (npm install)');

/** The refusal shown beside the field the API named (`body.<name>`). */
const fieldError = (page: Page, name: string) => page.locator(`[id="${name}-error"]`);

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

  test('sign in, create a product in two sizes with a photo, find it in the storefront, find an order by its number, fulfil and refund it, shipping, taxes, payments, invite a colleague', { timeout: 240_000 }, async () => {
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

    // The item's variants edited together: a new price, a size added, one save (all or none).
    await page.goto(`${base}/admin/#/products/${group.json.group.products[0].id}`);
    const variantsForm = page.getByRole('form', { name: 'Variants of the group' });
    await variantsForm.locator('input[name=group-1-price]').waitFor();
    await variantsForm.locator('input[name=group-1-price]').fill('52.00');
    await variantsForm.locator('input[name=group-0-sku]').fill('');
    await variantsForm.getByRole('button', { name: 'Add variant' }).click();
    await variantsForm.locator('input[name=group-2-value]').fill('L');
    await variantsForm.getByRole('button', { name: 'Save variants' }).click();
    await fieldError(page, 'variants.0.sku').filter({ hasText: 'required' }).waitFor();
    assert.equal((await t.request('GET', '/api/v1/product-groups/linen-shirt', { token: s.storefront })).json.group.products.length, 2, 'the refused save wrote nothing');
    await variantsForm.locator('input[name=group-0-sku]').fill('LIN-S');
    await variantsForm.getByRole('button', { name: 'Save variants' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved 3 variants' }).waitFor();
    await shot(page, 'variants');
    const edited = (await t.request('GET', '/api/v1/product-groups/linen-shirt', { token: s.storefront })).json.group;
    assert.deepEqual(edited.products.map((p: { options: { Size: string }; price: number }) => [p.options.Size, p.price]), [['S', 4990], ['M', 5200], ['L', 4990]]);

    // A refusal shown beside its field: a price that is not one.
    await page.goto(`${base}/admin/#/products`);
    await page.getByRole('button', { name: 'New product' }).click();
    await page.locator('input[name=name]').fill('Tote again');
    await page.locator('input[name=slug]').fill('canvas-tote');
    await page.locator('input[name=sku]').fill('T2');
    await page.locator('input[name=price]').fill('not a price');
    await page.getByRole('button', { name: 'Save' }).click();
    await fieldError(page, 'price').waitFor();
    // The slug taken: the API's 409 names no field, so it stands above the form.
    await page.locator('input[name=price]').fill('25.00');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('.error').filter({ hasText: 'canvas-tote' }).waitFor();
    // Variants refused as a whole, each problem beside its row: two variants of one size.
    await page.locator('input[name=slug]').fill('tote-two');
    for (const i of [0, 1]) {
      await page.getByRole('button', { name: 'Add variant' }).click();
      await page.locator(`input[name=variant-${i}-value]`).fill('L');
    }
    await page.getByRole('button', { name: 'Save' }).click();
    await fieldError(page, 'variants.1.options').filter({ hasText: 'variants[0]' }).waitFor();
    assert.equal(await fieldError(page, 'variants.0.options').count(), 0, 'the first of the two is not at fault');
    assert.equal((await t.request('GET', '/api/v1/admin/products?q=tote', { token: s.admin })).json.total, 1, 'nothing of the refused save was written');

    // An order found by its number: marked paid, fulfilled with tracking, refunded in part.
    const { customer, address } = await createAddress(t, s);
    const order = await placeOrder(t, s, customer, { address: address.id, email: 'ana@shop.example', products: [{ id: group.json.group.products[0].id, quantity: 1 }] });
    assert.equal(order.status, 201, order.text);
    const { id: orderId, number } = order.json.order as { id: string; number: number };
    await placeOrder(t, s, customer, { address: address.id, email: 'bo@shop.example', products: [{ id: group.json.group.products[1].id, quantity: 1 }] });
    await page.goto(`${base}/admin/#/orders`);
    await page.locator('tr.link').nth(1).waitFor();
    await page.locator('input[name=find]').fill(String(number));
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: '1–1 of 1' }).waitFor();
    await shot(page, 'orders');
    await page.locator('tr.link', { hasText: `#${number}` }).press('Enter');
    await page.getByRole('heading', { name: `Order #${number}` }).waitFor();
    await page.getByRole('button', { name: 'Mark as paid' }).click();
    await page.getByRole('status').filter({ hasText: 'Marked as paid' }).waitFor();
    const fulfil = page.getByRole('form', { name: 'Fulfil' });
    await fulfil.locator('input[name=carrier]').fill('UPS');
    await fulfil.locator('input[name=trackingNumber]').fill('1Z999AA10123456784');
    await fulfil.locator('input[name=trackingUrl]').fill('not a link');
    await fulfil.getByRole('button', { name: 'Fulfil' }).click();
    await fieldError(page, 'trackingUrl').waitFor();
    await fulfil.locator('input[name=trackingUrl]').fill('https://track.example/1Z999AA10123456784');
    await fulfil.getByRole('button', { name: 'Fulfil' }).click();
    await page.getByRole('status').filter({ hasText: 'with tracking 1Z999AA10123456784' }).waitFor();
    await page.getByRole('link', { name: '1Z999AA10123456784' }).waitFor();
    const refund = page.getByRole('form', { name: 'Refund' });
    await refund.locator('input[name=amount]').fill('0');
    await refund.getByRole('button', { name: 'Refund' }).click();
    await fieldError(page, 'amount').waitFor();
    await refund.locator('input[name=amount]').fill('10');
    await refund.locator('input[name=reason]').fill('Scratched on arrival');
    await refund.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('status').filter({ hasText: 'Refunded 10.00' }).waitFor();
    await shot(page, 'order');
    const done = (await t.request('GET', `/api/v1/admin/orders/${orderId}`, { token: s.admin })).json.order;
    assert.equal(done.status, 'FULFILLED');
    assert.deepEqual(done.fulfillments.map((f: { carrier: string; trackingNumber: string; trackingUrl: string }) => [f.carrier, f.trackingNumber, f.trackingUrl]), [['UPS', '1Z999AA10123456784', 'https://track.example/1Z999AA10123456784']]);
    assert.deepEqual(done.refunds.map((r: { amount: number; reason: string }) => [r.amount, r.reason]), [[1000, 'Scratched on arrival']]);
    assert.equal(done.paymentStatus, 'partially_refunded');

    // Shipping options and tax rates: a refusal beside its field, then one of each.
    await page.goto(`${base}/admin/#/shipping`);
    await page.locator('input[name=name]').fill('Standard');
    await page.locator('input[name=price]').fill('4.90');
    await page.locator('input[name=countries]').fill('DE, Austria');
    await page.getByRole('button', { name: 'Add option' }).click();
    await fieldError(page, 'countries').waitFor();
    await page.locator('input[name=countries]').fill('DE, AT');
    await page.locator('input[name=freeAbove]').fill('50');
    await page.getByRole('button', { name: 'Add option' }).click();
    await page.locator('td', { hasText: 'DE, AT' }).waitFor();
    await page.getByRole('button', { name: 'Edit Standard' }).click();
    await page.locator('input[name=price]').fill('5.50');
    await page.getByRole('button', { name: 'Save option' }).click();
    await page.locator('td', { hasText: '5.50' }).waitFor();
    await shot(page, 'shipping');
    await page.goto(`${base}/admin/#/taxes`);
    await page.locator('input[name=name]').fill('VAT');
    await page.locator('input[name=country]').fill('Germany');
    await page.locator('input[name=rate]').fill('19');
    await page.getByRole('button', { name: 'Add rate' }).click();
    await fieldError(page, 'country').waitFor();
    await page.locator('input[name=country]').fill('DE');
    await page.getByRole('button', { name: 'Add rate' }).click();
    await page.locator('td', { hasText: '19 %' }).waitFor();
    await shot(page, 'taxes');
    const [option] = (await t.request('GET', '/api/v1/admin/shipping-options', { token: s.admin })).json.shippingOptions;
    assert.deepEqual([option.price, option.countries, option.freeAbove], [550, ['DE', 'AT'], 5000]);
    assert.equal((await t.request('GET', '/api/v1/admin/tax-rates', { token: s.admin })).json.taxRates[0].rate, 1900);

    // Payment providers (owners): manual payments on; a Stripe key the API refuses, beside its field.
    await page.goto(`${base}/admin/#/payments`);
    await page.locator('textarea[name=instructions]').fill('Pay by bank transfer within 7 days');
    await page.getByRole('button', { name: 'Turn on' }).first().click();
    await page.getByRole('status').filter({ hasText: 'Manual payments are on' }).waitFor();
    const stripe = page.getByRole('form', { name: 'Stripe' });
    await stripe.locator('input[name=secretKey]').fill('sk_test_0123456789');
    await stripe.locator('input[name=publishableKey]').fill('not-a-publishable-key');
    await stripe.locator('input[name=webhookSecret]').fill('whsec_0123456789');
    await stripe.getByRole('button', { name: 'Turn on' }).click();
    await fieldError(page, 'publishableKey').waitFor();
    assert.equal(await stripe.locator('input[name=secretKey]').getAttribute('type'), 'password', 'a secret is never shown');
    await shot(page, 'payments');

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
    await page.goto(`${base}/admin/#/orders/${orderId}`);
    await page.getByRole('heading', { name: `Order #${number}` }).waitFor();
    const orderOverflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(orderOverflow <= 1, `the order page is ${orderOverflow}px wider than the screen`);
    await shot(page, 'order-390');

    // A staff member's dashboard: the shop's daily work (shipping, taxes, orders), not payments.
    await page.setViewportSize({ width: 1280, height: 800 });
    const member = await staffMember(t, s, 'staff', 'packer@shop.example');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.locator('input[name=store]').fill(s.slug);
    await page.locator('input[name=email]').fill(member.email);
    await page.locator('input[name=password]').fill(STAFF_PASSWORD);
    await page.keyboard.press('Enter');
    // Signed in, the page is the one left: the order.
    await page.getByText(`${member.email} (staff)`).waitFor();
    await page.getByRole('heading', { name: `Order #${number}` }).waitFor();
    const sections = await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents();
    assert.deepEqual(sections, ['Products', 'Collections', 'Orders', 'Discount codes', 'Shipping', 'Taxes']);
    assert.deepEqual(failures, []);
  });
});
