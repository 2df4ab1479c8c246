import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CommentSchema } from '../comments/schemas.ts';
import { threadKey } from '../comments/thread-url.ts';
import { toView } from '../comments/view.ts';
import type { Db } from '../db/connect.ts';
import { etagOf, matchesEtag } from '../http/etag.ts';
import { errors, OptionalCredential } from '../http/schemas.ts';
import { siteOrNotFound, type Site } from '../sites/repository.ts';
import { atomXml, tagUri, type AtomFeed } from './atom.ts';
import { recentComments, type RecentRow } from './recent.ts';
import { feedWords } from './words.ts';

/** How many comments a feed holds: its newest. */
export const FEED_ENTRIES = 50;

const { replies: _replies, ...commentFields } = CommentSchema.properties;

const RecentComment = Type.Object({
  ...commentFields,
  thread_title: Type.Union([Type.String(), Type.Null()], { description: "The thread's title, where the site gave one (PATCH /api/threads/{id}); else null" }),
});

const RecentQuery = Type.Object({
  site_id: Type.String({ maxLength: 100 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  thread_url: Type.Optional(Type.String({ maxLength: 4096, description: 'Only this thread\'s comments (an absolute http(s) URL, read as GET /v1/comments reads it)' })),
});

const ThreadFeedQuery = Type.Object({ site_id: Type.String({ maxLength: 100 }), thread_url: Type.String({ maxLength: 4096 }) });
const SiteFeedQuery = Type.Object({ site_id: Type.String({ maxLength: 100 }) });

const ATOM = 'application/atom+xml; charset=utf-8';
const atomResponse = {
  200: Type.String({ description: `Atom 1.0 (${ATOM}): the newest ${FEED_ENTRIES} comments the public sees, newest first` }),
  304: Type.Null({ description: 'Not modified: the If-None-Match entity tag is current, or (without one) nothing changed since If-Modified-Since' }),
  ...errors,
};

function recentView(row: RecentRow) {
  const { replies: _none, ...view } = toView(row, row.thread_url);
  return { ...view, thread_title: row.thread_title };
}

/** The newest of the entries' times, or `since` (when the site or thread began) for a feed with none. */
function newestOf(rows: RecentRow[], since: string): string {
  return rows.reduce((newest, row) => (row.updated_at > newest ? row.updated_at : newest), since);
}

/**
 * Answers a feed with its entity tag and last change: 304 when If-None-Match names the tag or, when
 * it names none, when If-Modified-Since is not older than the last change (HTTP dates hold seconds).
 */
function sendFeed(request: FastifyRequest, reply: FastifyReply, feed: AtomFeed) {
  const body = Buffer.from(atomXml(feed));
  const etag = etagOf(body);
  const lastModified = new Date(feed.updated);
  reply.header('etag', etag).header('last-modified', lastModified.toUTCString()).header('cache-control', 'public, max-age=60');
  const ifNoneMatch = request.headers['if-none-match'];
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  const notModified = ifNoneMatch ? matchesEtag(ifNoneMatch, etag) : since >= Math.floor(lastModified.getTime() / 1000) * 1000;
  if (notModified) return reply.code(304).send();
  return reply.type(ATOM).send(body);
}

export const recentRoutes: FastifyPluginAsyncTypebox<{ db: Db; publicUrl: string }> = async (app, { db, publicUrl }) => {
  const host = new URL(publicUrl).hostname;

  /** A site's or thread's feed: its comments as entries, titled in the site's language. */
  function feedOf(site: Site, rows: RecentRow[], feed: Pick<AtomFeed, 'id' | 'title' | 'self' | 'alternate'>, since: string): AtomFeed {
    const say = feedWords(site.language ?? 'en');
    const entries = rows.map((row) => ({
      id: tagUri(host, row.created_at, `${site.id}/comments/${row.id}`),
      title: say('entryTitle', { author: row.author_name, title: row.thread_title ?? row.thread_url }),
      author: row.author_name,
      published: row.created_at,
      updated: row.updated_at,
      // The widget opens on the comment this names (src/widget/client/element.ts).
      link: `${row.thread_url}#parley_comment=${encodeURIComponent(row.id)}`,
      html: row.content_html ?? '',
    }));
    return { ...feed, lang: site.language ?? 'en', updated: newestOf(rows, since), entries };
  }

  app.get('/v1/comments/recent', {
    schema: {
      tags: ['comments'],
      summary: "A site's newest comments the public sees, or one thread's (thread_url), newest first",
      description: 'Each with its thread\'s URL and title, and no replies. Every caller gets the public\'s answer.',
      security: OptionalCredential,
      querystring: RecentQuery,
      response: { 200: Type.Object({ comments: Type.Array(RecentComment) }), ...errors },
    },
    handler: async (request) => {
      const { site_id, limit = 10, thread_url } = request.query;
      await siteOrNotFound(db.kysely, site_id);
      return { comments: (await recentComments(db.kysely, site_id, limit, thread_url)).map(recentView) };
    },
  });

  app.get('/v1/feeds/thread.atom', {
    schema: {
      tags: ['comments'],
      summary: "A thread's newest comments as an Atom 1.0 feed",
      description: "Entries link to the comment on the thread's page (`#parley_comment=<id>`, which the widget opens on); titles are in the site's language.",
      security: OptionalCredential,
      querystring: ThreadFeedQuery,
      response: atomResponse,
    },
    handler: async (request, reply) => {
      const { site_id, thread_url } = request.query;
      const site = await siteOrNotFound(db.kysely, site_id);
      const key = threadKey(thread_url, 'querystring/thread_url').href;
      const [thread, rows] = await Promise.all([findThreadTitle(db, site.id, key), recentComments(db.kysely, site.id, FEED_ENTRIES, key)]);
      const self = `${publicUrl}/v1/feeds/thread.atom?site_id=${encodeURIComponent(site.id)}&thread_url=${encodeURIComponent(key)}`;
      const title = feedWords(site.language ?? 'en')('threadFeedTitle', { title: thread?.title ?? key });
      const feed = feedOf(site, rows, { id: tagUri(host, site.createdAt, `${site.id}/threads/${encodeURIComponent(key)}`), title, self, alternate: key }, thread?.created_at ?? site.createdAt);
      return sendFeed(request, reply, feed);
    },
  });

  app.get('/v1/feeds/site.atom', {
    schema: {
      tags: ['comments'],
      summary: "A site's newest comments, of all its threads, as an Atom 1.0 feed",
      description: "Titles are in the site's language.",
      security: OptionalCredential,
      querystring: SiteFeedQuery,
      response: atomResponse,
    },
    handler: async (request, reply) => {
      const site = await siteOrNotFound(db.kysely, request.query.site_id);
      const rows = await recentComments(db.kysely, site.id, FEED_ENTRIES);
      const self = `${publicUrl}/v1/feeds/site.atom?site_id=${encodeURIComponent(site.id)}`;
      const title = feedWords(site.language ?? 'en')('siteFeedTitle', { site: site.name });
      return sendFeed(request, reply, feedOf(site, rows, { id: tagUri(host, site.createdAt, site.id), title, self, alternate: null }, site.createdAt));
    },
  });
};

/** A thread's title and when it began, by its key. */
function findThreadTitle(db: Db, siteId: string, key: string) {
  return db.kysely.selectFrom('threads').select(['title', 'created_at']).where('site_id', '=', siteId).where('url_key', '=', key).executeTakeFirst();
}
