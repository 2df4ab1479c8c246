import { Type } from 'typebox';
import { NextCursor, PageQuery } from '../http/cursor.ts';
import { IdParams, Nullable, Timestamp } from '../http/schemas.ts';

export const MAX_TITLE = 300;

const Count = Type.Integer({ minimum: 0 });

export const ThreadSchema = Type.Object({
  id: Type.String({ description: 'thr_<id>' }),
  url: Type.String({ description: 'The thread key: the page URL without fragment' }),
  title: Nullable(Type.String(), { description: 'Set with PATCH; null until then' }),
  closed: Type.Boolean({ description: 'New comments and replies are refused (409 conflict)' }),
  closed_at: Nullable(Timestamp),
  created_at: Timestamp,
  last_activity_at: Nullable(Timestamp, { description: 'When its newest comment was written' }),
  comments: Type.Object(
    { published: Count, pending: Count, removed: Count, spam: Count, deleted: Count },
    { description: 'Comments by status; deleted ones counted under deleted only' },
  ),
});

export const ThreadListQuery = Type.Object({
  ...PageQuery,
  url: Type.Optional(Type.String({ maxLength: 2048, description: 'Only the thread of this page URL' })),
  closed: Type.Optional(Type.Boolean({ description: 'Only closed (true) or open (false) threads' })),
});

export const ThreadList = Type.Object({ threads: Type.Array(ThreadSchema), next_cursor: NextCursor });

export const ThreadParams = Type.Object({ id: IdParams.properties.id, thread_id: IdParams.properties.id });

export const ThreadPatchBody = Type.Object(
  {
    closed: Type.Optional(Type.Boolean({ description: 'true closes the thread to new comments, false reopens it' })),
    title: Type.Optional(Nullable(Type.String({ maxLength: MAX_TITLE * 4 }), { description: `At most ${MAX_TITLE} characters; null clears it` })),
  },
  { minProperties: 1 },
);
