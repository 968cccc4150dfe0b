/**
 * What a change does to a cached read, measured on two builds at once:
 * `npx tsx bench/two-builds.ts <before> <after> [pairs] [product-group|product-by-slug] [seconds]`.
 * `before` and `after` are checkouts with their `dist/` built (`npx tsc -p tsconfig.build.json`;
 * the one before can be `git worktree add /tmp/before HEAD~1` with node_modules linked in). Both
 * servers run on one freshly seeded database (BENCH_DATABASE_URL, default the local `bench`,
 * 1,000 products) and take turns under the bench's load generator, in alternating order, `pairs`
 * (6) times: a pair meets the same machine, which on a shared VM moves by a third within minutes.
 * Prints each turn's req/s, the server's CPU a request (from /proc, the measured seconds only) and
 * the requests a statement served (bench/count-queries.mjs), then the medians of each build.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshBenchDatabase } from './fresh-database.js';
import { seedBench } from './seed.js';
import type { LoadPlan, LoadResult } from './load.js';
import { cpuMs, serverEnvOf } from './processes.js';

const [before, after, pairs = '6', read = 'product-group', seconds = '8'] = process.argv.slice(2);
if (!before || !after) throw new Error('usage: npx tsx bench/two-builds.ts <before> <after> [pairs] [product-group|product-by-slug] [seconds]');
const ROOT = new URL('../', import.meta.url).pathname;
const PORT = 3950;

const { database, env } = await freshBenchDatabase(false, 'two-builds');
const fixture = await seedBench(database.db, 1000, 100);
await database.close();
const paths = read === 'product-group' ? fixture.groups.map((g) => `/api/v1/product-groups/${g}`) : fixture.slugs.map((s) => `/api/v1/products/${s}`);

interface Build {
  name: string;
  port: number;
  countFile: string;
  server: ChildProcess;
  turns: Array<{ rps: number; cpuUs: number; perStatement: number }>;
}

const builds: Build[] = [before, after].map((dir, i) => {
  const port = PORT + i;
  const countFile = join(tmpdir(), `two-builds-${process.pid}-${i}`);
  const server = spawn(process.execPath, ['--import', join(ROOT, 'bench/count-queries.mjs'), '--max-semi-space-size=8', '--heap-growing-percent=100', 'dist/src/server.js'], {
    cwd: dir,
    env: { ...process.env, ...serverEnvOf(env, port, { QUERY_COUNT_FILE: countFile }) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { name: i === 0 ? 'before' : 'after', port, countFile, server, turns: [] };
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const statements = (build: Build) => Number(readFileSync(build.countFile, 'utf8'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function load(build: Build, measured: number): LoadResult {
  const file = join(tmpdir(), `two-builds-plan-${process.pid}.json`);
  const plan: LoadPlan = { url: `http://127.0.0.1:${build.port}`, method: 'GET', token: fixture.storefront, paths, connections: 50, warmupSeconds: 0, seconds: measured };
  writeFileSync(file, JSON.stringify(plan));
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'bench/load.ts'), file], { cwd: ROOT, encoding: 'utf8' });
  rmSync(file, { force: true });
  if (run.status !== 0) throw new Error(`the load generator exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as LoadResult;
}

try {
  for (const build of builds) {
    for (let i = 0; i < 300 && !(await fetch(`http://127.0.0.1:${build.port}/api/ready`).then((r) => r.ok, () => false)); i++) await pause(100);
  }
  for (let pair = 0; pair < Number(pairs); pair++) {
    for (const build of pair % 2 === 0 ? builds : [...builds].reverse()) {
      load(build, 2); // the warm-up, apart, so that the CPU read is the measured run's alone
      await pause(400); // the count file is rewritten every 200 ms
      const [cpu, count] = [cpuMs(build.server.pid!), statements(build)];
      const result = load(build, Number(seconds));
      await pause(400);
      const turn = {
        rps: result.rps,
        cpuUs: Math.round(((cpuMs(build.server.pid!) - cpu) * 1000) / result.requests),
        perStatement: Math.round((result.requests / Math.max(1, statements(build) - count)) * 10) / 10,
      };
      build.turns.push(turn);
      console.log(`${build.name}: ${turn.rps} req/s, ${turn.cpuUs} µs of server CPU a request, ${turn.perStatement} requests a statement`);
    }
  }
  for (const build of builds) {
    const of = (key: keyof Build['turns'][number]) => median(build.turns.map((t) => t[key]));
    console.log(`${build.name}, medians of ${build.turns.length}: ${of('rps')} req/s, ${of('cpuUs')} µs a request, ${of('perStatement')} requests a statement`);
  }
} finally {
  for (const build of builds) {
    build.server.kill('SIGTERM');
    rmSync(build.countFile, { force: true });
  }
}
