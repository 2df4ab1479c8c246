import { Type } from 'typebox';
import { NextCursor } from '../http/cursor.ts';
import { Nullable, Timestamp } from '../http/schemas.ts';

const SiteId = Type.String({ maxLength: 100, description: "The site of the reader's session" });
const ThreadUrl = Type.String({ maxLength: 4096, description: 'Absolute http(s) URL of the page, on one of the site\'s domains' });
const Cursor = Type.Optional(Type.String({ maxLength: 1000, description: 'next_cursor of the previous page' }));

export const Follow = Type.Object({
  id: Type.String({ description: 'fol_<id>: DELETE /v1/follows/{id} stops following' }),
  site_id: Type.String(),
  thread_url: Type.String(),
  thread_title: Nullable(Type.String(), { description: "The page's title as the site set it; null when it has none" }),
  created_at: Timestamp,
});

export const FollowBody = Type.Object({ site_id: SiteId, thread_url: ThreadUrl });

export const FollowsQuery = Type.Object({
  site_id: SiteId,
  thread_url: Type.Optional(Type.String({ maxLength: 4096, description: "Only the follow of this page (none, or one): whether the reader follows it" })),
  cursor: Cursor,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

export const FollowList = Type.Object({ follows: Type.Array(Follow, { description: 'Newest first' }), next_cursor: NextCursor });

export const NOTIFICATION_KINDS = ['reply', 'mention', 'followed_thread', 'moderation'] as const;
export const NOTICE_ACTIONS = ['held', 'approved', 'removed', 'spam', 'contest_upheld'] as const;

export const Notification = Type.Object({
  id: Type.String({ description: 'ntf_<id>' }),
  kind: Type.Enum([...NOTIFICATION_KINDS], {
    description:
      "'reply': a reply to one of the reader's comments; 'mention': a comment mentions them; 'followed_thread': a new comment in a thread they follow; " +
      "'moderation': a moderator's decision on one of their comments (action, reason)",
  }),
  comment_id: Type.String({ description: 'The comment it is about: open it at thread_url#parley_comment={comment_id}' }),
  thread_url: Type.String(),
  thread_title: Nullable(Type.String()),
  created_at: Timestamp,
  read: Type.Boolean(),
  author_name: Type.String({ description: "The comment's author as the public sees them" }),
  excerpt: Type.String({ description: "At most 140 characters of the comment's text; empty when the public cannot see the comment" }),
  action: Type.Optional(
    Type.Enum([...NOTICE_ACTIONS], {
      description: "moderation only: 'held' (waits for a moderator), 'approved', 'removed', 'spam', or 'contest_upheld' (the reader contested a decision and it stands)",
    }),
  ),
  reason: Type.Optional(Nullable(Type.String(), { description: "moderation only: the moderator's reason, or null when none was given" })),
});

export const NotificationsQuery = Type.Object({
  site_id: SiteId,
  cursor: Cursor,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  unread_only: Type.Optional(Type.Boolean({ default: false, description: 'Only those not read yet' })),
});

const Unread = Type.Integer({ minimum: 0, description: "The reader's unread notifications on the site" });

export const NotificationList = Type.Object({
  notifications: Type.Array(Notification, { description: 'Newest first' }),
  next_cursor: NextCursor,
  unread: Unread,
});

export const ReadBody = Type.Object(
  {
    site_id: SiteId,
    ids: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { minItems: 1, maxItems: 100, description: "These notifications of the reader's (others' ids are ignored)" })),
    all: Type.Optional(Type.Literal(true, { description: "Every notification of the reader's on the site" })),
  },
  { description: 'Either ids or all' },
);

export const ReadAnswer = Type.Object({ unread: Unread });
