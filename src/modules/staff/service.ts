/**
 * Staff accounts: invitations, sign-in, sessions, roles and the last-owner rule. Secrets are
 * random (256 bits) and kept only as SHA-256, like the store's tokens; a secret names its store
 * (`stf_<store>_...` for a session, `inv_<store>_...` for an invitation) so its lookup stays in
 * one store. Passwords are scrypt hashes (passwords.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Database, Executor } from '../../db/client.js';
import type { StaffRole } from '../../db/dashboard-schema.js';
import { AppError } from '../../lib/app-error.js';
import { toIso, toIsoOrNull } from '../../lib/time.js';
import { sha256Hex } from '../../lib/sha256.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from './passwords.js';
import * as repo from './repository.js';
import type { AcceptInvitationBody, ChangePasswordBody, InviteStaffBody, StaffView, UpdateStaffBody } from './schemas.js';

export const SESSION_TTL_SECONDS = 12 * 3600;
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;
/** Sign-in limits: failures per (store, email) and per client address within the window. */
export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const SIGN_IN_FAILURES_PER_EMAIL = 5;
export const SIGN_IN_FAILURES_PER_CLIENT = 20;

const SECRET_SHAPE = /^(stf|inv)_([a-z0-9][a-z0-9-]{1,62})_[A-Za-z0-9_-]{43}$/;

const newSecret = (prefix: 'stf' | 'inv', store: string) => `${prefix}_${store}_${randomBytes(32).toString('base64url')}`;
const hashOf = sha256Hex;

/** The store of a staff secret of this kind, or undefined when the secret is not shaped like one. */
function storeOf(secret: string, prefix: 'stf' | 'inv'): string | undefined {
  const match = SECRET_SHAPE.exec(secret);
  return match && match[1] === prefix ? match[2] : undefined;
}

/** True for a secret shaped like a staff session's (authentication asks this module for those). */
export const isSessionSecret = (secret: string) => storeOf(secret, 'stf') !== undefined;

export function staffView(row: repo.StaffRow): StaffView {
  return { id: row.id, email: row.email, role: row.role, status: row.status, createdAt: toIso(row.createdAt), lastSignInAt: toIsoOrNull(row.lastSignInAt) };
}

const notFound = (id: string) => new AppError('NOT_FOUND', `staff member ${id} not found`);
const invalid = (field: string, message: string) => new AppError('VALIDATION_FAILED', `${field} ${message}`, { errors: [{ field, message }] });

export async function inviteStaff(tx: Executor, store: string, body: InviteStaffBody) {
  const secret = newSecret('inv', store);
  const expiresAt = new Date(Date.now() + INVITATION_TTL_SECONDS * 1000);
  const row = await repo.insertInvited(tx, store, body.email.trim(), body.role, hashOf(secret), expiresAt);
  if (!row) throw new AppError('CONFLICT', `${body.email} already has an account in this store`, { errors: [{ field: '/email', message: 'already has an account in this store' }] });
  return { staff: staffView(row), invitation: { secret, expiresAt: toIso(expiresAt), url: `/admin/#/accept?secret=${encodeURIComponent(secret)}` } };
}

export async function listStaff(db: Executor, store: string) {
  const rows = await repo.listStaff(db, store);
  return { staff: rows.map(staffView), total: rows.length };
}

/** Refuses a change that would leave the store with no active owner. */
async function keepAnOwner(tx: Executor, store: string, row: repo.StaffRow, what: string): Promise<void> {
  if (row.role !== 'owner' || row.status !== 'active') return;
  if ((await repo.countActiveOwners(tx, store)) <= 1) throw new AppError('CONFLICT', `cannot ${what} the last active owner of the store; make another owner first`);
}

export async function updateStaff(tx: Executor, store: string, id: string, body: UpdateStaffBody) {
  await repo.lockStaffOf(tx, store);
  const row = await repo.findStaff(tx, store, id);
  if (!row) throw notFound(id);
  if (body.role === 'staff') await keepAnOwner(tx, store, row, 'demote');
  if (body.disabled === true) await keepAnOwner(tx, store, row, 'disable');
  const status = body.disabled === true ? 'disabled' : body.disabled === false && row.status === 'disabled' ? (row.passwordHash ? 'active' : 'invited') : undefined;
  const updated = await repo.updateStaff(tx, store, id, { role: body.role, status });
  if (status === 'disabled') await repo.revokeSessionsOf(tx, store, id);
  return { staff: staffView(updated!) };
}

export async function deleteStaff(tx: Executor, store: string, id: string) {
  await repo.lockStaffOf(tx, store);
  const row = await repo.findStaff(tx, store, id);
  if (!row) throw notFound(id);
  await keepAnOwner(tx, store, row, 'remove');
  return { staff: staffView((await repo.deleteStaff(tx, store, id))!) };
}

async function openSession(tx: Executor, store: string, staff: { id: string; email: string; role: StaffRole }) {
  const secret = newSecret('stf', store);
  const session = await repo.insertSession(tx, store, staff.id, hashOf(secret), SESSION_TTL_SECONDS);
  return { session: { id: session.id, staffId: staff.id, store, email: staff.email, role: staff.role, expiresAt: toIso(session.expiresAt) }, secret };
}

const invitationRefused = () =>
  new AppError('UNAUTHORIZED', 'this invitation is unknown, was already used or has expired; ask an owner for a new one', { errors: [{ field: '/secret', message: 'is unknown, used or expired' }] });

export async function acceptInvitation(tx: Executor, body: AcceptInvitationBody) {
  const store = storeOf(body.secret, 'inv');
  if (!store) throw invitationRefused();
  const row = await repo.acceptInvitation(tx, hashOf(body.secret), await hashPassword(body.password));
  if (!row || row.store !== store) throw invitationRefused();
  return openSession(tx, store, row);
}

/** The staff member a sign-in names (the route's credential check), for the session it then opens. */
export interface SignedIn {
  store: string;
  staffId: string;
  email: string;
  role: StaffRole;
}

export const signInRefused = () => new AppError('UNAUTHORIZED', 'the store, email or password is wrong', { headers: { 'www-authenticate': 'Bearer realm="storefront"' } });

/**
 * Checks a sign-in: the limits first (429 with Retry-After), then the password. Every refusal is
 * the same 401 and costs one scrypt, whether the store or the email exists or not. An attempt is
 * counted as a failure before its password is checked and taken back when it succeeds.
 */
export async function checkSignIn(db: Database, input: { store: string; email: string; password: string; client: string }): Promise<SignedIn> {
  const reservation = await repo.reserveAttempt(
    db,
    [
      { key: `email:${input.store}:${input.email.trim().toLowerCase()}`, limit: SIGN_IN_FAILURES_PER_EMAIL },
      { key: `client:${input.client}`, limit: SIGN_IN_FAILURES_PER_CLIENT },
    ],
    SIGN_IN_WINDOW_SECONDS,
  );
  if ('retryAfter' in reservation) {
    throw new AppError('RATE_LIMITED', `too many failed sign-ins; try again in ${Math.ceil(reservation.retryAfter / 60)} minutes`, { headers: { 'retry-after': String(reservation.retryAfter) } });
  }
  const row = await repo.findByEmail(db, input.store, input.email.trim());
  const usable = row && row.status === 'active' && row.passwordHash ? row : undefined;
  const matches = await verifyPassword(input.password, usable?.passwordHash ?? DUMMY_HASH);
  if (!usable || !matches) throw signInRefused();
  await repo.releaseAttempt(db, reservation.reserved);
  return { store: input.store, staffId: usable.id, email: usable.email, role: usable.role };
}

export async function startSession(tx: Executor, who: SignedIn) {
  const row = await repo.updateStaff(tx, who.store, who.staffId, { lastSignIn: true });
  if (!row || row.status !== 'active') throw signInRefused();
  return openSession(tx, who.store, row);
}

export async function endSession(tx: Executor, store: string, sessionId: string) {
  await repo.revokeSession(tx, store, sessionId);
  return { signedOut: true };
}

/** A new password ends every session of the person, this one included: they sign in again. */
export async function changePassword(tx: Executor, store: string, staffId: string, body: ChangePasswordBody) {
  const row = await repo.findStaff(tx, store, staffId);
  if (!row?.passwordHash || !(await verifyPassword(body.current, row.passwordHash))) throw invalid('/current', 'is not your current password');
  if (body.current === body.password) throw invalid('/password', 'must differ from the current one');
  const updated = await repo.updateStaff(tx, store, staffId, { passwordHash: await hashPassword(body.password) });
  await repo.revokeSessionsOf(tx, store, staffId);
  return { staff: staffView(updated!) };
}

export async function me(db: Executor, store: string, staffId: string) {
  const row = await repo.findStaff(db, store, staffId);
  if (!row) throw notFound(staffId);
  return { staff: staffView(row) };
}

/** The staff member a session secret names (`secretHash`: its SHA-256, as kept), or undefined for an unknown, ended or expired one. */
export async function authenticateSession(db: Executor, secret: string, secretHash: string) {
  const store = storeOf(secret, 'stf');
  if (!store) return undefined;
  const live = await repo.findLiveSession(db, store, secretHash);
  return live ? { store, ...live } : undefined;
}

/**
 * An owner made outside HTTP (the CLI, the demo seed): active at once with the given password.
 * Answers undefined when the email already has an account in the store.
 */
export async function createOwner(tx: Executor, store: string, email: string, password: string) {
  if (password.length < 12 || password.length > 200) throw invalid('/password', 'must be 12 to 200 characters');
  const row = await repo.insertActive(tx, store, email, 'owner', await hashPassword(password));
  return row ? staffView(row) : undefined;
}

/** A random password for an account the machine makes (the demo store's owner). */
export const newPassword = () => randomBytes(12).toString('base64url');

export { purgeStaffLeftovers } from './repository.js';
