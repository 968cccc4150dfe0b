/**
 * What the dashboard needs: staff accounts, their sessions and sign-in failures, and uploaded
 * images. Kept apart from schema.ts so each file stays readable; drizzle.config.ts lists it.
 */
import { sql } from 'drizzle-orm';
import { check, customType, index, integer, primaryKey, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { stores } from './schema.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: 'date' });
const store = () => text('store').notNull().references(() => stores.slug);
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

export const STAFF_ROLES = ['owner', 'staff'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/**
 * A person who works on a store. `invited` until the invitation is accepted (a password is set),
 * then `active`; `disabled` ends every session and refuses sign-in. Only hashes are kept: the
 * password's (scrypt, with its parameters) and the invitation secret's (SHA-256).
 */
export const staff = pgTable(
  'staff',
  {
    store: store(),
    id: uuid('id').notNull().default(sql`uuid_v7()`),
    email: text('email').notNull(),
    role: text('role', { enum: STAFF_ROLES }).notNull(),
    status: text('status', { enum: ['invited', 'active', 'disabled'] }).notNull().default('invited'),
    passwordHash: text('password_hash'),
    invitationHash: text('invitation_hash'),
    invitationExpiresAt: ts('invitation_expires_at'),
    createdAt: ts('created_at').notNull().defaultNow(),
    lastSignInAt: ts('last_sign_in_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    // One account per email and store, whatever its case.
    uniqueIndex('staff_store_email_key').on(t.store, sql`lower(${t.email})`),
    uniqueIndex('staff_invitation_hash_key').on(t.invitationHash),
    check('staff_role_check', sql`${t.role} in ('owner', 'staff')`),
    check('staff_status_check', sql`${t.status} in ('invited', 'active', 'disabled')`),
  ],
);

/** A signed-in staff member: the SHA-256 of the bearer secret, 12 hours, ended by sign-out, a password change or disabling. */
export const staffSessions = pgTable(
  'staff_sessions',
  {
    store: store(),
    id: uuid('id').notNull().default(sql`uuid_v7()`),
    staffId: uuid('staff_id').notNull(),
    secretHash: text('secret_hash').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
    expiresAt: ts('expires_at').notNull(),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    primaryKey({ columns: [t.store, t.id] }),
    uniqueIndex('staff_sessions_store_secret_hash_key').on(t.store, t.secretHash),
    index('staff_sessions_store_staff_idx').on(t.store, t.staffId),
  ],
);

/**
 * Sign-in attempts that count against the limits, shared by every process: `key` is
 * `email:<store>:<email>` or `client:<address>`. A row is written before the password is checked
 * (so concurrent guesses cannot all slip under the limit) and deleted when the attempt succeeds.
 */
export const staffSignInFailures = pgTable(
  'staff_sign_in_failures',
  {
    key: text('key').notNull(),
    id: uuid('id').notNull().default(sql`uuid_v7()`),
    at: ts('at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.key, t.id] }), index('staff_sign_in_failures_key_at_idx').on(t.key, t.at)],
);

/** An uploaded picture, kept in the database so every process and replica serves it. */
export const images = pgTable(
  'images',
  {
    store: store(),
    id: uuid('id').notNull().default(sql`uuid_v7()`),
    contentType: text('content_type').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    bytes: integer('bytes').notNull(),
    data: bytea('data').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.store, t.id] })],
);
