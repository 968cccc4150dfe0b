/** The taxes module's public interface: the rates a checkout prices with, and the admin writes the CLI uses. */
export { createTaxRate, listTaxRates, ratesForCountries, taxedCountries } from './service.js';
export { taxRatesJson } from './repository.js';
export type { CreateTaxRateBody } from './schemas.js';
