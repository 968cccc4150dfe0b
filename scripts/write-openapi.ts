/**
 * Writes the OpenAPI document the routes build (GET /api/openapi.json) to a file, for the linters
 * and the typed client: `tsx scripts/write-openapi.ts clients/typescript/openapi.json`.
 */
import { writeFileSync } from 'node:fs';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/client.js';
import { loadConfig } from '../src/plugins/config.js';

const out = process.argv[2] ?? 'openapi.json';
// The document comes from the route schemas only: an empty in-memory database is enough.
const database = await openDatabase({});
const config = loadConfig({ SEED_DEMO: 'false', LOG_LEVEL: 'silent', MAINTENANCE_INTERVAL_SECONDS: '0', WEBHOOK_POLL_INTERVAL_MS: '0' });
const app = await buildApp({ config, database });
await app.ready();
writeFileSync(out, `${JSON.stringify(app.swagger(), null, 2)}\n`);
await app.close();
await database.close();
console.log(`wrote ${out}`);
