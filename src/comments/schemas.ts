import { Type } from 'typebox';
import { Timestamp } from '../http/schemas.ts';
import { SORTS } from './repository.ts';
import { SUBTREE_PAGE_DEFAULT, SUBTREE_PAGE_MAX } from './subtree-page.ts';
import { NAME_PATTERN } from './text.ts';
import { EMAIL_PATTERN } from '../mail/schemas.ts';
import type { CommentView } from './view.ts';

export const MentionSchema = Type.Object({ user_id: Type.String({ description: 'usr_<id>' }), name: Type.String() });

/** Registered once with addSchema so replies can refer to it recursively. */
export const CommentSchema = Type.Object(
  {
    id: Type.String({ description: 'cmt_<id>' }),
    content: Type.Union([Type.String(), Type.Null()], { description: "The author's source, as written (Markdown or plain text, as the site's `formatting` was); null once deleted" }),
    content_html: Type.Union([Type.String(), Type.Null()], {
      description:
        'The content as sanitized HTML, rendered when it was written or edited: only p, br, strong, em, s, a (href http(s) or mailto, rel "nofollow ugc noopener"), ' +
        'code, pre, span (highlighted code, mentions), blockquote, ul, ol, li and hr. Safe to insert into a page as it is; null once deleted',
    }),
    mentions: Type.Array(MentionSchema, { description: 'The site users the comment mentions (`@[Name](usr_…)` in its source), named as they were when it was written' }),
    author_name: Type.String(),
    author_is_guest: Type.Boolean({ description: 'Posted without a credential, under a name the poster chose: nobody vouches for it' }),
    author_badges: Type.Array(Type.String(), {
      description:
        '`staff` (written by a staff member from the dashboard), `moderator` (by a moderator session), `verified` (by a signed-in reader: SSO, an identity provider or an emailed code), ' +
        "then the labels a moderator gave the author (PATCH /api/sites/{id}/users/{user_id})",
    }),
    upvotes: Type.Integer(),
    downvotes: Type.Integer(),
    reaction_counts: Type.Record(Type.String(), Type.Integer()),
    thread_url: Type.String({ description: 'The thread key: the page URL without fragment' }),
    site_id: Type.String(),
    parent_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    is_edited: Type.Boolean(),
    is_deleted: Type.Boolean(),
    pinned: Type.Boolean({ description: 'A moderator pinned it: pinned top-level comments come first on the first page of every sort' }),
    status: Type.Union([Type.Literal('published'), Type.Literal('pending'), Type.Literal('removed'), Type.Literal('spam')]),
    moderation_status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('removed'),
      Type.Literal('spam'),
      Type.Literal('shadow_banned'),
      Type.Null(),
    ]),
    has_more_replies: Type.Boolean({ description: 'Replies below were left out of this answer; GET /v1/comments/{id} pages through them' }),
    user_vote: Type.Union([Type.Literal('up'), Type.Literal('down'), Type.Null()], { description: "The caller's vote" }),
    user_reaction: Type.Union([Type.String(), Type.Null()], { description: "The caller's reaction" }),
    user_is_author: Type.Boolean({ description: 'The caller wrote this comment (so may edit and delete it)' }),
    replies: Type.Array(Type.Ref('Comment'), { description: 'Visible replies, oldest first' }),
  },
  { $id: 'Comment' },
);

export const CommentRef = Type.Unsafe<CommentView>(Type.Ref('Comment'));

export const CommentQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: SUBTREE_PAGE_MAX,
      default: SUBTREE_PAGE_DEFAULT,
      description: 'Replies in this answer, at most',
    }),
  ),
  after: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The next_cursor of the previous answer: continues the subtree after it',
    }),
  ),
});

export const CommentPage = Type.Object({
  ...CommentSchema.properties,
  replies: Type.Array(Type.Ref('Comment'), {
    description:
      'Replies, oldest first under each comment, walked depth first. After the first part (`after`), a reply whose ' +
      'parent came in an earlier part stands here, its parent_id saying where it belongs',
  }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as `after` for the next part of the subtree; null when none is left',
  }),
});

export const ListQuery = Type.Object({
  thread_url: Type.String({ description: 'Absolute http(s) URL of the page, without a user name or password', maxLength: 2048 }),
  site_id: Type.String({ maxLength: 100 }),
  sort: Type.Optional(Type.Enum([...SORTS], { default: 'newest' })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
});

/** A top-level comment of a list: the first part of its subtree, as GET /v1/comments/{id} gives it, and where the rest continues. */
export const ListedComment = Type.Object({
  ...CommentSchema.properties,
  replies: Type.Array(Type.Ref('Comment'), {
    description:
      'Visible replies, oldest first under each comment: all of them, or, when they do not all fit in this comment\'s share of the page, ' +
      'the first of them walked depth first, as the first part of GET /v1/comments/{id} has them',
  }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Where the replies this list left out continue: pass as `after` to GET /v1/comments/{id}; null when it shows them all',
  }),
});

export const CommentList = Type.Object({
  comments: Type.Array(ListedComment, {
    description:
      'A page shares 1,000 replies and about 1 MB of them equally among its top-level comments (at most 500 under one): ' +
      'with `limit` 20, up to 50 replies and about 52 kB under each. A comment whose replies were left out carries has_more_replies and `next_cursor`',
  }),
  total: Type.Integer({ description: 'Visible top-level comments of the thread' }),
  page: Type.Integer(),
});

export const CreateBody = Type.Object({
  thread_url: Type.String({ maxLength: 4096, description: 'Absolute http(s) URL of the page, at most 2,048 characters, without a user name or password' }),
  site_id: Type.String({ maxLength: 100 }),
  content: Type.String({ description: '1 to 10,000 characters after trimming' }),
  parent_id: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
  notify_replies: Type.Optional(
    Type.Boolean({
      description:
        'Email me replies: the author gets a mail when a reply to this comment is published (at most one per thread every 10 minutes). ' +
        'A guest gives `email`; a signed-in reader gets their SSO address when they give none, and their own default when this is left out. ' +
        'Each comment\'s request is confirmed on its own: unless the address is the signed-in reader\'s SSO address, a confirmation link ' +
        '(24 hours, single use) is mailed for it, and no reply mail goes before it is used. Nothing is mailed to an address that stopped all mail, ' +
        'or that has a confirmation link pending. Confirmation mails are limited per reader and per site (429). ' +
        'Readers only: an API key that sets it true is refused (403). Ignored when the server sends no mail',
    }),
  ),
  email: Type.Optional(
    Type.String({
      minLength: 3,
      maxLength: 254,
      pattern: EMAIL_PATTERN,
      description: 'Where reply mails go (with notify_replies). Readers only: refused (403) with an API key. Personal data: shown to no reader, only to the site\'s staff',
    }),
  ),
  author_name: Type.Optional(
    Type.String({
      pattern: NAME_PATTERN,
      description:
        'Guests and API keys only; 1 to 100 characters after trimming. Refused (400) when it holds a bidirectional control ' +
        '(U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) or a zero-width character (U+200B-U+200D, U+2060, U+FEFF): never stripped',
    }),
  ),
  form_token: Type.Optional(
    Type.String({
      maxLength: 200,
      description: "Guests: the form token GET /v1/widget gave. Without one, or sent sooner than the site's min_submit_seconds after it was issued, the comment is held (API keys and sessions need none)",
    }),
  ),
  website: Type.Optional(Type.String({ maxLength: 2048, description: "Guests: the widget's hidden field, which people leave empty; filled in, the comment is held" })),
  altcha: Type.Optional(
    Type.String({ maxLength: 4096, description: 'Guests, where the site asks for proof of work: an ALTCHA solution (base64 JSON) of a challenge from GET /v1/widget' }),
  ),
});

/** A reply or comment written from the dashboard: where, and what; its author is the caller. */
export const StaffCommentBody = Type.Object({
  site_id: CreateBody.properties.site_id,
  thread_url: CreateBody.properties.thread_url,
  parent_id: CreateBody.properties.parent_id,
  content: CreateBody.properties.content,
});

export const EditBody = Type.Object({ content: Type.String() });
