import { Type } from 'typebox';
import { MAX_AUTHOR_NAME, NAME_PATTERN } from '../../comments/text.ts';
import { CommentSchema } from '../../comments/schemas.ts';
import { NextCursor } from '../../http/cursor.ts';
import { IdParams, Nullable, Timestamp } from '../../http/schemas.ts';

/** The ways in a reader's sign-in method can be (an identity provider's type, or a code mailed to them). */
export const SIGN_IN_TYPES = ['email', 'oidc', 'github', 'google', 'gitlab', 'microsoft'] as const;

export const SignInMethod = Type.Object({
  id: Type.String({ description: 'rid_<id>: DELETE /v1/me/sign-in-methods/{id} removes it' }),
  type: Type.Enum([...SIGN_IN_TYPES], { description: "'email': a code mailed to the address; else the identity provider's type" }),
  provider_id: Nullable(Type.String(), { description: 'idp_<id> of the identity provider; null for email' }),
  provider_name: Nullable(Type.String(), { description: "The provider's name as the site named it; null for email" }),
  email: Nullable(Type.String(), { description: 'The address this way in gave, as the reader sees it (they are the only one to)' }),
  created_at: Timestamp,
  last_used_at: Timestamp,
});

export const MyPage = Type.Object({
  user: Type.Object({
    id: Type.String(),
    name: Type.String(),
    avatar_url: Nullable(Type.String()),
    own_account: Type.Boolean({ description: "Signed in by themselves (email, identity providers): false for a site's SSO or backend users, whose name, sign-in and deletion are the site's" }),
  }),
  email: Nullable(Type.String({ description: 'Where reply mails go by default: the first address the reader proved, or the one a site gave' })),
  sign_in_methods: Type.Array(SignInMethod, { description: 'Oldest first; empty for a site\'s users' }),
  mail: Type.Object({
    notify_replies: Type.Boolean({ description: 'Whether "Email me replies" starts ticked (PUT /v1/sessions/current/mail changes it)' }),
    mention_mail: Type.Boolean({ description: 'Whether the reader gets a mail when a comment mentions them (PATCH /v1/me changes it; the link in those mails turns it off)' }),
  }),
  claimable_guest_comments: Type.Integer({
    minimum: 0,
    description:
      'Comments the reader left as a guest on this site, before they had an account, that POST /v1/me/guest-comments/claim would make theirs: ' +
      'those whose "Email me replies" went to an address the reader proved by signing in, and whose confirmation link was followed',
  }),
  erase_after: Nullable(Timestamp, { description: 'When the account is erased, after DELETE /v1/me; null when no deletion is pending' }),
});

export const MyChange = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        pattern: NAME_PATTERN,
        maxLength: MAX_AUTHOR_NAME * 4,
        description:
          `1 to ${MAX_AUTHOR_NAME} characters; refused (400) with a bidirectional control or zero-width character. The reader's earlier comments show it too. ` +
          "Readers who signed in by themselves only: a site's SSO or backend users are renamed by the site (403)",
      }),
    ),
    mention_mail: Type.Optional(Type.Boolean({ description: 'Whether to get a mail when a comment mentions the reader (any reader, a site\'s users included)' })),
  },
  { minProperties: 1 },
);

export const MyCommentsQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
});

export const MyComment = Type.Object({
  ...CommentSchema.properties,
  thread_title: Nullable(Type.String(), { description: "The thread's title, if the site gave one" }),
  replies: Type.Array(Type.Ref('Comment'), { description: 'Always empty here: the thread shows them' }),
});

export const MyComments = Type.Object({
  comments: Type.Array(MyComment, { description: 'Newest first: published ones, and those only the reader sees yet (pending); not deleted ones, nor ones a moderator removed' }),
  next_cursor: NextCursor,
});

export const Deletion = Type.Object({
  erased: Type.Boolean({ description: 'true: erased now (PARLEY_ERASE_GRACE 0); false: erased at erase_after unless the reader signs in before' }),
  erase_after: Nullable(Timestamp),
});

export const Claimed = Type.Object({ claimed: Type.Integer({ minimum: 0, description: 'Guest comments now the reader\'s' }) });

export const MethodParams = IdParams;
