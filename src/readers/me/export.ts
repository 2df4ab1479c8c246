import type { Kysely } from 'kysely';
import { nowIso } from '../../clock.ts';
import type { Database } from '../../db/schema.ts';
import { afterKey, type KeyValue } from '../../http/cursor.ts';
import type { Site } from '../../sites/repository.ts';
import { isOwnAccount } from '../sign-in.ts';
import type { ReaderRow } from './reader.ts';
import { ownAddresses, signInMethodsOf } from './sign-in-methods.ts';

/** Rows read per statement: memory stays bounded whatever the reader wrote (100,000 comments export in pages of this). */
const PAGE = 500;

export const READER_EXPORT_FORMAT = 'parley-reader-export';

export function exportFileName(site: Site, now: string): string {
  return `parley-export-${site.id}-${now.slice(0, 10)}.json`;
}

/** Pages of rows read by keyset: `read` gets the key of the last row before (null first), until a page comes back short. */
async function* keysetPages<Row>(read: (after: KeyValue[] | null) => Promise<Row[]>, keyOf: (row: Row) => KeyValue[]): AsyncGenerator<Row[]> {
  let after: KeyValue[] | null = null;
  for (;;) {
    const page = await read(after);
    if (page.length > 0) yield page;
    if (page.length < PAGE) return;
    after = keyOf(page[page.length - 1]);
  }
}

/** `,"name":[…]` of the rows as `shown`, one chunk per page. */
async function* jsonArray<Row>(name: string, pages: AsyncIterable<Row[]>, shown: (row: Row) => unknown): AsyncGenerator<string> {
  yield `,${JSON.stringify(name)}:[`;
  let first = true;
  for await (const page of pages) {
    yield (first ? '' : ',') + page.map((row) => JSON.stringify(shown(row))).join(',');
    first = false;
  }
  yield ']';
}

/** The reader's addresses on the site: the ones they gave signed in, the site's for them, and the ones they proved to sign in. */
async function addressesOf(db: Kysely<Database>, site: Site, user: ReaderRow) {
  const emails = await ownAddresses(db, site.id, user);
  return db
    .selectFrom('mail_addresses')
    .select(['id', 'email', 'confirmed_at', 'unsubscribed_at', 'created_at'])
    .where('site_id', '=', site.id)
    .where((eb) => eb.or([eb('user_id', '=', user.id), ...(emails.length > 0 ? [eb('email', 'in', emails)] : [])]))
    .orderBy('created_at')
    .execute();
}

/**
 * Everything of a reader's on their site, as one JSON document, in chunks: their profile, ways of
 * signing in (no secrets), addresses and reply-mail subscriptions, then every comment (deleted and
 * moderated ones too, as stored), vote, reaction and flag of theirs, each read in pages of PAGE.
 */
export async function* readerExport(db: Kysely<Database>, site: Site, user: ReaderRow): AsyncGenerator<string> {
  const [methods, addresses] = await Promise.all([signInMethodsOf(db, site.id, user.id), addressesOf(db, site, user)]);
  const head = {
    format: READER_EXPORT_FORMAT,
    version: 1,
    exported_at: nowIso(),
    site: { id: site.id, name: site.name },
    profile: {
      id: user.id,
      name: user.name,
      avatar_url: user.avatar_url,
      email: user.email,
      own_account: isOwnAccount(user.external_id),
      ...(!isOwnAccount(user.external_id) && { site_user_id: user.external_id }),
      created_at: user.created_at,
      first_comment_at: user.first_comment_at,
      notify_replies: user.notify_replies === 1,
      erase_after: user.erase_after,
    },
    sign_in_methods: methods,
    addresses: addresses.map(({ id: _id, ...address }) => address),
  };
  yield JSON.stringify(head).slice(0, -1);

  const addressIds = addresses.map((address) => address.id);
  yield* jsonArray(
    'subscriptions',
    keysetPages(
      async (after) => {
        if (addressIds.length === 0) return [];
        let query = db
          .selectFrom('mail_subscriptions as s')
          .innerJoin('mail_addresses as a', 'a.id', 's.address_id')
          .innerJoin('comments as c', 'c.id', 's.comment_id')
          .innerJoin('threads as t', 't.id', 'c.thread_id')
          .select(['s.comment_id', 's.address_id', 'a.email', 't.url_key', 's.created_at', 's.confirmed_at', 's.unsubscribed_at'])
          .where('s.address_id', 'in', addressIds);
        if (after) query = query.where(afterKey(['s.comment_id', 's.address_id'], after, 'asc'));
        return query.orderBy('s.comment_id').orderBy('s.address_id').limit(PAGE).execute();
      },
      (row) => [row.comment_id, row.address_id],
    ),
    (row) => ({ comment_id: row.comment_id, thread_url: row.url_key, email: row.email, created_at: row.created_at, confirmed_at: row.confirmed_at, unsubscribed_at: row.unsubscribed_at }),
  );

  yield* jsonArray(
    'comments',
    keysetPages(
      async (after) => {
        let query = db
          .selectFrom('comments as c')
          .innerJoin('comment_counts as n', 'n.comment_id', 'c.id')
          .innerJoin('threads as t', 't.id', 'c.thread_id')
          .select([
            'c.id', 't.url_key', 't.title', 'c.parent_id', 'c.author_name', 'c.content', 'c.status', 'c.moderation_status', 'c.is_deleted', 'c.is_edited',
            'n.upvotes', 'n.downvotes', 'n.reaction_counts', 'c.created_at', 'c.updated_at',
          ])
          .where('c.site_id', '=', site.id)
          .where('c.author_ref', '=', user.id);
        if (after) query = query.where(afterKey(['c.created_at', 'c.id'], after, 'asc'));
        return query.orderBy('c.created_at').orderBy('c.id').limit(PAGE).execute();
      },
      (row) => [row.created_at, row.id],
    ),
    (row) => ({
      id: row.id,
      thread_url: row.url_key,
      thread_title: row.title,
      parent_id: row.parent_id,
      author_name: row.author_name,
      content: row.content,
      status: row.status,
      moderation_status: row.moderation_status,
      is_deleted: row.is_deleted === 1,
      is_edited: row.is_edited === 1,
      upvotes: Number(row.upvotes),
      downvotes: Number(row.downvotes),
      reaction_counts: JSON.parse(row.reaction_counts),
      created_at: row.created_at,
      updated_at: row.updated_at,
    }),
  );

  yield* jsonArray(
    'votes',
    keysetPages(
      async (after) => {
        let query = db
          .selectFrom('votes as v')
          .innerJoin('comments as c', 'c.id', 'v.comment_id')
          .innerJoin('threads as t', 't.id', 'c.thread_id')
          .select(['v.comment_id', 't.url_key', 'v.value', 'v.created_at'])
          .where('v.voter_ref', '=', user.id)
          .where('c.site_id', '=', site.id);
        if (after) query = query.where('v.comment_id', '>', after[0] as string);
        return query.orderBy('v.comment_id').limit(PAGE).execute();
      },
      (row) => [row.comment_id],
    ),
    (row) => ({ comment_id: row.comment_id, thread_url: row.url_key, vote: Number(row.value) > 0 ? 'up' : 'down', created_at: row.created_at }),
  );

  yield* jsonArray(
    'reactions',
    keysetPages(
      async (after) => {
        let query = db
          .selectFrom('reactions as r')
          .innerJoin('comments as c', 'c.id', 'r.comment_id')
          .innerJoin('threads as t', 't.id', 'c.thread_id')
          .select(['r.comment_id', 't.url_key', 'r.type', 'r.created_at'])
          .where('r.reactor_ref', '=', user.id)
          .where('c.site_id', '=', site.id);
        if (after) query = query.where('r.comment_id', '>', after[0] as string);
        return query.orderBy('r.comment_id').limit(PAGE).execute();
      },
      (row) => [row.comment_id],
    ),
    (row) => ({ comment_id: row.comment_id, thread_url: row.url_key, reaction: row.type, created_at: row.created_at }),
  );

  yield* jsonArray(
    'flags',
    keysetPages(
      async (after) => {
        let query = db
          .selectFrom('flags as f')
          .innerJoin('comments as c', 'c.id', 'f.comment_id')
          .innerJoin('threads as t', 't.id', 'c.thread_id')
          .select(['f.comment_id', 't.url_key', 'f.reason', 'f.created_at'])
          .where('f.flagger_ref', '=', user.id)
          .where('c.site_id', '=', site.id);
        if (after) query = query.where('f.comment_id', '>', after[0] as string);
        return query.orderBy('f.comment_id').limit(PAGE).execute();
      },
      (row) => [row.comment_id],
    ),
    (row) => ({ comment_id: row.comment_id, thread_url: row.url_key, reason: row.reason, created_at: row.created_at }),
  );

  yield* jsonArray(
    'follows',
    keysetPages(
      async (after) => {
        let query = db
          .selectFrom('follows as f')
          .innerJoin('threads as t', 't.id', 'f.thread_id')
          .select(['f.id', 't.url_key', 'f.created_at'])
          .where('f.user_id', '=', user.id)
          .where('f.site_id', '=', site.id);
        if (after) query = query.where('f.id', '>', after[0] as string);
        return query.orderBy('f.id').limit(PAGE).execute();
      },
      (row) => [row.id],
    ),
    (row) => ({ id: row.id, thread_url: row.url_key, created_at: row.created_at }),
  );

  // What they were told, not the others' comments it was about (those are the others' to export).
  yield* jsonArray(
    'notifications',
    keysetPages(
      async (after) => {
        let query = db
          .selectFrom('notifications as n')
          .innerJoin('threads as t', 't.id', 'n.thread_id')
          .select(['n.id', 'n.kind', 'n.comment_id', 't.url_key', 'n.data', 'n.created_at', 'n.read_at'])
          .where('n.user_id', '=', user.id)
          .where('n.site_id', '=', site.id);
        if (after) query = query.where('n.id', '>', after[0] as string);
        return query.orderBy('n.id').limit(PAGE).execute();
      },
      (row) => [row.id],
    ),
    (row) => ({ id: row.id, kind: row.kind, comment_id: row.comment_id, thread_url: row.url_key, ...(row.kind === 'moderation' && JSON.parse(row.data)), created_at: row.created_at, read_at: row.read_at }),
  );
  yield '}';
}
