/**
 * The local high-availability cluster of scripts/ha/cluster.sh, as the HA tests see it: its ports,
 * its members (Patroni's REST API), and the failures a test causes (a primary's PostgreSQL killed,
 * a switchover, a replica's replay paused). Without a running cluster the tests skip, unless
 * HA_REQUIRED=1 (set by `npm run test:ha`, which starts one) makes that a failure.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';

export const HA_DIR = process.env.HA_DIR || '/tmp/storefront-ha';
const BASE = Number(process.env.HA_PORT_BASE || 25400);
export const PRIMARY_PORT = BASE + 32;
export const REPLICA_PORT = BASE + 33;
const NODES = [1, 2, 3];
const restPort = (node: number) => BASE + 20 + node;
const pgPort = (node: number) => BASE + 10 + node;

export const primaryUrl = (database: string) => `postgres://postgres@127.0.0.1:${PRIMARY_PORT}/${database}`;
export const replicaUrl = (database: string) => `postgres://postgres@127.0.0.1:${REPLICA_PORT}/${database}`;
export const nodeUrl = (node: number, database: string) => `postgres://postgres@127.0.0.1:${pgPort(node)}/${database}`;

export interface Member {
  name: string;
  node: number;
  role: 'leader' | 'replica' | 'sync_standby' | string;
  state: string;
  lag?: number | string;
}

/** The cluster's members, from the first Patroni that answers. */
export async function members(): Promise<Member[]> {
  for (const node of NODES) {
    try {
      const response = await fetch(`http://127.0.0.1:${restPort(node)}/cluster`, { signal: AbortSignal.timeout(2000) });
      if (!response.ok) continue;
      const body = (await response.json()) as { members: Array<Omit<Member, 'node'>> };
      return body.members.map((m) => ({ ...m, node: Number(m.name.replace('node', '')) }));
    } catch {
      // that Patroni is down: ask the next
    }
  }
  return [];
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why the HA tests cannot run (false when the cluster answers); a failure with HA_REQUIRED=1. */
export async function clusterMissing(): Promise<string | false> {
  if (await answers(primaryUrl('postgres'))) return false;
  const why = `no HA cluster answers on 127.0.0.1:${PRIMARY_PORT} (start one with scripts/ha/cluster.sh up, or run npm run test:ha)`;
  if (process.env.HA_REQUIRED === '1') throw new Error(why);
  return why;
}

/** Waits until there is a leader, two running replicas, a synchronous standby, and HAProxy routes to them. */
export async function waitForHealthyCluster(timeoutMs = 90_000): Promise<Member[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await members();
    const running = list.filter((m) => m.state === 'running');
    const healthy =
      running.some((m) => m.role === 'leader') &&
      running.filter((m) => m.role !== 'leader').length === NODES.length - 1 &&
      running.some((m) => m.role === 'sync_standby');
    if (healthy && (await answers(primaryUrl('postgres'))) && (await answers(replicaUrl('postgres')))) return list;
    if (Date.now() > deadline) throw new Error(`the cluster did not become healthy within ${timeoutMs} ms: ${JSON.stringify(list)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function leader(): Promise<Member> {
  const found = (await members()).find((m) => m.role === 'leader');
  if (!found) throw new Error('the cluster has no leader');
  return found;
}

/** SIGKILL to a node's postmaster: the server dies at once, as in a crash (Patroni itself lives on). */
export function killPostgres(node: number): number {
  const pid = Number(readFileSync(`${HA_DIR}/node${node}/data/postmaster.pid`, 'utf8').split('\n')[0]);
  process.kill(pid, 'SIGKILL');
  return pid;
}

export function patronictl(...args: string[]): string {
  return execFileSync('runuser', ['-u', 'postgres', '--', 'patronictl', '-c', `${HA_DIR}/node1/patroni.yml`, ...args], { encoding: 'utf8', timeout: 120_000 });
}

/** Runs SQL on one node directly (not through HAProxy): a replica's replay, its sessions. */
export async function onNode<T extends pg.QueryResultRow>(node: number, database: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: nodeUrl(node, database), connectionTimeoutMillis: 3000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Drops and creates a database on the cluster's primary (retried while a failover settles). */
export async function freshDatabase(name: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ connectionString: primaryUrl('postgres'), connectionTimeoutMillis: 3000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.query(`create database "${name}"`);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      await client.end().catch(() => {});
    }
  }
}
