/**
 * Real server processes for the tests that need them (several processes, crashes, signals):
 * `node --import tsx src/server.ts` on a free port, stopped when the test file ends.
 */
import { after } from 'node:test';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { copyTemplate, ROOT, TEST_DATABASE_URL } from './database.js';
import { testEnv } from './app.js';

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  port: number;
  output: () => string;
  /** SIGTERM, then SIGKILL if it lingers; resolves with the exit code. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  kill: () => Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The database settings of a server process the test may kill and restart: TEST_DATABASE_URL, or
 * a copy of the PGlite template (removed by `remove`).
 */
export function serverDatabaseEnv(): { env: Record<string, string>; remove: () => void } {
  if (TEST_DATABASE_URL) return { env: { DATABASE_URL: TEST_DATABASE_URL }, remove: () => {} };
  const copy = copyTemplate();
  return { env: { DATA_DIR: copy.dataDir }, remove: copy.remove };
}

/**
 * The environment a test passes on to a process it starts, without the settings that would point
 * it at a real database or Redis of the developer's shell: a test opens only what it is told to.
 */
export function inheritedEnv(): Record<string, string | undefined> {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'DATA_DIR', 'STOREFRONT_ROOT_TOKEN', 'METRICS_TOKEN', 'WORKERS', 'TRUST_PROXY']) delete env[name];
  return env;
}

const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts a server with the test environment plus `env`; resolves once /api/health answers. */
export async function startServerProcess(env: Record<string, string>, { waitMs = 60000 } = {}): Promise<ServerProcess> {
  const port = Number(env.PORT ?? (await freePort()));
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: { ...inheritedEnv(), ...testEnv({ LOG_LEVEL: 'warn' }), HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => { running.delete(child); resolve(code); }));
  const base = `http://127.0.0.1:${port}/api`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`server exited early (${child.exitCode ?? child.signalCode}):\n${output}`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > waitMs) {
      child.kill('SIGKILL');
      throw new Error(`server did not answer within ${waitMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  const kill = async () => {
    child.kill('SIGKILL');
    await exited;
  };
  return { child, base, port, output: () => output, stop, kill };
}

/** A JSON request to a running server. */
export async function call(base: string, method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await response.text();
  let json: ReturnType<typeof JSON.parse>;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}
