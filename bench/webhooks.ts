/**
 * The webhook part of `npm run bench` (PostgreSQL only): a local receiver, one endpoint subscribed
 * to `order.created`, and the drain of a backlog of deliveries, timed from the database.
 */
import { createServer, type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface BenchReceiver {
  url: string;
  received: () => number;
  close: () => Promise<void>;
}

/** A receiver that answers 204 to everything and counts. */
export async function startBenchReceiver(port: number): Promise<BenchReceiver> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received: () => count,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export async function subscribe(base: string, adminToken: string, url: string): Promise<string> {
  const r = await fetch(`${base}/api/v1/admin/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['order.created'] }),
  });
  const body = (await r.json()) as { webhook: { id: string } };
  if (r.status !== 201) throw new Error(`webhook create: ${r.status} ${JSON.stringify(body)}`);
  return body.webhook.id;
}

/** Stops (true) or starts again (false) the endpoint's deliveries: a disabled endpoint gets none from new events. */
export async function setDisabled(base: string, adminToken: string, id: string, disabled: boolean): Promise<void> {
  const r = await fetch(`${base}/api/v1/admin/webhooks/${id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ disabled }),
  });
  if (r.status !== 200) throw new Error(`webhook ${disabled ? 'disable' : 'enable'}: ${r.status} ${await r.text()}`);
}

type Queryable = { query: (text: string, values: unknown[]) => Promise<{ rows: Array<Record<string, unknown>> }> };
const pendingOf = async (client: Queryable, store: string, endpointId: string) =>
  Number((await client.query(`select count(*) from webhook_deliveries where store = $1 and endpoint_id = $2 and status = 'pending'`, [store, endpointId])).rows[0]!.count);

/** Waits (five minutes at most) until the endpoint has no delivery pending: what a run with it left is sent before the next run. */
export async function waitForDeliveries(databaseUrl: string, store: string, endpointId: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    for (let i = 0; i < 600 && (await pendingOf(client, store, endpointId)) > 0; i++) await sleep(500);
  } finally {
    await client.end();
  }
}

export interface DrainResult {
  backlog: number;
  /** From the backlog being due to its first delivery: the worker's poll interval, at most. */
  firstAfterMs: number;
  /** From the first delivery to the last one recorded. */
  seconds: number;
  perSecond: number;
}

/**
 * Waits until the deliveries the load left are done, then queues `backlog` more copies of a real
 * order.created event, makes them all due at once, and times how fast the running server sends them:
 * from the first arrival (the idle worker notices the backlog at its next poll, up to
 * WEBHOOK_POLL_INTERVAL_MS later: latency, reported apart) until the receiver has them all and the
 * database holds none pending. Progress is read from the receiver's count, not by counting pending
 * rows every 100 ms: on a table of tens of thousands of deliveries that count took a third of a core
 * from the drain it measured.
 */
export async function measureDrain(databaseUrl: string, receiver: BenchReceiver, store: string, endpointId: string, backlog: number): Promise<DrainResult> {
  await waitForDeliveries(databaseUrl, store, endpointId);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const pending = () => pendingOf(client, store, endpointId);
  try {
    await client.query(
      `with sample as (select data from events where store = $1 and type = 'order.created' limit 1),
            e as (insert into events (store, type, data) select $1, 'order.created', sample.data from sample, generate_series(1, $3) returning id)
       insert into webhook_deliveries (store, endpoint_id, event_id, next_attempt_at) select $1, $2, e.id, now() + interval '1 day' from e`,
      [store, endpointId, backlog],
    );
    const before = receiver.received();
    await client.query(`update webhook_deliveries set next_attempt_at = now() where store = $1 and endpoint_id = $2 and status = 'pending'`, [store, endpointId]);
    const due = Date.now();
    const waitFor = async (done: () => boolean | Promise<boolean>, step: number) => {
      while (!(await done())) {
        if (Date.now() - due > 300_000) throw new Error(`the backlog did not drain within 5 minutes (${receiver.received() - before} of ${backlog} received)`);
        await sleep(step);
      }
    };
    await waitFor(() => receiver.received() > before, 2);
    const first = Date.now();
    await waitFor(() => receiver.received() >= before + backlog, 20);
    await waitFor(async () => (await pending()) === 0, 20);
    const seconds = (Date.now() - first) / 1000;
    return { backlog, firstAfterMs: first - due, seconds: Math.round(seconds * 100) / 100, perSecond: Math.round(backlog / seconds) };
  } finally {
    await client.end();
  }
}
