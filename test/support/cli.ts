/**
 * The command line run inside the test's own process (src/command-line.ts): the same parsing,
 * database and answers as `npm run cli`, without a new process's seconds of module loading per
 * call. `runCli` (server-process.ts) still runs the real process where a test is about the process.
 */
import { runCommandLine } from '../../src/command-line.js';
import { inheritedEnv } from './server-process.js';

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is JSON. */
  json: any;
}

/** Runs one command with the test environment plus `env`, as `runCli` would in a new process. */
export async function cliInProcess(env: Record<string, string>, ...args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const status = await runCommandLine(args, {
    env: { ...inheritedEnv(), SEED_DEMO: 'false', LOG_LEVEL: 'silent', ...env },
    out: (text) => (stdout += `${text}\n`),
    err: (text) => (stderr += `${text}\n`),
  });
  let json;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { status, stdout, stderr, json };
}
