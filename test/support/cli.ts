/**
 * The command line in the tests. `cliInProcess` runs its commands (src/command-line.ts) inside the
 * test's own process: the same parsing, database and answers as `npm run cli`, without a new
 * process's seconds of module loading per call. `runCli` runs the real process, for the tests that
 * are about the process (its exit code and streams, the lock of an embedded database).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runCommandLine } from '../../src/command-line.js';
import { ROOT } from './database.js';
import { inheritedEnv } from './server-process.js';

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is JSON. */
  json: any;
}

/** The test environment plus `env`. */
const cliEnv = (env: Record<string, string>) => ({ ...inheritedEnv(), SEED_DEMO: 'false', LOG_LEVEL: 'silent', ...env });

function result(status: number | null, stdout: string, stderr: string): CliResult {
  let json;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { status, stdout, stderr, json };
}

/** Runs `npm run cli`'s process (src/cli.ts) to its end. */
export function runCli(env: Record<string, string>, ...args: string[]): CliResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli.ts'), ...args], { cwd: ROOT, env: cliEnv(env), encoding: 'utf8', timeout: 60000 });
  return result(r.status, r.stdout, r.stderr);
}

/** Runs one command in this process, as `runCli` would in a new one. */
export async function cliInProcess(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const status = await runCommandLine(args, {
    env: cliEnv(env),
    out: (text) => (stdout += `${text}\n`),
    err: (text) => (stderr += `${text}\n`),
  });
  return result(status, stdout, stderr);
}
