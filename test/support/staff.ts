/** Staff accounts through the API: an invitation by the store's admin token, accepted with a password. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestApp } from './app.js';
import type { TestStore } from './factories.js';

export const STAFF_PASSWORD = 'correct horse battery';

export interface SignedInStaff {
  id: string;
  email: string;
  password: string;
  /** The session secret: a bearer credential. */
  secret: string;
}

/** A new active account of `role` in the store, signed in (its first session, from the invitation). */
export async function staffMember(t: TestApp, store: TestStore, role: 'owner' | 'staff', email = `${role}-${randomUUID().slice(0, 8)}@shop.example`): Promise<SignedInStaff> {
  const invited = await t.request('POST', '/api/v1/admin/staff', { token: store.admin, body: { email, role } });
  assert.equal(invited.status, 201, invited.text);
  const accepted = await t.request('POST', '/api/v1/staff/invitations/accept', { body: { secret: invited.json.invitation.secret, password: STAFF_PASSWORD } });
  assert.equal(accepted.status, 201, accepted.text);
  return { id: invited.json.staff.id, email, password: STAFF_PASSWORD, secret: accepted.json.secret };
}
