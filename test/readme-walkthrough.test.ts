/**
 * The README's walkthrough, run as a newcomer runs it: `npm start` on a fresh embedded database,
 * stopped, then started again with the settings of the walkthrough's first block (the restart the
 * README asks for), then every other shell block of the "Walkthrough" section in order, in one
 * bash (the second loads the tokens file the start names). Each `# -> ...` line under a command is
 * exactly the answer the README shows: JSON may leave out an object's keys (every key it names
 * must be there with that value), never an array's items (an array is shown whole, in order), and
 * a string ending in "…" is a prefix; anything else is the exact text. A block that prints what
 * the README does not show fails too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGLITE_SUITE_ONLY, ROOT } from './support/database.js';
import { freePort, inheritedEnv } from './support/server-process.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Step {
  command: string;
  expected: string;
}

/** The ```sh blocks of the README's "Walkthrough" section, in order. */
export function walkthroughBlocks(readme: string): string[] {
  const start = readme.indexOf('\n## Walkthrough\n');
  assert.ok(start >= 0, 'the README has a "## Walkthrough" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Where `actual` differs from the excerpt `expected`, or undefined when it matches. */
export function mismatch(actual: Json | undefined, expected: Json, path = '$'): string | undefined {
  if (typeof expected === 'string' && expected.endsWith('…')) {
    return typeof actual === 'string' && actual.startsWith(expected.slice(0, -1)) ? undefined : `${path}: ${JSON.stringify(actual)} does not start with ${JSON.stringify(expected.slice(0, -1))}`;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${path}: ${JSON.stringify(actual)} is not an array of exactly ${expected.length}`;
    for (const [i, item] of expected.entries()) {
      const found = mismatch(actual[i], item, `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${path}: ${JSON.stringify(actual)} is not an object`;
    for (const [key, value] of Object.entries(expected)) {
      const found = mismatch(actual[key], value, `${path}.${key}`);
      if (found) return found;
    }
    return undefined;
  }
  return actual === expected ? undefined : `${path}: ${JSON.stringify(actual)} instead of ${JSON.stringify(expected)}`;
}

function checkAnswer(step: Step, output: string): string | undefined {
  const actual = output.trim();
  const expected = step.expected;
  if (/^[[{]/.test(expected)) {
    let parsed: Json;
    try {
      parsed = JSON.parse(actual) as Json;
    } catch {
      return `the answer is not JSON: ${actual.slice(0, 500)}`;
    }
    return mismatch(parsed, JSON.parse(expected) as Json);
  }
  const matches = expected.endsWith('…') ? actual.startsWith(expected.slice(0, -1)) : actual === expected;
  return matches ? undefined : `${JSON.stringify(actual.slice(0, 500))} instead of ${JSON.stringify(expected)}`;
}

/** One bash script of the blocks, with a marker where each `# ->` line was and at each block's end. */
function script(blocks: string[]): { text: string; steps: Step[] } {
  const steps: Step[] = [];
  const lines = ['set -euo pipefail'];
  for (const [b, block] of blocks.entries()) {
    let command: string[] = [];
    for (const line of block.replace(/\n$/, '').split('\n')) {
      const answer = /^# -> (.*)$/.exec(line);
      if (!answer) {
        command.push(line);
        lines.push(line);
        continue;
      }
      steps.push({ command: command.join('\n').trim(), expected: answer[1]!.trim() });
      command = [];
      lines.push(`printf '\\n@@step ${steps.length - 1}@@\\n'`);
    }
    lines.push(`printf '\\n@@block ${b}@@\\n'`);
  }
  return { text: `${lines.join('\n')}\n`, steps };
}

test('the README walkthrough runs top to bottom against a fresh npm start, with the answers it shows', { skip: PGLITE_SUITE_ONLY, timeout: 240_000 }, async (t) => {
  const blocks = walkthroughBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  assert.ok(blocks.length >= 4, `${blocks.length} blocks`);

  // The first block starts the service: its settings, then `npm start`.
  const start = /^((?:[A-Z_]+=\S+ )*)npm start$/m.exec(blocks[0]!);
  assert.ok(start, `the first block starts the service: ${blocks[0]}`);
  const startEnv = Object.fromEntries(start[1]!.trim().split(/\s+/).filter(Boolean).map((a) => a.split('=') as [string, string]));

  // The second loads the tokens file the start names; the test loads the one of its DATA_DIR.
  const load = /^\. data\/demo-store\.env$/m;
  assert.match(blocks[1]!, load, 'the second block loads the tokens npm start keeps');

  const dataDir = mkdtempSync(join(tmpdir(), 'storefront-readme-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const tokensFile = join(dataDir, 'demo-store.env');
  // "Run it": a plain `npm start` first (it seeds the demo store), stopped; then the walkthrough's own.
  for (const env of [{}, startEnv]) {
    const port = await freePort();
    const server = spawn('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { ...inheritedEnv(), ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let serverOutput = '';
    server.stdout.on('data', (d: Buffer) => (serverOutput += d.toString()));
    server.stderr.on('data', (d: Buffer) => (serverOutput += d.toString()));
    const serverExited = new Promise((resolve) => server.once('exit', resolve));
    const stopServer = async () => {
      if (server.exitCode === null) process.kill(-server.pid!, 'SIGTERM');
      await serverExited;
    };
    let printed = false;
    for (let i = 0; i < 1200 && !printed; i++) {
      if (server.exitCode !== null) assert.fail(`npm start exited:\n${serverOutput}`);
      await new Promise((r) => setTimeout(r, 100));
      printed = serverOutput.split('\n').includes(`  . ${tokensFile}`);
    }
    assert.ok(printed, `npm start names the tokens file on every start:\n${serverOutput}`);
    if (env === startEnv) t.after(stopServer);
    else await stopServer();
  }

  const { text, steps } = script([blocks[1]!.replace(load, `. ${tokensFile}`), ...blocks.slice(2)]);
  const bash = spawn('bash', ['-c', text], { cwd: ROOT, env: inheritedEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  let errors = '';
  bash.stdout.on('data', (d: Buffer) => (output += d.toString()));
  bash.stderr.on('data', (d: Buffer) => (errors += d.toString()));
  const timer = setTimeout(() => process.kill(-bash.pid!, 'SIGKILL'), 180_000);
  const code = await new Promise<number | null>((resolve) => bash.once('close', resolve));
  clearTimeout(timer);
  try {
    process.kill(-bash.pid!, 'SIGKILL'); // a background receiver the walkthrough failed to stop
  } catch {
    // none left
  }

  // The output between two markers is what the commands between them printed.
  const parts = output.split(/^@@(step|block) (\d+)@@$/m);
  const problems: string[] = [];
  let reached = -1;
  for (let i = 1; i < parts.length; i += 3) {
    const [kind, index, before] = [parts[i], Number(parts[i + 1]), parts[i - 1]!];
    if (kind === 'step') {
      reached = index;
      const wrong = checkAnswer(steps[index]!, before);
      if (wrong) problems.push(`step ${index}:\n${steps[index]!.command}\n# -> ${steps[index]!.expected}\ngot: ${wrong}`);
    } else if (before.trim()) {
      problems.push(`block ${index} printed what the README does not show:\n${before.trim().slice(0, 500)}`);
    }
  }
  assert.equal(code, 0, `the walkthrough stopped after step ${reached} (${steps[reached + 1]?.command ?? 'the end'}):\n${errors}\n${problems.join('\n\n')}`);
  assert.deepEqual(problems, [], problems.join('\n\n'));
  assert.equal(reached, steps.length - 1, 'every step ran');
});
