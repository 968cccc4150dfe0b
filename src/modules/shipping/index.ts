/** The shipping module's public interface: the options a checkout chooses from, the schemas carts and orders show, and the admin writes the CLI uses. */
export { createShippingOption, listShippingOptions, shippingRule, shippingRules, shippingRulesOf } from './service.js';
export { shippingRulesJson } from './repository.js';
export { CartShippingOptions, checkoutFields, SetCartShippingBody, ShippingCountryQuery, type CreateShippingOptionBody } from './schemas.js';
