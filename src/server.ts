/** Starts the service: configuration, database and migrations, demo seed, then listen. */
import { buildApp } from './app.js';
import { openConfiguredDatabase } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './plugins/config.js';
import { seedDemoStore } from './seed/demo.js';

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  const database = await openConfiguredDatabase(config, {
    onWait: () => console.error('waiting for the database to answer...'),
  });
  const seeded = config.seedDemo ? await seedDemoStore(database.db) : undefined;
  const app = await buildApp({ config, database, logger: { level: config.logLevel } });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'closing: finishing in-flight requests');
    try {
      await app.close();
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'unclean shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const base = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}/api`;
  const where = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PostgreSQL in ${config.dataDir}`;
  const lines = [`Storefront API on ${base}/v1 using ${where}`, `Docs: ${base}/docs   OpenAPI: ${base}/openapi.json`];
  if (seeded) {
    lines.push(
      `Demo store "${seeded.store.slug}" created. Its tokens are shown only now:`,
      `  admin:      ${seeded.tokens.admin}`,
      `  storefront: ${seeded.tokens.storefront}`,
      `  try: curl -H "Authorization: Bearer ${seeded.tokens.storefront}" ${base}/v1/products`,
    );
  }
  console.log(lines.join('\n'));
}

main().catch((error: unknown) => {
  console.error("storefront failed to start:", error);
  process.exit(1);
});
