/** The catalog module's public interface: products as carts and orders see them, their stock, and their schemas. */
export { findSellableProducts, findSellableProductsOfStores, lockStoresSellableProducts, takeStoresStock, returnStock, type SellableProduct, type SellableProducts, type StoresSellableProducts } from './stock-repository.js';
export { recordStockCrossing } from './admin-service.js';
export { productFieldsView } from './views.js';
export { productFields } from './schemas.js';
export type { ProductFieldsView } from './schemas.js';
export type { ProductRecord } from './visibility.js';
