import { Type, type Static } from '@sinclair/typebox';
import { NullableTimestamp, StringEnum, Timestamp, Uuid } from '../../lib/http-schemas.js';

const Email = (description = 'an email address; unique per store, whatever its case') =>
  Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$', description });
const Password = (description = '12 to 200 characters') => Type.String({ minLength: 12, maxLength: 200, description });
const Role = StringEnum(['owner', 'staff'] as const, { description: '`owner`: everything an admin token can do; `staff`: the catalog, orders, discounts, shipping, taxes and images' });

export const Staff = Type.Object({
  id: Uuid('staff id'),
  email: Type.String(),
  role: Role,
  status: StringEnum(['invited', 'active', 'disabled'] as const),
  createdAt: Timestamp(),
  lastSignInAt: NullableTimestamp('the last sign-in, or null'),
});
export type StaffView = Static<typeof Staff>;

export const StaffParams = Type.Object({ id: Uuid('staff id') });
export const InviteStaffBody = Type.Object({ email: Email(), role: Role }, { additionalProperties: false });
export type InviteStaffBody = Static<typeof InviteStaffBody>;
export const UpdateStaffBody = Type.Object(
  { role: Type.Optional(Role), disabled: Type.Optional(Type.Boolean({ description: 'true ends every session of this person and refuses sign-in' })) },
  { additionalProperties: false },
);
export type UpdateStaffBody = Static<typeof UpdateStaffBody>;

export const Invitation = Type.Object({
  secret: Type.String({ description: 'shown once: hand it to the person (the dashboard link carries it); works once, for 7 days' }),
  expiresAt: Timestamp(),
  url: Type.String({ description: 'the dashboard page that accepts it, relative to the service' }),
});
export const InvitedStaff = Type.Object({ staff: Staff, invitation: Invitation });
export const StaffEnvelope = Type.Object({ staff: Staff });
export const StaffList = Type.Object({ staff: Type.Array(Staff), total: Type.Integer() });

export const AcceptInvitationBody = Type.Object({ secret: Type.String({ minLength: 1, maxLength: 200 }), password: Password() }, { additionalProperties: false });
export type AcceptInvitationBody = Static<typeof AcceptInvitationBody>;
export const SignInBody = Type.Object(
  { store: Type.String({ minLength: 1, maxLength: 63 }), email: Type.String({ minLength: 1, maxLength: 254 }), password: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
export type SignInBody = Static<typeof SignInBody>;
export const ChangePasswordBody = Type.Object({ current: Type.String({ minLength: 1, maxLength: 200 }), password: Password() }, { additionalProperties: false });
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const Session = Type.Object({
  id: Uuid('session id'),
  staffId: Uuid('staff id'),
  store: Type.String(),
  email: Type.String(),
  role: Role,
  expiresAt: Timestamp('12 hours after sign-in'),
});
export const SessionEnvelope = Type.Object({ session: Session, secret: Type.String({ description: 'the bearer credential for /v1/admin/..., shown once' }) });
export const CurrentSession = Type.Object({ session: Session });
export const SignedOut = Type.Object({ signedOut: Type.Boolean() });
