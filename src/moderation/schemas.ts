import { Type } from 'typebox';
import { CommentSchema } from '../comments/schemas.ts';
import { NextCursor, PageQuery } from '../http/cursor.ts';
import { Nullable, ProblemRef, Timestamp } from '../http/schemas.ts';
import { BULK_ACTIONS } from './bulk.ts';
import { QUEUE_SORTS, QUEUE_STATUSES } from './queue.ts';

export const Reason = Type.String({ maxLength: 500 });

const Count = Type.Integer({ minimum: 0 });
const CommentCounts = Type.Object({ published: Count, pending: Count, removed: Count, spam: Count });

/** Someone the moderation tables name: a site user, an API key, a staff member, a guest (never their IP), or Parley itself. */
export const Actor = Type.Object({
  id: Nullable(Type.String(), { description: 'usr_, key_ or stf_ (a staff member) id; null for a guest and for the system' }),
  kind: Type.Union([Type.Literal('user'), Type.Literal('key'), Type.Literal('staff'), Type.Literal('guest'), Type.Literal('system')], {
    description: "system: Parley itself (name `classifier`: the spam classifier's holds)",
  }),
  name: Nullable(Type.String()),
});

export const ModerationResultSchema = Type.Object({
  id: Type.String(),
  action: Type.String(),
  status: Type.String(),
  moderation_status: Nullable(Type.String()),
  content: Nullable(Type.String()),
  author_name: Type.String(),
});

export const QueueQuerySchema = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 100, description: 'One site; default: every site the caller moderates' })),
  status: Type.Optional(
    Type.Enum([...QUEUE_STATUSES], {
      default: 'all',
      description: 'pending, removed, spam, published: that status, not deleted; flagged: published with flags not dismissed; deleted: deleted ones; all',
    }),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Words that must all appear in the content or the author name (full-text; not with sort=most_flagged). ' +
        'A search reads at most about 5,000 matches a request: a page may then hold fewer comments than limit, with a next_cursor to go on',
    }),
  ),
  author: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: "The author's id (usr_ or key_), or the start of their display name, case-insensitive (SQLite folds the case of ASCII letters only)",
    }),
  ),
  thread_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Only comments of the thread of this page URL' })),
  thread: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'Only comments of the threads this names: a title (any part of it, case-insensitive), a path on any of the site\'s hosts (/blog/post), ' +
        'or a URL with or without its scheme or trailing slash. 400 when it names more than 100 threads',
    }),
  ),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Written at or after' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Written before' })),
  sort: Type.Optional(Type.Enum([...QUEUE_SORTS], { default: 'newest', description: 'most_flagged lists flagged comments only, most flags first' })),
  ...PageQuery,
});

// A queue item is a comment as lists show it, without a reader's marks or nested replies.
const { replies: _replies, has_more_replies: _more, user_vote: _vote, user_reaction: _reaction, user_is_author: _mine, ...commentFields } = CommentSchema.properties;

/** A value a spam reason's words are made with: a number, a text, or a list of records (the comments a classifier's score resembles). */
const ReasonValue = Type.Union([Type.String(), Type.Number(), Type.Array(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Null()])))]);

const SpamReasonSchema = Type.Object({
  check: Type.String({ description: 'form, duplicate, words, links, velocity, history or classifier' }),
  detail: Type.String({ description: 'The reason in English' }),
  code: Type.Optional(
    Type.String({
      description:
        'What the reason says, for words in any language: form_hidden_field, form_token {problem}, form_too_fast {seconds, minimum}, ' +
        'duplicate_same_author, duplicate_authors {authors}, suspect_word {word}, too_many_links {links, maximum}, link_new_author {minimum}, ' +
        'velocity_ip_range {limit}, velocity_thread {limit}, velocity_site {limit}, history {bad, total}, classifier {score, similar}. ' +
        'Absent on reasons stored before codes: show their detail',
    }),
  ),
  values: Type.Optional(Type.Record(Type.String(), ReasonValue, { description: "The numbers and words the code's sentence names" })),
});

export const BAN_STANDINGS = ['banned', 'shadow_banned'] as const;

export const QueueItem = Type.Object({
  ...commentFields,
  thread: Type.Object({ id: Type.String(), title: Nullable(Type.String()), closed: Type.Boolean() }),
  parent: Nullable(
    Type.Object({ id: Type.String(), author_name: Type.String(), excerpt: Nullable(Type.String({ description: 'Up to 200 characters; null once deleted' })) }),
  ),
  flags: Type.Object({
    count: Type.Integer({ description: 'Flags not dismissed' }),
    reasons: Type.Array(Type.Object({ reason: Nullable(Type.String()), created_at: Timestamp }), { description: 'The newest 10' }),
  }),
  spam_reasons: Type.Array(SpamReasonSchema, {
    description: 'Why the spam checks held the comment (kept after a moderator decides); empty when they held nothing',
  }),
  author: Type.Object({
    id: Nullable(Type.String()),
    kind: Type.Union([Type.Literal('user'), Type.Literal('key'), Type.Literal('staff'), Type.Literal('guest')], {
      description: "staff: written from the dashboard (POST /api/comments); only a site user (user) can be banned",
    }),
    comments: Nullable(CommentCounts, { description: "The author's comments on the site by status; null for a guest" }),
    standing: Nullable(Type.Enum([...BAN_STANDINGS]), {
      description: "The author's ban on the comment's site in force now (banned outranks shadow_banned); null: none, or a guest",
    }),
    ban_expires_at: Nullable(Timestamp, { description: 'When a timed outright ban ends; null for a ban without end, a shadow ban, or none' }),
  }),
});

export const QueuePage = Type.Object({ comments: Type.Array(QueueItem), next_cursor: NextCursor });

export const BulkBody = Type.Object({
  ids: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100, uniqueItems: true }),
  action: Type.Enum([...BULK_ACTIONS]),
  reason: Type.Optional(Nullable(Reason)),
});

export const UndoBody = Type.Object({
  ids: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100, uniqueItems: true }),
});

export const BulkResponse = Type.Object({
  results: Type.Array(
    Type.Union([
      Type.Object({ id: Type.String(), ok: Type.Literal(true), result: ModerationResultSchema }),
      Type.Object({ id: Type.String(), ok: Type.Literal(false), error: ProblemRef }),
    ]),
    { description: 'One per id, in the order sent' },
  ),
});

export const FlagList = Type.Object({
  comment_id: Type.String(),
  flag_count: Type.Integer({ description: 'Flags not dismissed' }),
  flags: Type.Array(Type.Object({ flagger: Actor, reason: Nullable(Type.String()), created_at: Timestamp, dismissed_at: Nullable(Timestamp) })),
});

export const RevisionList = Type.Object({
  revisions: Type.Array(
    Type.Object({
      content: Type.String({ description: 'The text as its author wrote it (the source)' }),
      content_html: Type.String({ description: 'That text as it was shown' }),
      written_at: Timestamp,
      replaced_at: Timestamp,
    }),
    { description: 'Oldest first; the comment as it is now is not among them' },
  ),
});

/**
 * classifier_hold: the spam classifier held the comment; classifier_agreed and classifier_disagreed:
 * the first moderator's decision on such a comment marked it spam or approved it.
 */
export const LOGGED_ACTIONS = [...BULK_ACTIONS, 'pin', 'unpin', 'undo', 'classifier_hold', 'classifier_agreed', 'classifier_disagreed'] as const;

export const LogQuerySchema = Type.Object({
  moderator: Type.Optional(Type.String({ maxLength: 100, description: "The moderator's id (stf_, key_ or usr_)" })),
  action: Type.Optional(Type.Enum([...LOGGED_ACTIONS])),
  comment_id: Type.Optional(Type.String({ maxLength: 100 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'Logged at or after' })),
  until: Type.Optional(Type.String({ format: 'date-time', description: 'Logged before' })),
  ...PageQuery,
});

export const AllSitesLogQuerySchema = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 100, description: 'One site; default: every site the caller moderates' })),
  ...LogQuerySchema.properties,
});

export const LogPage = Type.Object({
  entries: Type.Array(
    Type.Object({
      id: Type.String(),
      site_id: Type.String(),
      action: Type.String({ description: 'One of the actions the action filter takes; more may come' }),
      reason: Nullable(Type.String()),
      created_at: Timestamp,
      moderator: Actor,
      comment: Type.Object({ id: Type.String(), author_name: Type.String(), excerpt: Nullable(Type.String()), thread_url: Type.String() }),
    }),
  ),
  next_cursor: NextCursor,
});

export const CountsQuerySchema = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 100, description: 'One site; default: every site the caller moderates' })),
});

export const QueueCountsSchema = Type.Object({
  pending: Count,
  flagged: Type.Integer({ minimum: 0, description: 'Published comments with flags not dismissed' }),
  spam: Count,
  removed: Count,
});
