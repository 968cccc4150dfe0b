/**
 * One HTTP attempt: a POST to the checked address (the connection is pinned to it), no redirect
 * followed (node:http never follows one), everything within the timeout, the answer's body read
 * and dropped so the connection can be reused.
 */
import http from 'node:http';
import https from 'node:https';
import { describeNetworkError, pinnedLookup } from '../../lib/outbound-policy.js';
import type { WebhookTarget } from './url-policy.js';

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

export interface AttemptResult {
  statusCode: number | null;
  /** null when the receiver answered 2xx. */
  error: string | null;
}

export function postWebhook(target: WebhookTarget, headers: Record<string, string>, body: string, timeoutMs: number): Promise<AttemptResult> {
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((settle) => {
    const request = client.request(target.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'storefront-api-webhooks' },
      agent: agents[target.url.protocol as 'http:' | 'https:'],
      lookup: pinnedLookup(target),
    });
    // One timer for the whole attempt (connection, request and answer); a plain timer, not an
    // AbortSignal, whose listeners cost more than the rest of a request to a fast receiver.
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    const resolve = (result: AttemptResult) => {
      clearTimeout(timer);
      settle(result);
    };
    request.on('response', (response) => {
      const statusCode = response.statusCode ?? 0;
      response.on('error', (error) => resolve({ statusCode, error: `reading the answer: ${error.message}` }));
      response.on('end', () => {
        if (statusCode >= 200 && statusCode < 300) resolve({ statusCode, error: null });
        else if (statusCode >= 300 && statusCode < 400) resolve({ statusCode, error: `redirect to ${response.headers.location ?? '(no location)'} not followed` });
        else resolve({ statusCode, error: `the receiver answered ${statusCode}` });
      });
      response.resume();
    });
    // The delivery log is the store admin's to read: it never shows the address the host resolved to.
    request.on('error', (error) => resolve({ statusCode: null, error: describeNetworkError(error) }));
    request.end(body);
  });
}
