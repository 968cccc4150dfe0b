/** Staff SQL: accounts, sessions and sign-in failures (this module's tables only). */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import type { StaffRole } from '../../db/dashboard-schema.js';
import { catalogVersionOf, holdsVersionOf } from '../stores/index.js';

export interface StaffRow {
  id: string;
  store: string;
  email: string;
  role: StaffRole;
  status: 'invited' | 'active' | 'disabled';
  passwordHash: string | null;
  createdAt: Date | string;
  lastSignInAt: Date | string | null;
}

const COLUMNS = sql`id, store, email, role, status, password_hash as "passwordHash", created_at as "createdAt", last_sign_in_at as "lastSignInAt"`;

export async function insertInvited(tx: Executor, store: string, email: string, role: StaffRole, invitationHash: string, expiresAt: Date): Promise<StaffRow | undefined> {
  const [row] = await queryRows<StaffRow>(
    tx,
    sql`insert into staff (store, email, role, status, invitation_hash, invitation_expires_at)
        values (${store}, ${email}, ${role}, 'invited', ${invitationHash}, ${expiresAt.toISOString()})
        on conflict do nothing returning ${COLUMNS}`,
  );
  return row;
}

/** An active account with a password (a staff member the CLI or the demo seed makes). */
export async function insertActive(tx: Executor, store: string, email: string, role: StaffRole, passwordHash: string): Promise<StaffRow | undefined> {
  const [row] = await queryRows<StaffRow>(
    tx,
    sql`insert into staff (store, email, role, status, password_hash) values (${store}, ${email}, ${role}, 'active', ${passwordHash})
        on conflict do nothing returning ${COLUMNS}`,
  );
  return row;
}

export async function listStaff(db: Executor, store: string): Promise<StaffRow[]> {
  return queryRows<StaffRow>(db, sql`select ${COLUMNS} from staff where store = ${store} order by created_at, id`);
}

export async function findStaff(db: Executor, store: string, id: string): Promise<StaffRow | undefined> {
  const [row] = await queryRows<StaffRow>(db, sql`select ${COLUMNS} from staff where store = ${store} and id = ${id}`);
  return row;
}

export async function findByEmail(db: Executor, store: string, email: string): Promise<StaffRow | undefined> {
  const [row] = await queryRows<StaffRow>(db, sql`select ${COLUMNS} from staff where store = ${store} and lower(email) = lower(${email})`);
  return row;
}

/** Serializes the changes of one store's accounts, so the last-owner rule holds under concurrent requests. */
export async function lockStaffOf(tx: Executor, store: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`staff:${store}`}))`);
}

export async function countActiveOwners(tx: Executor, store: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from staff where store = ${store} and role = 'owner' and status = 'active'`);
  return row!.n;
}

export async function updateStaff(tx: Executor, store: string, id: string, set: { role?: StaffRole; status?: StaffRow['status']; passwordHash?: string; lastSignIn?: boolean }): Promise<StaffRow | undefined> {
  const [row] = await queryRows<StaffRow>(
    tx,
    sql`update staff set
          role = coalesce(${set.role ?? null}, role),
          status = coalesce(${set.status ?? null}, status),
          password_hash = coalesce(${set.passwordHash ?? null}, password_hash),
          last_sign_in_at = case when ${set.lastSignIn === true} then now() else last_sign_in_at end
        where store = ${store} and id = ${id} returning ${COLUMNS}`,
  );
  return row;
}

export async function deleteStaff(tx: Executor, store: string, id: string): Promise<StaffRow | undefined> {
  await tx.execute(sql`delete from staff_sessions where store = ${store} and staff_id = ${id}`);
  const [row] = await queryRows<StaffRow>(tx, sql`delete from staff where store = ${store} and id = ${id} returning ${COLUMNS}`);
  return row;
}

/** Takes an invitation: once, before it expires. Answers the account it activated. */
export async function acceptInvitation(tx: Executor, invitationHash: string, passwordHash: string): Promise<StaffRow | undefined> {
  const [row] = await queryRows<StaffRow>(
    tx,
    sql`update staff set status = 'active', password_hash = ${passwordHash}, invitation_hash = null, invitation_expires_at = null, last_sign_in_at = now()
        where invitation_hash = ${invitationHash} and status = 'invited' and invitation_expires_at > now()
        returning ${COLUMNS}`,
  );
  return row;
}

export interface SessionRow {
  id: string;
  expiresAt: Date | string;
}

export async function insertSession(tx: Executor, store: string, staffId: string, secretHash: string, ttlSeconds: number): Promise<SessionRow> {
  const [row] = await queryRows<SessionRow>(
    tx,
    sql`insert into staff_sessions (store, staff_id, secret_hash, expires_at) values (${store}, ${staffId}, ${secretHash}, now() + make_interval(secs => ${ttlSeconds}))
        returning id, expires_at as "expiresAt"`,
  );
  return row!;
}

export async function revokeSession(tx: Executor, store: string, id: string): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(tx, sql`update staff_sessions set revoked_at = now() where store = ${store} and id = ${id} and revoked_at is null returning id`);
  return rows.length > 0;
}

export async function revokeSessionsOf(tx: Executor, store: string, staffId: string): Promise<void> {
  await tx.execute(sql`update staff_sessions set revoked_at = now() where store = ${store} and staff_id = ${staffId} and revoked_at is null`);
}

export interface LiveSession {
  sessionId: string;
  expiresAt: Date | string;
  staffId: string;
  email: string;
  role: StaffRole;
  catalogVersion: number;
  holdsVersion: number;
}

/** The live session of a secret: not revoked, not expired, its account active. */
export async function findLiveSession(db: Executor, store: string, secretHash: string): Promise<LiveSession | undefined> {
  const [row] = await queryRows<LiveSession>(
    db,
    sql`select s.id as "sessionId", s.expires_at as "expiresAt", p.id as "staffId", p.email, p.role, ${catalogVersionOf(sql.raw('s.store'))} as "catalogVersion", ${holdsVersionOf(sql.raw('s.store'))} as "holdsVersion"
        from staff_sessions s join staff p on p.store = s.store and p.id = s.staff_id
        where s.store = ${store} and s.secret_hash = ${secretHash} and s.revoked_at is null and s.expires_at > now() and p.status = 'active'`,
  );
  return row ? { ...row, catalogVersion: Number(row.catalogVersion), holdsVersion: Number(row.holdsVersion) } : undefined;
}

/**
 * Reserves a sign-in attempt under each key, unless a key already has its limit of failures in
 * the window: then answers the seconds until it has room again. Each key is locked (advisory, in
 * key order) for the count and the insert, so concurrent attempts cannot all slip under a limit.
 */
export async function reserveAttempt(
  db: Executor,
  keys: Array<{ key: string; limit: number }>,
  windowSeconds: number,
): Promise<{ reserved: Array<{ key: string; id: string }> } | { retryAfter: number }> {
  return db.transaction(async (tx) => {
    for (const { key } of keys) await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`sign-in:${key}`}))`);
    for (const { key, limit } of keys) {
      const [full] = await queryRows<{ wait: number }>(
        tx,
        sql`select ceil(extract(epoch from (at + make_interval(secs => ${windowSeconds}) - now())))::int as wait
            from staff_sign_in_failures where key = ${key} and at > now() - make_interval(secs => ${windowSeconds})
            order by at desc offset ${limit - 1} limit 1`,
      );
      if (full) return { retryAfter: Math.max(1, full.wait) };
    }
    const reserved: Array<{ key: string; id: string }> = [];
    for (const { key } of keys) {
      const [row] = await queryRows<{ id: string }>(tx, sql`insert into staff_sign_in_failures (key) values (${key}) returning id`);
      reserved.push({ key, id: row!.id });
    }
    return { reserved };
  });
}

/** A successful attempt is not a failure: its reservations are taken back. */
export async function releaseAttempt(db: Executor, reserved: Array<{ key: string; id: string }>): Promise<void> {
  for (const { key, id } of reserved) await db.execute(sql`delete from staff_sign_in_failures where key = ${key} and id = ${id}`);
}

/** Drops failures past the window and sessions past their end (a maintenance job). */
export async function purgeStaffLeftovers(db: Executor, windowSeconds: number): Promise<void> {
  await db.execute(sql`delete from staff_sign_in_failures where at < now() - make_interval(secs => ${windowSeconds})`);
  await db.execute(sql`delete from staff_sessions where expires_at < now() - interval '1 day'`);
}
