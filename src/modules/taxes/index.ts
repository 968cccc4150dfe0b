/** The taxes module's public interface: the rates a checkout prices with, and the admin writes the CLI uses. */
export { createTaxRate, listTaxRates, ratesForCountries, storesRatesForCountries } from './service.js';
export type { CreateTaxRateBody } from './schemas.js';
