/**
 * What a transaction's BEGIN costs: `npx tsx bench/begin-latency.ts [delay ms] [nagle|nodelay] [statements]`.
 * Transactions of `statements` prepared selects, one after another on one connection of the service's
 * pool, through a TCP proxy that delays every chunk by `delay` ms each way (Nagle's algorithm on or
 * off on both its sockets), once with BEGIN alone (sent as a plain string, which the pool leaves
 * alone) and once as Drizzle sends it (`begin`, which the pool writes ahead of the first statement).
 * Against BENCH_DATABASE_URL's server (default the local `bench` database).
 */
import net from 'node:net';
import { openPool } from '../src/db/postgres-pool.js';

const [delay, nagle, statements] = [Number(process.argv[2] ?? 0), process.argv[3] === 'nagle', Number(process.argv[4] ?? 1)];
const target = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/bench');
const proxy = net.createServer((client) => {
  const upstream = net.connect(Number(target.port || 5432), target.hostname);
  for (const socket of [client, upstream]) {
    socket.setNoDelay(!nagle);
    socket.on('error', () => {});
  }
  const relay = (from: net.Socket, to: net.Socket) => from.on('data', (chunk) => (delay ? setTimeout(() => to.write(chunk), delay) : to.write(chunk)));
  relay(client, upstream);
  relay(upstream, client);
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxied = new URL(target);
proxied.hostname = '127.0.0.1';
proxied.port = String((proxy.address() as net.AddressInfo).port);
const pool = await openPool(proxied.toString(), { poolSize: 1 });
const client = await pool.connect();

async function loop(begin: string | { text: string }, count: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await client.query(begin as string);
    for (let s = 0; s < statements; s++) await client.query({ name: 'begin_latency', text: 'select $1::int', values: [i] });
    await client.query('commit');
  }
  return (performance.now() - started) / count;
}

const count = delay > 0 ? 100 : 2000;
await loop({ text: 'begin' }, 20);
await loop('BEGIN', 20);
const alone = await loop('BEGIN', count);
const merged = await loop({ text: 'begin' }, count);
console.log(`delay ${delay} ms each way, ${nagle ? 'Nagle on' : 'TCP_NODELAY'}, ${statements} statement(s), ${count} transactions: BEGIN alone ${alone.toFixed(2)} ms, BEGIN with the first statement ${merged.toFixed(2)} ms a transaction`);
client.release();
await pool.end();
proxy.close();
