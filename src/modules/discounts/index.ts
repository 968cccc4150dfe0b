/** The discounts module's public interface: what carts and orders read of codes, and the schemas they show. */
export { discountByCode, discountsById, discountsByIdOfStores, discountsForStoresRoundPart, countedUses, returnUse, normalizeCode, createDiscount, listDiscounts, type RoundDiscounts } from './service.js';
export { AppliedDiscount, CreateDiscountBody, DiscountCodeBody, discountFields } from './schemas.js';
