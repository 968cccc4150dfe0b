/**
 * The totals' rules hold for any cart (fast-check): the discount's shares sum to the discount and
 * never pass a line's price, every tax is at least 0, and `total` is always the sum of its parts:
 * price - discountTotal + shippingTotal, plus taxTotal when prices exclude tax. The same function
 * prices carts and orders (src/modules/pricing/checkout.ts), so this covers both.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkoutTotals, discountShares, taxOf, type TaxRateRule } from '../src/modules/pricing/index.js';

const line = fc.record({ price: fc.integer({ min: 0, max: 100_000_000 }), quantity: fc.integer({ min: 1, max: 100_000 }), eligible: fc.boolean(), taxCategory: fc.constantFrom(null, 'books', 'food') });
const rate = fc.record({
  country: fc.constantFrom('US', 'DE'),
  region: fc.constantFrom(null, 'TX', 'tx', 'BY'),
  category: fc.constantFrom(null, 'books', 'food'),
  rate: fc.oneof(fc.integer({ min: 0, max: 10000 }), fc.constantFrom(825, 3300, 2000, 10000)),
  name: fc.constantFrom('VAT', 'Sales tax', 'Reduced'),
});

test('for random carts: shares sum to the discount, taxes are not negative, total is the sum of its parts', () => {
  fc.assert(
    fc.property(
      fc.array(line, { minLength: 1, maxLength: 12 }),
      fc.array(rate, { maxLength: 8 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      fc.option(fc.record({ price: fc.integer({ min: 0, max: 100_000 }), freeAbove: fc.option(fc.integer({ min: 0, max: 10_000_000 })) })),
      fc.boolean(),
      fc.constantFrom({ country: 'US', region: 'TX' }, { country: 'us', region: null }, { country: 'DE', region: 'by' }, { country: 'Germany', region: null }),
      (cartLines, rates, fraction, option, pricesIncludeTax, destination) => {
        const lines = cartLines.map((l) => ({ price: l.price * l.quantity, taxCategory: l.taxCategory, eligible: l.eligible }));
        const price = lines.reduce((sum, l) => sum + l.price, 0);
        const eligible = lines.filter((l) => l.eligible).reduce((sum, l) => sum + l.price, 0);
        const amount = Math.floor(eligible * fraction);
        const shares = discountShares(amount, lines);
        assert.equal(shares.reduce((a, b) => a + b, 0), eligible === 0 ? 0 : amount);
        shares.forEach((share, i) => assert.ok(share >= 0 && share <= lines[i]!.price && (lines[i]!.eligible || share === 0)));
        const unique = [...new Map(rates.map((r) => [`${r.country}|${r.region?.toLowerCase()}|${r.category}`, r])).values()] as TaxRateRule[];
        const shipping = option ? { option: { id: 'o', name: 'Standard', price: option.price, countries: [], freeAbove: option.freeAbove, minSubtotal: 0, active: true }, destination } : null;
        const discount = eligible === 0 ? null : { code: 'C', type: 'fixed' as const, value: amount, amount };
        const t = checkoutTotals({ price, lines, discount, shipping, taxDestination: destination, rates: unique, pricesIncludeTax });
        assert.equal(t.taxTotal, t.taxLines.reduce((sum, l) => sum + l.amount, 0));
        for (const taxLine of t.taxLines) assert.ok(taxLine.amount >= 0);
        assert.equal(t.total, price - t.discountTotal + t.shippingTotal + (pricesIncludeTax ? 0 : t.taxTotal));
        if (pricesIncludeTax) assert.ok(t.taxTotal <= price - t.discountTotal + t.shippingTotal, 'tax held in the prices never exceeds them');
      },
    ),
    { numRuns: 2000 },
  );
});

test('rounding by hand: halves up, inclusive and exclusive', () => {
  assert.equal(taxOf(200, 825, false), 17); // 16.5
  assert.equal(taxOf(199, 825, false), 16); // 16.4175
  assert.equal(taxOf(1000, 3300, true), 248); // 1000 - round(751.88)
  assert.equal(taxOf(0, 3300, true), 0);
  assert.equal(taxOf(100_000_000 * 100_000, 10000, false), 100_000_000 * 100_000, 'no precision lost on the largest line');
  assert.deepEqual(discountShares(1000, [{ price: 1999, eligible: true }, { price: 3333, eligible: true }, { price: 1001, eligible: true }]), [316, 526, 158]);
  assert.deepEqual(discountShares(2, [{ price: 10, eligible: true }, { price: 10, eligible: true }, { price: 10, eligible: true }]), [1, 1, 0], 'ties: earlier lines first');
  assert.deepEqual(discountShares(5, [{ price: 10, eligible: false }, { price: 10, eligible: true }]), [0, 5]);
});
