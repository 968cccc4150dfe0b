/**
 * The load generator, run as its own process so that it never shares the server's event loop:
 * `node --import tsx bench/load.ts <plan.json>` prints one JSON result line. Each request of a plan
 * picks its path or body at random from the plan's lists, or takes them in turn (`sequential`,
 * for bodies that may be used once, like carts to order).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import net from 'node:net';
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
  /** The turn of the first request (a sequential plan taken up where an earlier run of it stopped). */
  start?: number;
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
  /**
   * This many requests a second, evenly spaced (a stream at a stated pace), instead of as fast as
   * answered: see `paced`.
   */
  rate?: number;
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  statusCodes: Record<string, number>;
  /** The turn after the last request made (warm-up included): where a later run of a sequential plan starts. */
  next?: number;
  /** This process's own CPU time a request of the measured run, in ms: what the load takes from the machine it shares. */
  cpuMs?: number;
}

function pick<T>(list: T[], turn: number, sequential: boolean | undefined): T {
  return list[sequential ? turn % list.length : Math.floor(Math.random() * list.length)]!;
}

/** The n-th request of a plan: its path, its headers (token, and a body's own) and its body. */
function requestOf(plan: LoadPlan, n: number): { path: string; headers: Record<string, string>; body?: string } {
  const headers: Record<string, string> = { authorization: `Bearer ${plan.token}`, 'content-type': 'application/json' };
  if (plan.targets) {
    const target = pick(plan.targets, n, plan.sequential);
    return { path: target.path, headers: { ...headers, authorization: `Bearer ${target.token}` }, body: target.body };
  }
  const path = pick(plan.paths, n, plan.sequential);
  if (!plan.bodies) return { path, headers };
  const i = plan.sequential ? n % plan.bodies.length : Math.floor(Math.random() * plan.bodies.length);
  return { path, headers: { ...headers, ...plan.bodyHeaders?.[i] }, body: plan.bodies[i]! };
}

// Shared by the warm-up and the measured run: a sequential body (a cart to order) is used once.
let turn = 0;

/** One kept-alive connection of a paced stream, and the request it waits on (one at a time). */
interface Line {
  socket: net.Socket;
  received: Buffer;
  answer: ((status: number | null) => void) | null;
}

/** The status of a whole HTTP/1.1 answer in `received`, null for one cut off, undefined while more is to come. */
function statusOfAnswer(received: Buffer): number | null | undefined {
  const head = received.indexOf('\r\n\r\n');
  if (head < 0) return undefined;
  const text = received.toString('latin1', 0, head);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
  // The service frames every answer by its length; anything else is counted as an error, not guessed at.
  if (!length) return null;
  if (received.length < head + 4 + Number(length[1])) return undefined;
  return Number(text.slice(9, 12));
}

/**
 * A stream at `plan.rate` requests a second, the i-th sent at start + i / rate whether or not the
 * ones before it were answered (over at most `plan.connections` kept-alive connections; a request
 * finding them all busy waits for one), each timed from when it was due. Autocannon's own rate
 * sends each connection's share of a second back to back at the start of the second (50
 * connections x 20 requests at once, every second), and its coordinated-omission correction then
 * adds, for each answer, made-up ones every millisecond below it; a payment provider's deliveries
 * arrive spread over the second instead.
 *
 * Each request is written whole on a plain socket and its answer read only as far as its status and
 * length: node's HTTP client took 0.26 ms of CPU a request at 1,000 a second, a quarter of one of
 * the two cores the service shares with it (docs/payments.md, "A lighter paced stream").
 */
async function paced(plan: LoadPlan, seconds: number): Promise<LoadResult> {
  const url = new URL(plan.url);
  const host = `Host: ${url.host}\r\n`;
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  // With BENCH_TRACE set, each request's due time (epoch ms), how late it was sent and how long its
  // answer took once sent, appended to that file: a tail then shows whether it came from this process
  // falling behind or from the service, and when, to set beside PostgreSQL's log.
  const trace: string[] | null = process.env.BENCH_TRACE ? [] : null;
  const epoch = Date.now() - performance.now();
  let errors = 0;
  const count = Math.round(plan.rate! * seconds);
  const interval = 1000 / plan.rate!;
  const idle: Line[] = [];
  const lines = new Set<Line>();
  const queued: Array<(line: Line) => void> = [];
  const open = (): Line => {
    const line: Line = { socket: net.connect(Number(url.port), url.hostname), received: Buffer.alloc(0), answer: null };
    line.socket.setNoDelay(true);
    line.socket.on('data', (chunk: Buffer) => {
      line.received = line.received.length === 0 ? chunk : Buffer.concat([line.received, chunk]);
      const status = statusOfAnswer(line.received);
      if (status !== undefined) line.answer?.(status);
    });
    const lost = () => {
      drop(line);
      line.answer?.(null);
    };
    line.socket.on('error', lost);
    line.socket.on('close', lost);
    lines.add(line);
    return line;
  };
  // A connection not to be used again: its socket's close comes later, and a request may be waiting meanwhile.
  const drop = (line: Line) => {
    lines.delete(line);
    const at = idle.indexOf(line);
    if (at >= 0) idle.splice(at, 1);
    line.socket.destroy();
  };
  const release = (line: Line) => {
    line.received = Buffer.alloc(0);
    line.answer = null;
    const next = queued.shift();
    // A request waiting for a connection gets a new one in place of one lost (so a server that went
    // away fails the rest at once instead of leaving them waiting).
    if (!lines.has(line)) next?.(open());
    else if (next) next(line);
    else idle.push(line);
  };
  const lineFor = () =>
    new Promise<Line>((resolve) => {
      const line = idle.pop() ?? (lines.size < plan.connections ? open() : null);
      if (line) resolve(line);
      else queued.push(resolve);
    });
  const send = async (due: number) => {
    // Sent when this process gets to it: a wait for a free connection is the service's, as before.
    const sent = performance.now();
    const line = await lineFor();
    const { path, headers, body } = requestOf(plan, turn++);
    let head = `${plan.method} ${path} HTTP/1.1\r\n${host}`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    if (body !== undefined) head += `content-length: ${Buffer.byteLength(body)}\r\n`;
    const answered = await new Promise<number | null>((resolve) => {
      // An answer that never comes is an error, not a run that never ends.
      const timer = setTimeout(() => line.socket.destroy(), 30_000);
      line.answer = (status) => {
        clearTimeout(timer);
        resolve(status);
      };
      line.socket.write(`${head}\r\n${body ?? ''}`);
    });
    // A connection whose answer was cut off or unreadable is not used again.
    if (answered === null) drop(line);
    release(line);
    if (answered === null || answered >= 300) errors++;
    if (answered !== null) {
      statusCodes[String(answered)] = (statusCodes[String(answered)] ?? 0) + 1;
      latencies.push(performance.now() - due);
      trace?.push(`${(epoch + due).toFixed(1)}\t${(sent - due).toFixed(1)}\t${(performance.now() - sent).toFixed(1)}\t${answered}`);
    }
  };
  const started = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < count; ) {
    const now = performance.now();
    // Every request due by now goes now; then sleep until the next one is due (timers fire late by
    // up to a millisecond or so, which the latency counts: it is measured from when it was due).
    for (; i < count && started + i * interval <= now; i++) pending.push(send(started + i * interval));
    if (i < count) await new Promise((r) => setTimeout(r, Math.max(0, started + i * interval - performance.now())));
  }
  await Promise.all(pending);
  for (const line of lines) line.socket.destroy();
  if (trace) appendFileSync(process.env.BENCH_TRACE!, `# ${plan.rate}/s for ${seconds} s\n${trace.join('\n')}\n`);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { requests: latencies.length, rps: Math.round(latencies.length / seconds), p50: at(0.5), p99: at(0.99), errors, statusCodes };
}

async function run(plan: LoadPlan, seconds: number, amount?: number): Promise<autocannon.Result> {
  return autocannon({
    url: plan.url,
    connections: plan.connections,
    ...(amount ? { amount } : { duration: seconds }),
    // Every request, the first too, is made by `setupRequest`.
    requests: [
      {
        method: plan.method,
        setupRequest: (request) => {
          const { path, headers, body } = requestOf(plan, turn++);
          request.path = path;
          request.headers = headers;
          if (body !== undefined) request.body = body;
          return request;
        },
      },
    ],
  });
}

function cpuMsPerRequest(since: NodeJS.CpuUsage, requests: number): number {
  const used = process.cpuUsage(since);
  return Math.round(((used.user + used.system) / 1000 / Math.max(1, requests)) * 1000) / 1000;
}

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadPlan;
turn = plan.start ?? 0;
if (plan.rate) {
  if (plan.warmupSeconds > 0) await paced(plan, plan.warmupSeconds);
  const cpu = process.cpuUsage();
  const result = await paced(plan, plan.seconds);
  console.log(JSON.stringify({ ...result, next: turn, cpuMs: cpuMsPerRequest(cpu, result.requests) }));
  process.exit(0);
}
if (plan.warmupSeconds > 0 && !plan.amount) await run(plan, plan.warmupSeconds);
const started = performance.now();
const cpu = process.cpuUsage();
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
  next: turn,
  cpuMs: cpuMsPerRequest(cpu, result.requests.total),
};
console.log(JSON.stringify(output));
