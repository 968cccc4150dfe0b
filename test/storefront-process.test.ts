/**
 * `npm run storefront` as a person runs it: a signal to the npm process (SIGTERM from a process
 * manager, SIGINT from Ctrl-C) stops the page and the throwaway service it started, and leaves no
 * process behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { ROOT } from './support/database.js';
import { freePort, inheritedEnv } from './support/server-process.js';

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
  test(`${signal} to the npm process stops the storefront and its own service, leaving no process`, { timeout: 180_000 }, async () => {
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
