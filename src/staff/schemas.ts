import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.ts';
import { LOCALES } from '../i18n/locales.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.ts';
import { STAFF_ROLES } from './repository.ts';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const Email = Type.String({ format: 'email', maxLength: 254 });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
/** A password being proved: bounded so that no body makes hashing costly; new ones are checked further. */
const Password = Type.String({ minLength: 1, maxLength: 1000 });
const NewPassword = Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH, description: `${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters` });
const LinkToken = Type.String({ minLength: 1, maxLength: 200, description: 'The part of the link after #token=' });
const StaffRoleSchema = Type.Enum([...STAFF_ROLES]);
const SiteIds = Nullable(Type.Array(Id, { maxItems: 100, description: 'Moderators only: the sites they moderate; null: every site' }));

export const AccountParams = Type.Object({ id: Id });
export const MemberParams = Type.Object({ id: Id, staffId: Id });
export const InviteParams = Type.Object({ id: Id, inviteId: Id });
export const SessionParams = Type.Object({ id: Id });
export const MeQuery = Type.Object({
  if_signed_in: Type.Optional(Type.Boolean({ description: 'true: answer 204 with no body, not 401, when nobody is signed in' })),
});

const EmailVerified = Type.Boolean({ description: 'Whether the person confirmed the address by the link mailed to it; until then no mail goes to it' });
const StaffSchema = Type.Object({ id: Type.String({ description: 'stf_<id>' }), email: Type.String(), email_verified: EmailVerified, name: Type.String() });

const MembershipSchema = Type.Object({ account_id: Type.String(), role: StaffRoleSchema, site_ids: Nullable(Type.Array(Type.String())) });

const StaffLanguageSchema = Nullable(Type.Enum([...LOCALES], { description: 'A language Parley speaks' }));
export const StaffLanguage = Type.Object({
  language: { ...StaffLanguageSchema, description: "The language of your dashboard and of Parley's mails to you; null: your browser's (mails: the site's)" },
});

export const SignedInSchema = Type.Object({
  staff: StaffSchema,
  language: StaffLanguage.properties.language,
  memberships: Type.Array(Type.Object({ ...MembershipSchema.properties, account_name: Type.String() })),
  csrf_token: Type.String({ description: 'Send as X-CSRF-Token with every POST, PATCH and DELETE made with the cookie' }),
  session: Type.Object({ id: Type.String({ description: 'sts_<id>' }), created_at: Timestamp, expires_at: Timestamp }),
});

export const LoginBody = Type.Object({ email: Email, password: Password });

export const StaffSessionSchema = Type.Object({
  id: Type.String(),
  ip: Type.String({ description: 'The address it was opened from' }),
  user_agent: Nullable(Type.String()),
  created_at: Timestamp,
  expires_at: Timestamp,
  revoked_at: Nullable(Timestamp),
  current: Type.Boolean({ description: 'The session of this request' }),
});

export const PasswordChangeBody = Type.Object({ current_password: Password, new_password: NewPassword });
export const PasswordChanged = Type.Object({ ended_sessions: Type.Integer({ description: 'Other sessions this ended' }) });

export const AcceptInviteBody = Type.Object({
  token: LinkToken,
  email: Type.Optional(Email),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'For a new staff member' })),
  password: Password,
});
export const SetupBody = Type.Object({ token: LinkToken, email: Email, name: Type.String({ minLength: 1, maxLength: 100 }), password: Password });
export const Joined = Type.Object({ staff: StaffSchema, membership: MembershipSchema });

export const ConfirmationSent = Type.Object({
  email: Type.String({ description: 'The address the new link was mailed to: your own' }),
  expires_at: Type.String({ format: 'date-time', description: 'When the new link stops working (7 days)' }),
});

export const ResetBody = Type.Object({ token: LinkToken, password: NewPassword });
export const ResetDone = Type.Object({ staff: StaffSchema, ended_sessions: Type.Integer() });

export const MemberSchema = Type.Object({
  id: Type.String({ description: 'stf_<id>' }),
  email: Type.String(),
  email_verified: EmailVerified,
  name: Type.String(),
  role: StaffRoleSchema,
  site_ids: Nullable(Type.Array(Type.String())),
  joined_at: Timestamp,
});
export const MemberChangeBody = Type.Object({ role: Type.Optional(StaffRoleSchema), site_ids: Type.Optional(SiteIds) });

export const InviteSchema = Type.Object({
  id: Type.String({ description: 'inv_<id>' }),
  role: StaffRoleSchema,
  site_ids: Nullable(Type.Array(Type.String())),
  email: Nullable(Type.String({ description: 'Only this address may accept it' })),
  state: Type.Enum(['pending', 'used', 'revoked', 'expired']),
  created_by: Type.String({ description: 'The staff member (stf_) or key (key_) that made it' }),
  created_at: Timestamp,
  expires_at: Timestamp,
  used_by: Nullable(Type.String()),
});
export const NewInviteBody = Type.Object({ role: StaffRoleSchema, site_ids: Type.Optional(SiteIds), email: Type.Optional(Email) });
const Link = {
  token: Type.String({ description: 'Shown in this response only' }),
  url: Type.String({ description: 'The link to hand over; the token is in its #fragment' }),
};
export const NewInviteSchema = Type.Object({ ...InviteSchema.properties, ...Link });

export const ResetLinkSchema = Type.Object({ id: Type.String({ description: 'rst_<id>' }), staff_id: Type.String(), ...Link, created_at: Timestamp, expires_at: Timestamp });

export const AuditQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});
export const AuditLogSchema = Type.Object({
  entries: Type.Array(
    Type.Object({
      id: Type.String(),
      actor: Type.Object({ id: Type.String({ description: 'stf_ (a person), key_ (an API key) or cli' }), name: Type.String() }),
      action: Type.String({ description: 'member.invited, member.joined, member.changed, member.removed, member.left, invite.revoked, member.reset_link_issued, member.password_reset, member.created' }),
      target: Nullable(Type.String()),
      data: Type.Record(Type.String(), Type.Unknown()),
      created_at: Timestamp,
    }),
  ),
  total: Type.Integer(),
  page: Type.Integer(),
});
