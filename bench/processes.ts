/**
 * The benchmark's server processes, shared by `run.ts` and `two-builds.ts`: the settings a server
 * runs with, and what /proc says a process used.
 */
import { readFileSync } from 'node:fs';
import { BENCH_SECRETS_KEY } from './payments.js';

/** Connections of the server's pool (and of the bare-SQL ceiling's). */
export const POOL = 20;

/** The server's settings in the benchmark: limits off, so that the load measures the work. */
export function serverEnvOf(env: Record<string, string>, port: number, more: Record<string, string> = {}): Record<string, string> {
  return {
    ...env, PORT: String(port), HOST: '127.0.0.1', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', SEED_DEMO: 'false', LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', CLIENT_RATE_LIMIT_PER_MINUTE: '0',
    ORDER_RATE_LIMIT_PER_MINUTE: '0', HOLDS_PER_CLIENT: '0', UNPAID_ORDERS_PER_CLIENT: '0', DISCOUNT_ATTEMPTS_PER_MINUTE: '0', MAINTENANCE_INTERVAL_SECONDS: '0', PAYMENT_JOB_INTERVAL_SECONDS: '0', SECRETS_KEY: BENCH_SECRETS_KEY, DB_POOL_SIZE: String(POOL), ...more,
  };
}

/** A process's /proc stat fields from the third (its state) on: [1] is its parent, [11] and [12] its user and system time, [13] and [14] its reaped children's. */
export const statFields = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/** CPU time a process has used so far (user and system), in ms: /proc counts it in clock ticks of 10 ms. */
export function cpuMs(pid: number): number {
  const fields = statFields(pid);
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
