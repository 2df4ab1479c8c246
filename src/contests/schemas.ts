import { Type } from 'typebox';
import { NextCursor, PageQuery } from '../http/cursor.ts';
import { Nullable, Timestamp } from '../http/schemas.ts';
import { Actor } from '../moderation/schemas.ts';

export const MAX_CONTEST_MESSAGE = 2000;
export const MAX_CONTEST_NOTE = 500;

export const CONTEST_STATES = ['open', 'resolved'] as const;
export const CONTEST_OUTCOMES = ['upheld', 'reversed'] as const;
export type ContestOutcome = (typeof CONTEST_OUTCOMES)[number];
/** What a reader contests: their comment removed, marked spam, or held for review. */
export const CONTESTED_DECISIONS = ['removed', 'spam', 'held'] as const;

export const ContestBody = Type.Object({
  message: Type.String({ description: `Why the decision should be looked at again: 1 to ${MAX_CONTEST_MESSAGE} characters after trimming` }),
});

export const NewContest = Type.Object({
  id: Type.String({ description: 'dcn_ id' }),
  comment_id: Type.String(),
  state: Type.Literal('open'),
  created_at: Timestamp,
});

export const ContestQuery = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 100, description: 'One site; default: every site the caller moderates' })),
  state: Type.Optional(Type.Enum([...CONTEST_STATES], { default: 'open', description: 'open (oldest first: who waited longest) or resolved (latest resolved first)' })),
  ...PageQuery,
});

export const ResolveBody = Type.Object({
  outcome: Type.Enum([...CONTEST_OUTCOMES], { description: 'reversed: the comment is approved (logged and emitted as any approve); upheld: the decision stands' }),
  note: Type.Optional(Nullable(Type.String({ description: `Up to ${MAX_CONTEST_NOTE} characters after trimming, told to the reader with the outcome; empty is none` }))),
});

export const ContestSchema = Type.Object({
  id: Type.String(),
  site_id: Type.String(),
  state: Type.Enum([...CONTEST_STATES]),
  message: Type.String({ description: "The reader's message" }),
  created_at: Timestamp,
  comment: Type.Object({
    id: Type.String(),
    thread_url: Type.String(),
    thread_title: Nullable(Type.String()),
    author_name: Type.String(),
    author_id: Type.String({ description: 'The usr_ id of the reader who wrote it (and contests)' }),
    content: Nullable(Type.String({ description: 'The whole text; null once deleted' })),
    status: Type.String({ description: 'What the comment is now' }),
    created_at: Timestamp,
  }),
  decision: Type.Object(
    {
      action: Type.Enum([...CONTESTED_DECISIONS], { description: 'What the comment was when contested' }),
      reason: Nullable(Type.String()),
      moderator: Nullable(Actor, { description: 'null for a comment held on arrival by the site\'s rules' }),
      decided_at: Nullable(Timestamp),
    },
    { description: 'The decision contested, as the moderation log records it' },
  ),
  outcome: Nullable(Type.Enum([...CONTEST_OUTCOMES])),
  note: Nullable(Type.String()),
  resolved_by: Nullable(Actor),
  resolved_at: Nullable(Timestamp),
});

export const ContestPage = Type.Object({ contests: Type.Array(ContestSchema), next_cursor: NextCursor });
