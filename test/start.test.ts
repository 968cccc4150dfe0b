/**
 * Starting and stopping the real process: a start that cannot work stops at once with one line
 * naming the setting and the cause (no stack trace); `npm start` is one node process, so a
 * signal to it stops the server.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyTemplate, ROOT, templateDir, TEST_DATABASE_URL } from './support/database.js';
import { freePort, inheritedEnv, startServerProcess } from './support/server-process.js';
import { testEnv } from './support/app.js';

interface Exit {
  code: number | null;
  stderr: string;
  stdout: string;
  ms: number;
}

/** Runs `node src/server.ts` with the test environment plus `env`, expecting it to stop by itself. */
function startExpectingFailure(env: Record<string, string>, timeoutMs = 60_000): Promise<Exit> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: { ...inheritedEnv(), ...testEnv({ LOG_LEVEL: 'warn' }), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    }),
  );
}

/** Exit 1 with exactly one line on stderr that matches every pattern, and no stack trace. */
function assertOneLineFailure(exit: Exit, ...patterns: RegExp[]) {
  assert.equal(exit.code, 1, `${exit.stdout}${exit.stderr}`);
  const lines = exit.stderr.split('\n').filter((l) => l.trim() && !/^waiting up to|^warning:/.test(l));
  assert.equal(lines.length, 1, `one line, got:\n${exit.stderr}`);
  for (const pattern of patterns) assert.match(lines[0]!, pattern);
  assert.doesNotMatch(exit.stderr + exit.stdout, /^\s+at /m, 'no stack trace');
}

test('an unreachable DATABASE_URL stops the start within DB_START_TIMEOUT_SECONDS, naming the variable, host and port', async () => {
  const port = await freePort();
  const exit = await startExpectingFailure({ DATABASE_URL: `postgres://postgres:secret-pw@127.0.0.1:${port}/shop`, DB_START_TIMEOUT_SECONDS: '2' });
  assertOneLineFailure(exit, /^DATABASE_URL: /, new RegExp(`127\\.0\\.0\\.1:${port}`), /within 2 s/, /DB_START_TIMEOUT_SECONDS/);
  assert.doesNotMatch(exit.stderr, /secret-pw/, 'the password is never printed');
  assert.ok(exit.ms < 20_000, `stopped after ${exit.ms} ms`);
});

test('a DATA_DIR that is a file, or where this process may not write, stops the start naming DATA_DIR', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-start-'));
  try {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    assertOneLineFailure(await startExpectingFailure({ DATA_DIR: file }), /^DATA_DIR=.*a-file is not usable: it is a file/);
    assertOneLineFailure(await startExpectingFailure({ DATA_DIR: join(file, 'data') }), /^DATA_DIR=.* is not usable: a part of its path is a file/);
    // Even root may not make a directory in /sys.
    assertOneLineFailure(await startExpectingFailure({ DATA_DIR: '/sys/storefront-data' }), /^DATA_DIR=\/sys\/storefront-data is not usable: this process may not write there/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a port in use stops the start naming PORT', async () => {
  const copy = copyTemplate();
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const exit = await startExpectingFailure({ PORT: String(port), DATA_DIR: copy.dataDir });
    assertOneLineFailure(exit, new RegExp(`^PORT=${port}: 127\\.0\\.0\\.1:${port} is already in use`));
  } finally {
    blocker.close();
    copy.remove();
  }
});

test('a DATA_DIR held by another server stops the start naming DATA_DIR and the process', async () => {
  const copy = copyTemplate();
  try {
    const first = await startServerProcess({ DATA_DIR: copy.dataDir });
    const exit = await startExpectingFailure({ DATA_DIR: copy.dataDir, PORT: String(await freePort()) });
    assertOneLineFailure(exit, /^DATA_DIR=.* is in use by process \d+/);
    assert.equal(await first.stop(), 0);
  } finally {
    copy.remove();
  }
});

test('a weak STOREFRONT_ROOT_TOKEN stops the start: short, one repeated character, or the README example', async () => {
  for (const token of ['short-token', 'a'.repeat(40), 'change-me-to-a-long-secret']) {
    const exit = await startExpectingFailure({ STOREFRONT_ROOT_TOKEN: token });
    assert.equal(exit.code, 1, exit.stderr);
    assert.match(exit.stderr, /STOREFRONT_ROOT_TOKEN must/);
    assert.doesNotMatch(exit.stderr, /^\s+at /m);
  }
});

/** A DATA_DIR with an empty, migrated database: a copy of the template, or a new one on PostgreSQL runs (which make none). */
function emptyDataDir(): { dataDir: string; remove: () => void } {
  if (existsSync(templateDir())) return copyTemplate();
  const dataDir = mkdtempSync(join(tmpdir(), 'storefront-start-'));
  return { dataDir, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}

test('an empty database and no STOREFRONT_ROOT_TOKEN: the start warns once that no store can be created over HTTP', { timeout: 120_000 }, async () => {
  const empty = emptyDataDir();
  try {
    const server = await startServerProcess({ DATA_DIR: empty.dataDir, STOREFRONT_ROOT_TOKEN: '' });
    assert.equal(await server.stop(), 0);
    const warnings = server.output().match(/^warning: the database holds no store and STOREFRONT_ROOT_TOKEN is not set.*$/gm) ?? [];
    assert.equal(warnings.length, 1, server.output());
    assert.match(warnings[0]!, /set STOREFRONT_ROOT_TOKEN/);
    assert.match(warnings[0]!, /npm run cli -- store create/);

    const withRoot = await startServerProcess({ DATA_DIR: empty.dataDir });
    assert.equal(await withRoot.stop(), 0);
    assert.doesNotMatch(withRoot.output(), /no store can be created/, 'a root token can create stores: no warning');
  } finally {
    empty.remove();
  }
});

test('WORKERS above 1 without REDIS_URL says at start that several processes count alone', async () => {
  // The database does not answer, so the start stops right after the warning.
  const exit = await startExpectingFailure({ WORKERS: '2', DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/x`, DB_START_TIMEOUT_SECONDS: '1' });
  assert.match(exit.stderr, /^warning: WORKERS=2 without REDIS_URL: several processes count alone/m);
  assert.equal(exit.stderr.match(/several processes count alone/g)?.length, 1, 'said once');
});

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

test('SIGTERM to the `npm start` process itself stops the server and frees the port', { timeout: 120_000 }, async () => {
  const copy = TEST_DATABASE_URL ? undefined : copyTemplate();
  const port = await freePort();
  let npm: ChildProcess | undefined;
  try {
    const env: Record<string, string> = copy ? { DATA_DIR: copy.dataDir } : { DATABASE_URL: TEST_DATABASE_URL! };
    npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { ...inheritedEnv(), ...testEnv({ LOG_LEVEL: 'warn' }), HOST: '127.0.0.1', PORT: String(port), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    npm.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => npm!.once('exit', (code) => resolve(code)));
    for (let i = 0; i < 600 && (await portIsFree(port)); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await fetch(`http://127.0.0.1:${port}/api/health`)).status, 200, output);
    npm.kill('SIGTERM');
    await exited;
    let free = false;
    for (let i = 0; i < 50 && !free; i++) {
      free = await portIsFree(port);
      if (!free) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(free, `the port is free after npm start exits:\n${output}`);
    assert.doesNotMatch(output, /unclean shutdown/);
  } finally {
    if (npm && npm.exitCode === null) npm.kill('SIGKILL');
    copy?.remove();
  }
});
