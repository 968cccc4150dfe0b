/**
 * A store's remote JWK Set: fetched under the outbound address policy (checked before every fetch,
 * the connection pinned to the checked address, no redirect followed), within one timeout for the
 * whole exchange body included, and never more than a size cap read: a slow or huge answer costs
 * the process neither time nor memory. The set is cached, and fetched again when it is stale or a
 * token names a `kid` it lacks (at most once per cool-down).
 */
import http from 'node:http';
import https from 'node:https';
import { createLocalJWKSet, errors, type JWTVerifyGetKey } from 'jose';
import { describeNetworkError, OutboundRefusal, pinnedLookup, resolveOutboundTarget } from '../../lib/outbound-policy.js';
import type { JwkSet } from './customer-auth-repository.js';

export interface JwksFetchOptions {
  /** For the whole fetch: resolution, connection, headers and body. */
  timeoutMs: number;
  maxBytes: number;
  allowPrivateNetworks: boolean;
}

export interface RemoteKeySetOptions extends JwksFetchOptions {
  /** Least time between two fetches for an unknown `kid`. */
  refetchCooldownMs: number;
  /** A set older than this is fetched again before use. */
  maxAgeMs: number;
}

/** The JWK Set could not be had; JWT requests of the store answer 503. */
export class KeySetUnavailable extends Error {
  override name = 'KeySetUnavailable';
}

const describeBytes = (bytes: number) => (bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`);

/** Fetches a JWK Set, or throws KeySetUnavailable saying why (never with an address). */
export async function fetchJwks(url: string, options: JwksFetchOptions): Promise<JwkSet> {
  const started = Date.now();
  let target;
  try {
    target = await resolveOutboundTarget(url, options.allowPrivateNetworks, options.timeoutMs);
  } catch (error) {
    if (error instanceof OutboundRefusal) throw new KeySetUnavailable(`the jwksUrl ${error.rule}`);
    throw error;
  }
  const remainingMs = Math.max(1, options.timeoutMs - (Date.now() - started));
  const body = await new Promise<Buffer>((resolve, reject) => {
    const client = target.url.protocol === 'https:' ? https : http;
    const request = client.get(target.url, {
      lookup: pinnedLookup(target),
      agent: false,
      headers: { accept: 'application/json', 'user-agent': 'storefront-api-jwks' },
    });
    const fail = (reason: string) => {
      clearTimeout(timer);
      request.destroy();
      reject(new KeySetUnavailable(reason));
    };
    const timer = setTimeout(() => fail(`the JWK Set did not arrive in full within ${options.timeoutMs} ms`), remainingMs);
    request.on('error', (error) => fail(describeNetworkError(error)));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400) return fail(`the JWK Set answered a redirect (${status}), which is not followed`);
      if (status !== 200) return fail(`the JWK Set answered ${status}`);
      const tooLarge = `the JWK Set is larger than ${describeBytes(options.maxBytes)}`;
      if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) return fail(tooLarge);
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) fail(tooLarge);
        else chunks.push(chunk);
      });
      response.on('error', (error) => fail(describeNetworkError(error)));
      response.on('end', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
    });
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new KeySetUnavailable('the JWK Set is not JSON');
  }
  if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as JwkSet).keys)) throw new KeySetUnavailable('the JWK Set has no keys array');
  return parsed as JwkSet;
}

/** A key resolver for jose over a remote JWK Set, fetched on first use and cached. */
export function remoteKeySet(url: string, options: RemoteKeySetOptions): JWTVerifyGetKey {
  let current: { getKey: JWTVerifyGetKey; fetchedAt: number } | undefined;
  let pending: Promise<JWTVerifyGetKey> | undefined;
  // Requests that arrive while a fetch runs wait for it instead of fetching again.
  const reload = () =>
    (pending ??= fetchJwks(url, options)
      .then((jwks) => {
        const getKey = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
        current = { getKey, fetchedAt: Date.now() };
        return getKey;
      })
      .finally(() => {
        pending = undefined;
      }));
  return async (header, token) => {
    if (!current || Date.now() - current.fetchedAt > options.maxAgeMs) await reload();
    try {
      return await current!.getKey(header, token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || Date.now() - current!.fetchedAt < options.refetchCooldownMs) throw error;
      return (await reload())(header, token);
    }
  };
}
