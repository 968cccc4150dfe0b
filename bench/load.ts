/**
 * The load generator, run as its own process so that it never shares the server's event loop:
 * `node --import tsx bench/load.ts <plan.json>` prints one JSON result line. Each request of a plan
 * picks its path or body at random from the plan's lists, or takes them in turn (`sequential`,
 * for bodies that may be used once, like carts to order).
 */
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadPlan {
  url: string;
  method: 'GET' | 'POST' | 'PATCH';
  token: string;
  paths: string[];
  bodies?: string[];
  /** Headers of each body (a webhook's signature), taken with it. */
  bodyHeaders?: Array<Record<string, string>>;
  sequential?: boolean;
  /**
   * Requests each with a token, path and body of their own (the workloads spread over many stores,
   * bench/spread.ts): picked like the paths, and used instead of them.
   */
  targets?: Array<{ token: string; path: string; body?: string }>;
  connections: number;
  warmupSeconds: number;
  seconds: number;
  /** Send exactly this many requests instead of running for `seconds` (the sell-out check). */
  amount?: number;
  /** At most this many requests a second over all connections (a stream at a stated pace), instead of as fast as answered. */
  rate?: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  statusCodes: Record<string, number>;
}

function pick<T>(list: T[], turn: number, sequential: boolean | undefined): T {
  return list[sequential ? turn % list.length : Math.floor(Math.random() * list.length)]!;
}

// Shared by the warm-up and the measured run: a sequential body (a cart to order) is used once.
let turn = 0;

async function run(plan: LoadPlan, seconds: number, amount?: number): Promise<autocannon.Result> {
  const headers: Record<string, string> = { authorization: `Bearer ${plan.token}`, 'content-type': 'application/json' };
  return autocannon({
    url: plan.url,
    connections: plan.connections,
    ...(amount ? { amount } : { duration: seconds }),
    ...(plan.rate ? { overallRate: plan.rate } : {}),
    headers,
    requests: [
      {
        method: plan.method,
        setupRequest: (request) => {
          const n = turn++;
          if (plan.targets) {
            const target = pick(plan.targets, n, plan.sequential);
            request.path = target.path;
            request.headers = { ...headers, authorization: `Bearer ${target.token}` };
            if (target.body !== undefined) request.body = target.body;
            return request;
          }
          request.path = pick(plan.paths, n, plan.sequential);
          if (plan.bodies) {
            const i = plan.sequential ? n % plan.bodies.length : Math.floor(Math.random() * plan.bodies.length);
            request.body = plan.bodies[i]!;
            if (plan.bodyHeaders) request.headers = { ...headers, ...plan.bodyHeaders[i] };
          }
          return request;
        },
      },
    ],
  });
}

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadPlan;
if (plan.warmupSeconds > 0 && !plan.amount) await run(plan, plan.warmupSeconds);
const started = performance.now();
const result = await run(plan, plan.seconds, plan.amount);
const elapsedSeconds = plan.amount ? (performance.now() - started) / 1000 : plan.seconds;
const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, (s as { count: number }).count]));
const output: LoadResult = {
  requests: result.requests.total,
  rps: Math.round(result.requests.total / elapsedSeconds),
  p50: result.latency.p50,
  p99: result.latency.p99,
  errors: result.non2xx + result.errors + result.timeouts,
  statusCodes,
};
console.log(JSON.stringify(output));
