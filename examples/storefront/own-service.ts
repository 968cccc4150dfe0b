/**
 * The storefront's own throwaway service, its no-argument default: `npm start`'s server on a fresh
 * embedded database in a temporary directory, with the demo store it seeds (the tokens come from
 * the line the start prints), and a server token for the shop's back end. `stop()` ends the
 * service and removes the database.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface OwnService {
  apiUrl: string;
  storefrontToken: string;
  adminToken: string;
  serverToken: string;
  stop: () => Promise<void>;
}

/**
 * The demo store's line, as `npm start` prints it and keeps it in DATA_DIR/demo-store.env:
 * `export API=http://host:port/api ADMIN=... SF=...`.
 */
export function demoTokens(text: string): { apiUrl: string; admin: string; storefront: string } | undefined {
  const line = /export API=(\S+?)(?:\/api)? ADMIN=(\S+) SF=(\S+)/.exec(text);
  return line ? { apiUrl: line[1]!, admin: line[2]!, storefront: line[3]! } : undefined;
}

/** A server token for the shop's back end (its demo sign-in), minted with the store's admin token. */
export async function mintServerToken(apiUrl: string, adminToken: string): Promise<string> {
  const minted = await fetch(`${apiUrl}/api/v1/admin/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'server' }),
  });
  if (minted.status !== 201) throw new Error(`could not mint a server token: ${minted.status} ${await minted.text()}`);
  return ((await minted.json()) as { secret: string }).secret;
}

/**
 * Starts it on `apiPort`, or on a port the system picks when 0 (so that it never clashes with an
 * `npm start` on 3000); an abort of `signal` (a Ctrl-C during the start) stops it at once.
 */
export async function startOwnService(apiPort: number, signal?: AbortSignal): Promise<OwnService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'storefront-example-'));
  // Always the embedded database in a fresh directory, whatever the shell points DATABASE_URL at.
  const { DATABASE_URL: _database, STOREFRONT_ROOT_TOKEN: _root, ...env } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', '--wasm-num-compilation-tasks=1', join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    // Every shopper of this local demo is 127.0.0.1: one client address that places many unpaid orders
    // and holds many carts by design, so the per-client limits of the public checkout are off here
    // (unless the shell sets them).
    env: { UNPAID_ORDERS_PER_CLIENT: '0', HOLDS_PER_CLIENT: '0', ...env, PORT: String(apiPort), HOST: '127.0.0.1', DATA_DIR: dataDir, SEED_DEMO: 'true', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    signal,
  });
  child.on('error', () => {}); // an abort is reported by the exit below
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    let tokens = demoTokens(output);
    for (let i = 0; i < 1200 && !tokens; i++) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the API exited early:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      tokens = demoTokens(output);
    }
    if (!tokens) throw new Error(`the API did not start within 2 minutes:\n${output}`);
    const apiUrl = tokens.apiUrl;
    const serverToken = await mintServerToken(apiUrl, tokens.admin);
    return { apiUrl, storefrontToken: tokens.storefront, adminToken: tokens.admin, serverToken, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
