/**
 * `npm run storefront`: the example shop on http://127.0.0.1:5173, or the next free port after it
 * (WEB_PORT names one exactly).
 *
 * - With no setting it starts its own throwaway service (a fresh embedded database with the demo
 *   store) on a port the system picks (API_PORT names one), so it runs beside an `npm start` on
 *   3000, and removes it when it stops.
 * - With STOREFRONT_API_URL it runs against that service: with STOREFRONT_TOKEN (a storefront
 *   token, sf_...) of the store to show, or, without it, the demo store whose tokens `npm start`
 *   keeps in DATA_DIR/demo-store.env (./data). STOREFRONT_SERVER_TOKEN (a server token of the same
 *   store, srv_...) turns on the demo sign-in (minted from the demo store's admin token when it
 *   comes from that file). STOREFRONT_NAME names the shop.
 *
 * SIGTERM or SIGINT (Ctrl-C) stops the page and the service it started.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startShopBackend } from './backend.js';
import { demoTokens, mintServerToken, startOwnService } from './own-service.js';

/** The port tried first for the page, and how many after it before letting the system pick. */
const DEFAULT_WEB_PORT = 5173;
const WEB_PORTS_TRIED = 10;

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
  /** Where `npm start` keeps the demo store's tokens, read with `apiUrl` and no `storefrontToken`. */
  dataDir?: string;
  /** Aborting it during the start stops the service started so far. */
  signal?: AbortSignal;
}

/**
 * Starts the page, and the service too unless `apiUrl` names one; `stop()` ends what it started.
 * Without `webPort` the page takes 5173 or the next free port after it.
 */
export async function startStorefront(options: StorefrontOptions = {}): Promise<Storefront> {
  const own = options.apiUrl ? undefined : await startOwnService(options.apiPort ?? 0, options.signal);
  const apiUrl = own?.apiUrl ?? options.apiUrl!.replace(/\/+$/, '').replace(/\/api$/, '');
  let stopWeb = async () => {};
  const stop = async () => {
    await stopWeb();
    await own?.stop();
  };
  try {
    const store = own ? { ...own, demo: true } : await storeOfRunningService(apiUrl, options);
    const settings = { apiUrl, storefrontToken: store.storefrontToken, serverToken: store.serverToken, storeName: options.storeName ?? (store.demo ? 'Demo store' : 'Example shop') };
    const web = await listenOnFreePort((port) => startShopBackend(settings, port), options.webPort);
    stopWeb = () => new Promise<void>((resolve) => web.server.close(() => resolve()));
    return { url: `http://127.0.0.1:${web.port}`, apiUrl, adminToken: own?.adminToken, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The store to show on a running service: the tokens given, or the demo store's that `npm start` keeps. */
async function storeOfRunningService(apiUrl: string, options: StorefrontOptions): Promise<{ storefrontToken: string; serverToken?: string; demo: boolean }> {
  if (options.storefrontToken) return { storefrontToken: options.storefrontToken, serverToken: options.serverToken, demo: false };
  const file = join(resolve(options.dataDir ?? './data'), 'demo-store.env');
  const kept = existsSync(file) ? demoTokens(readFileSync(file, 'utf8')) : undefined;
  if (!kept) {
    throw new Error(
      `STOREFRONT_TOKEN is needed with STOREFRONT_API_URL: a storefront token (sf_...) of the store to show ` +
        `(without it the shop shows the demo store whose tokens npm start keeps in ${file}, and there is no such file)`,
    );
  }
  return { storefrontToken: kept.storefront, serverToken: options.serverToken ?? (await mintServerToken(apiUrl, kept.admin)), demo: true };
}

/**
 * Listens on `port` when given (in use: an error naming WEB_PORT), else on 5173 or the next of
 * ten ports that is free, else on one the system picks: a second shop, or another dev server on
 * 5173, does not stop this one.
 */
async function listenOnFreePort(listen: (port: number) => Promise<Server>, port: number | undefined): Promise<{ server: Server; port: number }> {
  const candidates = port !== undefined ? [port] : [...Array.from({ length: WEB_PORTS_TRIED }, (_, i) => DEFAULT_WEB_PORT + i), 0];
  for (const candidate of candidates) {
    try {
      const server = await listen(candidate);
      const address = server.address();
      return { server, port: typeof address === 'object' && address ? address.port : candidate };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
      if (port !== undefined) throw new Error(`WEB_PORT=${port}: 127.0.0.1:${port} is already in use; choose another, or leave WEB_PORT out to take a free one`);
    }
  }
  throw new Error('no free port for the page');
}

/** Whether a Storefront API answers at `url` (an `npm start` the shop leaves alone). */
async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = process.env;
  const abort = new AbortController();
  const webPort = env.WEB_PORT ? Number(env.WEB_PORT) : undefined;
  const started = startStorefront({
    webPort,
    apiPort: env.API_PORT ? Number(env.API_PORT) : undefined,
    apiUrl: env.STOREFRONT_API_URL || undefined,
    storefrontToken: env.STOREFRONT_TOKEN || undefined,
    serverToken: env.STOREFRONT_SERVER_TOKEN || undefined,
    storeName: env.STOREFRONT_NAME || undefined,
    dataDir: env.DATA_DIR || undefined,
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
    const moved = webPort === undefined && storefront.url !== `http://127.0.0.1:${DEFAULT_WEB_PORT}` ? ` (${DEFAULT_WEB_PORT} is in use; WEB_PORT chooses)` : '';
    const against = env.STOREFRONT_API_URL
      ? `the service at ${storefront.apiUrl}${env.STOREFRONT_TOKEN ? '' : ' (the demo store, its tokens from demo-store.env)'}`
      : `its own service on ${storefront.apiUrl} (the demo store, a fresh database)`;
    console.log(`storefront: ${storefront.url}${moved}  against ${against}; Ctrl-C stops it`);
    if (storefront.adminToken) console.log(`  the demo store's admin token, for this run only: ${storefront.adminToken}`);
    const npmStart = 'http://127.0.0.1:3000';
    if (!env.STOREFRONT_API_URL && (await answers(npmStart))) {
      console.log(`  a service already runs on ${npmStart} (npm start?): left alone; to show its demo store instead: STOREFRONT_API_URL=${npmStart} npm run storefront`);
    }
  } catch (error) {
    if (!stopping) {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    }
  }
}
