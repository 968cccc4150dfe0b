/**
 * Staff accounts (owner only, under /v1/admin/staff) and the staff member's own routes under
 * /v1/staff: accepting an invitation, signing in and out, changing one's password.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/app-error.js';
import { errorResponses } from '../../lib/http-schemas.js';
import { storeOf } from '../../plugins/authentication.js';
import type { Principal } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import * as S from './schemas.js';
import * as staff from './service.js';

const adminTags = ['admin', 'staff'];
const tags = ['staff'];

/** The staff session of a request (the access table admits only those on these routes). */
function sessionOf(principal: Principal | null): Extract<Principal, { kind: 'staff' }> & { sessionId: string } {
  if (principal?.kind !== 'staff' || principal.sessionId === null) throw new AppError('FORBIDDEN', 'this route needs a staff session');
  return principal as Extract<Principal, { kind: 'staff' }> & { sessionId: string };
}

const staffRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/staff',
    { schema: { operationId: 'adminListStaff', tags: adminTags, summary: 'List the store\'s staff (owner only)', response: { 200: S.StaffList, ...errorResponses([]) } } },
    async (request) => staff.listStaff(app.db, storeOf(request)),
  );
  registerCommand(app, {
    method: 'POST', url: '/v1/admin/staff', operationId: 'adminInviteStaff', tags: adminTags, summary: 'Invite a staff member (owner only)',
    description: 'Answers a one-time invitation secret (7 days, works once) to hand over; the person accepts it with POST /v1/staff/invitations/accept.',
    body: S.InviteStaffBody, status: 201, response: S.InvitedStaff, errors: ['CONFLICT'],
    run: ({ store, body }, { tx }) => staff.inviteStaff(tx, store, body),
  });
  registerCommand(app, {
    method: 'PATCH', url: '/v1/admin/staff/:id', operationId: 'adminUpdateStaff', tags: adminTags, summary: 'Change a staff member\'s role, or disable the account (owner only)',
    description: 'Disabling ends every session of the person at once. Demoting or disabling the last active owner is 409.',
    params: S.StaffParams, body: S.UpdateStaffBody, status: 200, response: S.StaffEnvelope, errors: ['NOT_FOUND', 'CONFLICT'],
    run: ({ store, params, body }, { tx }) => staff.updateStaff(tx, store, params.id, body),
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/staff/:id', operationId: 'adminDeleteStaff', tags: adminTags, summary: 'Remove a staff member (owner only)',
    description: 'Removing the last active owner is 409.',
    params: S.StaffParams, status: 200, response: S.StaffEnvelope, errors: ['NOT_FOUND', 'CONFLICT'],
    run: ({ store, params }, { tx }) => staff.deleteStaff(tx, store, params.id),
  });

  registerCommand(app, {
    method: 'POST', url: '/v1/staff/invitations/accept', operationId: 'acceptStaffInvitation', tags, summary: 'Accept an invitation: set a password and sign in (no token)',
    body: S.AcceptInvitationBody, status: 201, response: S.SessionEnvelope, errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],
    run: ({ body }, { tx }) => staff.acceptInvitation(tx, body),
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/staff/sessions', operationId: 'signInStaff', tags, summary: 'Sign in (no token): a session secret for /v1/admin/..., 12 hours',
    description: 'A wrong store, email or password is the same 401. After 5 failures for one store and email in 15 minutes, or 20 from one client, 429 for 15 minutes.',
    body: S.SignInBody, status: 201, response: S.SessionEnvelope, errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'RATE_LIMITED'],
    before: async (request: FastifyRequest) => {
      const body = request.body as S.SignInBody;
      const who = await staff.checkSignIn(app.db, { ...body, client: request.ip });
      request.principal = { kind: 'staff', store: who.store, staffId: who.staffId, email: who.email, role: who.role, sessionId: null, expiresAt: '', catalogVersion: 0, holdsVersion: 0 };
    },
    run: ({ principal }, { tx }) => {
      if (principal?.kind !== 'staff') throw staff.signInRefused();
      return staff.startSession(tx, { store: principal.store, staffId: principal.staffId, email: principal.email, role: principal.role });
    },
  });
  app.get(
    '/v1/staff/sessions/current',
    { schema: { operationId: 'getStaffSession', tags, summary: 'The signed-in staff member and session', response: { 200: S.CurrentSession, ...errorResponses([]) } } },
    async (request) => {
      const s = sessionOf(request.principal);
      return { session: { id: s.sessionId, staffId: s.staffId, store: s.store, email: s.email, role: s.role, expiresAt: s.expiresAt } };
    },
  );
  registerCommand(app, {
    method: 'DELETE', url: '/v1/staff/sessions/current', operationId: 'signOutStaff', tags, summary: 'Sign out: this session ends at once',
    status: 200, response: S.SignedOut, errors: [],
    run: ({ principal }, { tx }) => {
      const s = sessionOf(principal);
      return staff.endSession(tx, s.store, s.sessionId);
    },
  });
  registerCommand(app, {
    method: 'PUT', url: '/v1/staff/password', operationId: 'changeStaffPassword', tags, summary: 'Change one\'s password: every session of the person ends, this one included',
    body: S.ChangePasswordBody, status: 200, response: S.StaffEnvelope, errors: [],
    run: ({ principal, body }, { tx }) => {
      const s = sessionOf(principal);
      return staff.changePassword(tx, s.store, s.staffId, body);
    },
  });
};

export default staffRoutes;
