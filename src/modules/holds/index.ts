/**
 * The holds module's public interface: what carts hold of products (checkout holds). Carts take and
 * end holds; the catalog, carts and orders subtract what is held from what they show and allow.
 */
export { holdsOf, holdsOfStoresPart, endHoldsOfStores, heldTotals, lessHeld, nextHoldExpiry, availableQuantity, replaceHoldsOfStores, endHolds, holdChangesSince, type Held } from './repository.js';
