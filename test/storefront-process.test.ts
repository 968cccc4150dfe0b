/**
 * `npm run storefront` as a person runs it: a signal to the npm process (SIGTERM from a process
 * manager, SIGINT from Ctrl-C) stops the page and the throwaway service it started, and leaves no
 * process behind; beside an `npm start` it clashes with nothing, or shows that service's demo store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { copyTemplate, PGLITE_SUITE_ONLY, ROOT } from './support/database.js';
import { freePort, inheritedEnv, startServerProcess } from './support/server-process.js';

/** Every process below `pid`, from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent id is the 2nd field after the command, which may hold spaces: read past its ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => (children.get(p) ?? []).forEach((c) => (found.push(c), walk(c)));
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
};

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to the npm process stops the storefront and its own service, leaving no process`, { skip: PGLITE_SUITE_ONLY, timeout: 180_000 }, async () => {
    const [webPort, apiPort] = [await freePort(), await freePort()];
    const npm = spawn('npm', ['run', 'storefront', '--silent'], {
      cwd: ROOT,
      env: { ...inheritedEnv(), WEB_PORT: String(webPort), API_PORT: String(apiPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (d: Buffer) => (output += d.toString()));
    npm.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise((resolve) => npm.once('exit', resolve));
    try {
      for (let i = 0; i < 1200 && !output.includes('storefront: http'); i++) await new Promise((r) => setTimeout(r, 100));
      assert.match(output, /storefront: http/, output);
      assert.equal((await fetch(`http://127.0.0.1:${webPort}/config.json`)).status, 200);
      const started = descendants(npm.pid!);
      assert.ok(started.length >= 2, `the page's process and the service's: ${started.join(', ')}`);

      npm.kill(signal);
      await exited;
      let left = started.filter(alive);
      for (let i = 0; i < 100 && left.length > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        left = left.filter(alive);
      }
      assert.deepEqual(left, [], `processes left after ${signal}:\n${output}`);
      await assert.rejects(fetch(`http://127.0.0.1:${apiPort}/api/health`), 'the service is gone');
    } finally {
      for (const pid of descendants(npm.pid!)) process.kill(pid, 'SIGKILL');
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  });
}

/** Runs `npm run storefront` with `env` until it prints where it runs; `stop()` ends it and all below it. */
async function runStorefront(env: Record<string, string>) {
  const npm = spawn('npm', ['run', 'storefront', '--silent'], { cwd: ROOT, env: { ...inheritedEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  npm.stdout.on('data', (d: Buffer) => (output += d.toString()));
  npm.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => npm.once('exit', resolve));
  for (let i = 0; i < 1200 && !/storefront: http|^\S.*error|needed/m.test(output) && npm.exitCode === null; i++) await new Promise((r) => setTimeout(r, 100));
  const stop = async () => {
    const below = descendants(npm.pid!);
    if (npm.exitCode === null) npm.kill('SIGTERM');
    await exited;
    for (const pid of below.filter(alive)) process.kill(pid, 'SIGKILL');
  };
  return { output: () => output, stop };
}

test('with no setting, beside whatever holds 5173, the shop takes the next free port, its own service a port of its own, and says which', { skip: PGLITE_SUITE_ONLY, timeout: 180_000 }, async () => {
  // Hold 5173 when it is free; when it is not, something else holds it, which is the same case.
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.once('error', () => resolve()).listen(5173, '127.0.0.1', () => resolve()));
  const shop = await runStorefront({});
  try {
    const line = /^storefront: http:\/\/127\.0\.0\.1:(\d+) \(5173 is in use; WEB_PORT chooses\)  against its own service on http:\/\/127\.0\.0\.1:(\d+) /m.exec(shop.output());
    assert.ok(line, shop.output());
    const [webPort, apiPort] = [Number(line[1]), Number(line[2])];
    assert.notEqual(webPort, 5173);
    assert.notEqual(apiPort, 3000, 'not the port npm start takes');
    const config = (await (await fetch(`http://127.0.0.1:${webPort}/config.json`)).json()) as { storefrontToken: string };
    assert.match(config.storefrontToken, /^sf_demo_/);
    const products = await fetch(`http://127.0.0.1:${webPort}/api/v1/products?limit=1`, { headers: { authorization: `Bearer ${config.storefrontToken}` } });
    assert.equal(products.status, 200, 'the page reaches its service');
  } finally {
    await shop.stop();
    blocker.close();
  }
});

test('STOREFRONT_API_URL alone shows the demo store of a running npm start, from the tokens file it keeps', { skip: PGLITE_SUITE_ONLY, timeout: 180_000 }, async () => {
  const copy = copyTemplate();
  const server = await startServerProcess({ DATA_DIR: copy.dataDir, SEED_DEMO: 'true' });
  const shop = await runStorefront({ STOREFRONT_API_URL: server.base.replace(/\/api$/, ''), DATA_DIR: copy.dataDir, WEB_PORT: String(await freePort()) });
  try {
    const line = /^storefront: (http:\/\/127\.0\.0\.1:\d+)  against the service at (\S+) \(the demo store, its tokens from demo-store\.env\)/m.exec(shop.output());
    assert.ok(line, shop.output());
    assert.equal(line[2], server.base.replace(/\/api$/, ''));
    const kept = /SF=(\S+)/.exec(readFileSync(join(copy.dataDir, 'demo-store.env'), 'utf8'))![1];
    const config = (await (await fetch(`${line[1]}/config.json`)).json()) as { storefrontToken: string; signIn: boolean };
    assert.equal(config.storefrontToken, kept);
    assert.equal(config.signIn, true, 'a server token minted with the demo admin token');
  } finally {
    await shop.stop();
    await server.stop();
    copy.remove();
  }
});
