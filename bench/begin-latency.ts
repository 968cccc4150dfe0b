/**
 * What a transaction's BEGIN and COMMIT cost: `npx tsx bench/begin-latency.ts [delay ms] [nagle|nodelay] [statements]`.
 * Transactions of `statements` prepared selects, one after another on one connection of the service's
 * pool, through a TCP proxy that delays every chunk by `delay` ms each way (Nagle's algorithm on or
 * off on both its sockets): with BEGIN and COMMIT alone (sent as plain strings, which the pool leaves
 * alone); with BEGIN as Drizzle sends it (`begin`, which the pool writes ahead of the first
 * statement); and with that and the last statement marked as such (`lastInTransaction`, the pool
 * writing Drizzle's `commit` after it). Each with its wall time and this process's CPU a transaction.
 * Against BENCH_DATABASE_URL's server (default the local `bench` database).
 */
import net from 'node:net';
import { LAST_MARK } from '../src/db/client.js';
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

type Mode = 'alone' | 'begin' | 'both';

async function loop(mode: Mode, count: number): Promise<{ wall: number; cpu: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    await client.query(mode === 'alone' ? 'BEGIN' : ({ text: 'begin' } as unknown as string));
    for (let s = 0; s < statements; s++) {
      const last = mode === 'both' && s === statements - 1;
      await client.query({ name: last ? 'begin_latency_last' : 'begin_latency', text: `${last ? LAST_MARK : ''}select $1::int`, values: [i] });
    }
    await client.query(mode === 'alone' ? 'COMMIT' : ({ text: 'commit' } as unknown as string));
  }
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - started) / count, cpu: (used.user + used.system) / 1000 / count };
}

const count = delay > 0 ? 100 : 2000;
for (const mode of ['both', 'begin', 'alone'] as const) await loop(mode, 20);
const alone = await loop('alone', count);
const merged = await loop('begin', count);
const both = await loop('both', count);
const shown = (r: { wall: number; cpu: number }) => `${r.wall.toFixed(2)} ms (CPU ${r.cpu.toFixed(3)} ms)`;
console.log(
  `delay ${delay} ms each way, ${nagle ? 'Nagle on' : 'TCP_NODELAY'}, ${statements} statement(s), ${count} transactions, a transaction: ` +
    `BEGIN and COMMIT alone ${shown(alone)}, BEGIN with the first statement ${shown(merged)}, and COMMIT with the last ${shown(both)}`,
);
client.release();
await pool.end();
proxy.close();
