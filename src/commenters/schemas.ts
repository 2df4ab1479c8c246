import { Type } from 'typebox';
import { NextCursor, PageQuery } from '../http/cursor.ts';
import { IdParams, Nullable, Timestamp } from '../http/schemas.ts';
import { BAN_TYPES } from '../moderation/bans.ts';
import { Actor, QueueItem, Reason } from '../moderation/schemas.ts';
import { SIGN_IN_TYPES } from '../readers/me/schemas.ts';
import { NAME_PATTERN } from '../comments/text.ts';
import { MAX_LABEL, MAX_LABELS } from './labels.ts';

const Id = IdParams.properties.id;
export const UserParams = Type.Object({ id: Id, user_id: Id });
export const NoteParams = Type.Object({ id: Id, user_id: Id, note_id: Id });
export const BanParams = Type.Object({ id: Id, ban_id: Id });

export const MAX_NOTE = 2000;
const Count = Type.Integer({ minimum: 0 });

export const BanSchema = Type.Object({
  id: Type.String(),
  site_id: Type.String(),
  user_id: Type.String(),
  ban_type: Type.Enum([...BAN_TYPES]),
  reason: Nullable(Type.String()),
  created_at: Timestamp,
  expires_at: Nullable(Timestamp, { description: 'An outright ban stops applying then; null: never' }),
});

export const ListedBan = Type.Object({
  ...BanSchema.properties,
  user_name: Nullable(Type.String()),
  created_by: Actor,
  active: Type.Boolean({ description: 'Not expired' }),
});

export const NewBanBody = Type.Object({
  user_id: Type.String({ maxLength: 100, description: 'usr_<id> of a site user' }),
  ban_type: Type.Optional(Type.Enum([...BAN_TYPES], { default: 'ban' })),
  reason: Type.Optional(Nullable(Reason)),
  expires_at: Type.Optional(Nullable(Type.String({ format: 'date-time', description: "A time in the future; outright bans only (a timed ban lifts itself)" }))),
});

export const BanListQuery = Type.Object({
  user_id: Type.Optional(Type.String({ maxLength: 100 })),
  active: Type.Optional(Type.Boolean({ description: 'Only bans in force (true) or expired ones (false)' })),
  ...PageQuery,
});

export const BanList = Type.Object({ bans: Type.Array(ListedBan), next_cursor: NextCursor });

export const NoteSchema = Type.Object({ id: Type.String(), body: Type.String(), created_by: Actor, created_at: Timestamp });

export const NewNoteBody = Type.Object({ body: Type.String({ maxLength: MAX_NOTE * 4, description: `1 to ${MAX_NOTE} characters, seen by the site's moderators` }) });

export const Profile = Type.Object({
  id: Type.String(),
  external_id: Type.String({ description: "The site's own id of the user" }),
  name: Type.String(),
  avatar_url: Nullable(Type.String()),
  created_at: Timestamp,
  first_comment_at: Nullable(Timestamp),
  erased_at: Nullable(Timestamp, { description: 'When an admin erased the personal data (DELETE /api/sites/{id}/users/{user_id}); null if never' }),
  labels: Type.Array(Type.String(), { description: "Given by the site's moderators; the user's comments show them after their other badges" }),
  own_account: Type.Boolean({ description: "Signed in by themselves (a mailed code, the site's identity providers); false for the site's SSO or backend users, who sign in through the site" }),
  sign_in_methods: Type.Array(
    Type.Object({
      type: Type.Enum([...SIGN_IN_TYPES], { description: "'email': a code mailed to their address; else the identity provider's type" }),
      provider_name: Nullable(Type.String(), { description: "The identity provider's name; null for email" }),
      created_at: Timestamp,
      last_used_at: Timestamp,
    }),
    { description: 'How the reader signs in, oldest first; empty for the site\'s users (own_account false) and once erased' },
  ),
  comments: Type.Object({ published: Count, pending: Count, removed: Count, spam: Count }),
  recent_comments: Type.Array(QueueItem, { description: 'The newest 10, as the moderation queue shows them' }),
  bans: Type.Array(ListedBan),
  notes: Type.Array(NoteSchema, { description: 'Newest first' }),
});

export const ModerateUserBody = Type.Object({
  action: Type.Union([Type.Literal('remove'), Type.Literal('spam')]),
  reason: Type.Optional(Nullable(Reason)),
});

export const ModeratedUser = Type.Object({
  user_id: Type.String(),
  action: Type.String(),
  moderated: Type.Integer({ description: 'Comments whose status this changed' }),
});

export const LabelsBody = Type.Object({
  labels: Type.Array(Type.String({ maxLength: MAX_LABEL * 4, pattern: NAME_PATTERN }), {
    maxItems: MAX_LABELS,
    description:
      `The user's labels, in place of those they had (an empty list takes them all away): up to ${MAX_LABELS}, each 1 to ${MAX_LABEL} characters ` +
      'on one line, none twice whatever the case, and none of staff, moderator, verified (badges that only how a comment was written gives)',
  }),
});
