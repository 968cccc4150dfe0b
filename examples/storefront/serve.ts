/**
 * `npm run storefront`: the example shop on http://127.0.0.1:5173 (WEB_PORT).
 *
 * - With no setting it starts its own throwaway service (a fresh embedded database with the demo
 *   store, on API_PORT, default 3000), and removes it when it stops.
 * - With STOREFRONT_API_URL and STOREFRONT_TOKEN (a storefront token, sf_...) it runs against that
 *   service and store; STOREFRONT_SERVER_TOKEN (a server token of the same store, srv_...) turns on
 *   the demo sign-in. STOREFRONT_NAME names the shop.
 *
 * SIGTERM or SIGINT (Ctrl-C) stops the page and the service it started.
 */
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startShopBackend } from './backend.js';
import { startOwnService } from './own-service.js';

export interface Storefront {
  url: string;
  apiUrl: string;
  /** The admin token of the demo store, when the storefront started its own service. */
  adminToken?: string;
  stop: () => Promise<void>;
}

export interface StorefrontOptions {
  webPort?: number;
  /** Port of the storefront's own service; unused with `apiUrl`. */
  apiPort?: number;
  /** A running service (`http://host:port`, with or without `/api`): then `storefrontToken` is required. */
  apiUrl?: string;
  storefrontToken?: string;
  serverToken?: string;
  storeName?: string;
  /** Aborting it during the start stops the service started so far. */
  signal?: AbortSignal;
}

/** Starts the page, and the service too unless `apiUrl` names one; `stop()` ends what it started. */
export async function startStorefront(options: StorefrontOptions = {}): Promise<Storefront> {
  const webPort = options.webPort ?? 5173;
  const own = options.apiUrl ? undefined : await startOwnService(options.apiPort ?? 3000, options.signal);
  const apiUrl = own?.apiUrl ?? options.apiUrl!.replace(/\/+$/, '').replace(/\/api$/, '');
  const storefrontToken = own?.storefrontToken ?? options.storefrontToken;
  if (!storefrontToken) {
    throw new Error('STOREFRONT_TOKEN is needed with STOREFRONT_API_URL: a storefront token (sf_...) of the store to show');
  }
  let web: Server | undefined;
  const stop = async () => {
    await new Promise<void>((resolve) => (web ? web.close(() => resolve()) : resolve()));
    await own?.stop();
  };
  try {
    web = await startShopBackend(
      { apiUrl, storefrontToken, serverToken: own?.serverToken ?? options.serverToken, storeName: options.storeName ?? (own ? 'Demo store' : 'Example shop') },
      webPort,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${webPort}`, apiUrl, adminToken: own?.adminToken, stop };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = process.env;
  const abort = new AbortController();
  const started = startStorefront({
    webPort: Number(env.WEB_PORT ?? 5173),
    apiPort: Number(env.API_PORT ?? 3000),
    apiUrl: env.STOREFRONT_API_URL || undefined,
    storefrontToken: env.STOREFRONT_TOKEN || undefined,
    serverToken: env.STOREFRONT_SERVER_TOKEN || undefined,
    storeName: env.STOREFRONT_NAME || undefined,
    signal: abort.signal,
  });
  // A signal stops what was started, even while the start is still under way.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    abort.abort();
    void started
      .then((storefront) => storefront.stop(), () => undefined)
      .finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  try {
    const storefront = await started;
    const against = env.STOREFRONT_API_URL ? `the service at ${storefront.apiUrl}` : `its own service on ${storefront.apiUrl} (the demo store, a fresh database)`;
    console.log(`storefront: ${storefront.url}  against ${against}; Ctrl-C stops it`);
    if (storefront.adminToken) console.log(`  the demo store's admin token, for this run only: ${storefront.adminToken}`);
  } catch (error) {
    if (!stopping) {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
  }
}
