import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyError, FastifyReply } from 'fastify';
import { Type, type Static } from 'typebox';
import type { CommentCaches } from '../comments/caches.ts';
import { commentSerializer } from '../comments/routes.ts';
import type { SerializeComment } from '../comments/public-list.ts';
import { CreateBody } from '../comments/schemas.ts';
import { NAME_PATTERN } from '../comments/text.ts';
import { createComment } from '../comments/service.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { matchesEtag } from '../http/etag.ts';
import { errors, OptionalCredential } from '../http/schemas.ts';
import { requestLocale } from '../i18n/request.ts';
import { formBodyOf, registerFormParsers } from '../mail/form-body.ts';
import type { ConfirmMailLimiter } from '../ratelimits/confirm-mails.ts';
import { returnTarget } from '../readers/sign-in.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import { pageLink, SORTS } from './render.ts';
import type { ThreadPages } from './fragment.ts';

const ThreadHtmlQuery = Type.Object({
  site_id: Type.String({ maxLength: 100 }),
  thread_url: Type.String({ maxLength: 2048, description: 'Absolute http(s) URL of the page, without a user name or password' }),
  sort: Type.Optional(Type.Enum([...SORTS], { default: 'newest', description: "The page's `parley_sort`" })),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: "The page's `parley_page`" })),
  lang: Type.Optional(Type.String({ maxLength: 35, description: "The words' language; else the site's, else Accept-Language, else English" })),
  reply: Type.Optional(Type.String({ maxLength: 100, description: "The page's `parley_reply`: the form answers this comment" })),
  notice: Type.Optional(Type.String({ maxLength: 40, pattern: '^[a-z_]+$', description: "The page's `parley_notice`: `held`, or why the form's comment was refused (an error code)" })),
  retry: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: "The page's `parley_retry`: seconds to wait, with `notice=rate_limited`" })),
  detail: Type.Optional(Type.String({ maxLength: 300, description: "The page's `parley_detail`: what was wrong, with `notice=validation_failed`" })),
});

const NotModified = Type.Null({ description: 'Not modified: the If-None-Match entity tag is current' });
const Fragment = { description: 'An HTML fragment: the thread in a <parley-comments> element', content: { 'text/html': { schema: Type.String() } } };

/** What the form posts: the widget's guest comment, in fields; an empty name or parent is none. */
const FormPost = Type.Object({
  site_id: CreateBody.properties.site_id,
  thread_url: CreateBody.properties.thread_url,
  content: CreateBody.properties.content,
  parent_id: Type.Optional(Type.String({ maxLength: 100 })),
  author_name: Type.Optional(Type.Union([Type.Literal(''), Type.String({ pattern: NAME_PATTERN })], { description: 'Empty: no name' })),
  form_token: CreateBody.properties.form_token,
  website: CreateBody.properties.website,
  altcha: CreateBody.properties.altcha,
});

declare module 'fastify' {
  interface FastifyRequest {
    /** The page of the site a posted form goes back to, once it is known to be the site's. */
    formTarget: URL | null;
  }
}

/** Fields of a posted form, as far as they parsed: enough to find where it goes back to. */
function postedFields(body: unknown): { site_id?: unknown; thread_url?: unknown } {
  return typeof body === 'object' && body !== null ? body : {};
}

export const threadHtmlRoutes: FastifyPluginAsyncTypebox<{ db: Db; caches: CommentCaches; pages: ThreadPages; publicUrl: string; confirmMails: ConfirmMailLimiter | null }> = async (
  app,
  { db, pages, publicUrl, confirmMails },
) => {
  registerFormParsers(app);
  app.decorateRequest('formTarget', null);

  app.get('/v1/comments/html', {
    schema: {
      tags: ['comments'],
      summary: 'A thread as HTML, for crawlers and readers without JavaScript',
      description:
        "The public's page of the thread as the widget draws it, in a `<parley-comments>` element with a declarative shadow root: schema.org " +
        'microdata (`DiscussionForumPosting` with each comment a `Comment`: author, dateCreated, text, upvoteCount, and `comment` for replies), ' +
        'a comment form that posts to POST /v1/comments/form, and the list as JSON, from which embed.js takes the thread over without fetching it again. ' +
        "A site's server passes its page's `parley_*` query parameters on, without the prefix. Served from a cache that every write to the thread clears; " +
        'a weak ETag, with If-None-Match answered 304.',
      security: OptionalCredential,
      querystring: ThreadHtmlQuery,
      response: { 200: Fragment, 304: NotModified, ...errors },
    },
    handler: async (request, reply) => {
      const html = await pages.read(db, request.query, requestLocale(request), lazySerializer(reply));
      reply.header('etag', html.etag).header('vary', 'accept-language').header('cache-control', 'no-cache');
      if (matchesEtag(request.headers['if-none-match'], html.strongEtag)) return (reply as FastifyReply).code(304).send();
      // The kept bytes are sent as they are, with the answer's own token and time between them: a
      // copy of the whole page for each answer would cost more in garbage collection than anything else.
      const length = html.parts.reduce((sum, part) => sum + part.length, 0);
      return reply.type('text/html; charset=utf-8').header('content-length', length).send(Readable.from(html.parts, { objectMode: false }));
    },
  });

  /** The site's page a form names, if it is one (else the refusal, never a redirect elsewhere). */
  const targetOf = async (body: unknown): Promise<URL> => {
    const { site_id, thread_url } = postedFields(body);
    if (typeof site_id !== 'string' || typeof thread_url !== 'string') throw new AppError('validation_failed', 'site_id and thread_url are required', [{ path: 'body', message: 'needs site_id and thread_url' }]);
    return returnTarget(await siteOrNotFound(db.kysely, site_id), publicUrl, thread_url, 'body/thread_url');
  };

  app.post('/v1/comments/form', {
    schema: {
      tags: ['comments'],
      summary: 'Post a guest comment from an HTML form (the thread HTML\'s, without JavaScript)',
      description:
        'The form of GET /v1/comments/html: the same creation as POST /v1/comments for a guest (limits, spam checks, moderation), ' +
        'answered with 303 back to the page: to `#parley-<id>` when the comment is published, else with `parley_notice` (`held`, or the ' +
        'error code that refused it, with `parley_retry` or `parley_detail`) and `#parley-form`. Only to a page of the site: `thread_url` on ' +
        "another host than the site's domains (or Parley's own) is refused with the problem, never redirected to; so is a site without domains (409).",
      security: OptionalCredential,
      body: formBodyOf(FormPost),
      response: { 303: Type.Null({ description: 'Back to the page' }), ...errors },
    },
    config: { commentCreation: true, refusedAfterBody: true },
    preHandler: async (request) => {
      request.formTarget = await targetOf(request.body);
      if (request.deferredRefusal) throw request.deferredRefusal;
    },
    errorHandler: async (failure: FastifyError | AppError, request, reply) => {
      // A request over the limit is answered as refused by it, whatever else was wrong with it (its Retry-After is set).
      const error = request.deferredRefusal ?? failure;
      const target = request.formTarget ?? (await targetOf(request.body).catch(() => null));
      if (!target) throw error;
      return goBack(reply, target, refusal(error, reply));
    },
    handler: async (request, reply) => {
      const { author_name, parent_id, ...fields } = request.body as Static<typeof FormPost>;
      const created = await createComment(
        db,
        request.caller,
        { ...fields, ...(author_name && { author_name }), ...(parent_id && { parent_id }), language: requestLocale(request) },
        confirmMails,
      );
      if (created.status === 'published') return reply.code(303).header('location', pageLink(request.formTarget!.href, {}, `parley-${created.id}`)).send();
      return goBack(reply, request.formTarget!, { notice: 'held' });
    },
  });
};

/** The list's serializer, compiled only when a thread's HTML is built (a kept one needs none). */
export function lazySerializer(reply: FastifyReply): SerializeComment {
  let compiled: SerializeComment | null = null;
  return (comment) => (compiled ??= commentSerializer(reply))(comment);
}

/** Why a form's comment was refused, as the page's `parley_*` parameters. */
function refusal(error: FastifyError | AppError, reply: FastifyReply): Record<string, string> {
  if (error instanceof AppError) {
    if (error.code === 'rate_limited') return { notice: error.code, retry: String(error.retryAfterSeconds ?? reply.getHeader('retry-after') ?? '') };
    const detail = error.errors?.length ? error.errors.map((e) => `${e.path.split('/').pop()} ${e.message}`).join('; ') : error.message;
    return { notice: error.code, detail: detail.slice(0, 300) };
  }
  if (error.validation) return { notice: 'validation_failed', detail: error.message.slice(0, 300) };
  throw error;
}

function goBack(reply: FastifyReply, target: URL, params: Record<string, string>) {
  const shown = Object.fromEntries(Object.entries(params).filter(([, value]) => value !== ''));
  return reply.code(303).header('location', pageLink(target.href, shown)).send();
}

