/** The stores module's public interface: stores, their tokens, and the catalog version. */
export {
  authenticateSecret, createStore, createToken, hasStores, listStores, issueCustomerToken, listTokens, revokeAllCustomerTokens, revokeCustomerToken, revokeToken,
  STORE_SLUG_PATTERN, type CreatedStore, type TokenView,
} from './service.js';
export { catalogVersionOf, createCatalogVersion, holdsVersionOf, markCatalogChanged, markCatalogsChanged, markHoldsChanged } from './catalog-version.js';
export { hashesEqual, hashSecret, secretsEqual, TOKEN_KINDS, ISSUABLE_TOKEN_KINDS, TOKEN_KIND_NAMES, type IssuableTokenKind, type TokenKind } from './tokens.js';
export { countStores, findStore, listStoreSlugs, pricingSettingsJson, purgeDeadCustomerTokens, type TokenRow } from './repository.js';
export { orderNumbersCtes } from './order-numbers.js';
export { getStoreSettings, paymentProvidersOf, pricingSettingsOf, type PricingSettings } from './settings.js';
