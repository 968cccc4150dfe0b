/**
 * `npx tsx bench/flood.ts`: what a flood of fresh fake tokens costs another client. The server runs
 * as deployed with the default client limit (CLIENT_RATE_LIMIT_PER_MINUTE 600); a victim (one
 * connection, an admin token: its token lookup is a database query per request) is measured idle,
 * then while a flooder sends fake secret-shaped tokens, each new, from 50 connections at
 * --flood-rate requests per second (default 2000, the rate of the attack this answers; an unpaced
 * flood measures the machine's CPU, not the database). Reported: the victim's mean (autocannon rounds p50 to whole ms), median and p99 in
 * both runs and their ratio (the promise: within 2x), and how the flood was answered. Options:
 * --port 4120 --seconds 5 --embedded (PGlite instead of BENCH_DATABASE_URL). The flooder runs as
 * its own process (`--flooder <url> <store> <seconds> <rate>`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freshBenchDatabase } from './fresh-database.js';
import { seedBench } from './seed.js';

const ROOT = new URL('../', import.meta.url).pathname;

function summary(result: autocannon.Result) {
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count]));
  return { requests: result.requests.total, mean: result.latency.mean, p50: result.latency.p50, p99: result.latency.p99, statusCodes };
}

async function flooder(url: string, store: string, seconds: number, rate: number) {
  const fake = (n: number) => (n % 2 ? `srv_${store}_${randomBytes(32).toString('base64url')}` : `adm_${store}_${randomBytes(32).toString('base64url')}`);
  let n = 0;
  const result = await autocannon({
    url, connections: 50, duration: seconds, ...(rate > 0 ? { overallRate: rate } : {}),
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: '/api/v1/collections', headers: { authorization: `Bearer ${fake(n++)}` } }) }],
  });
  console.log(JSON.stringify(summary(result)));
}

async function main() {
  const { values } = parseArgs({ options: { 'flood-rate': { type: 'string', default: '2000' }, port: { type: 'string', default: '4120' }, seconds: { type: 'string', default: '5' }, embedded: { type: 'boolean', default: false } } });
  const seconds = Number(values.seconds);
  const port = Number(values.port);
  const base = `http://127.0.0.1:${port}`;
  const { database, env, cleanup } = await freshBenchDatabase(values.embedded, 'storefront-flood-');
  const fixture = await seedBench(database.db, 1000, 10);
  await database.close();

  const server = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', SEED_DEMO: 'false', LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '0', MAINTENANCE_INTERVAL_SECONDS: '0', DB_POOL_SIZE: '20', WEBHOOK_POLL_INTERVAL_MS: '0' },
  });
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`${base}/api/ready`).then((r) => r.ok, () => false)) break;
      if (i > 600) throw new Error('the server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
    const victim = () => autocannon({
      url: `${base}/api/v1/collections`, connections: 1, duration: seconds,
      headers: { authorization: `Bearer ${fixture.admin}` },
    });
    await victim(); // warm-up
    const idle = summary(await victim());
    const flooding = new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/flood.ts'), '--flooder', base, fixture.store, String(seconds + 2), values['flood-rate']], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.once('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`flooder exited ${code}`))));
    });
    await new Promise((r) => setTimeout(r, 1000)); // the flood reaches its limit first
    const during = summary(await victim());
    const flood = JSON.parse(await flooding) as ReturnType<typeof summary>;
    console.log(JSON.stringify({ idle, during, meanRatio: Math.round((during.mean / Math.max(idle.mean, 0.001)) * 100) / 100, flood }, null, 2));
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    cleanup();
  }
}

if (process.argv[2] === '--flooder') await flooder(process.argv[3]!, process.argv[4]!, Number(process.argv[5]), Number(process.argv[6]));
else await main();
