import { requestLocale } from '../i18n/request.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Caller } from '../auth/caller.ts';
import { requireCapability } from '../auth/management.ts';
import type { Db } from '../db/connect.ts';
import { Credential, errors, IdParams, ManagementWrite, OptionalCredential } from '../http/schemas.ts';
import { sendWithEtag } from '../http/etag.ts';
import type { ConfirmMailLimiter } from '../ratelimits/confirm-mails.ts';
import type { CommentCaches } from './caches.ts';
import type { SerializeComment } from './public-list.ts';
import { MAX_PINNED } from './pinned.ts';
import { setPinned } from './pins.ts';
import { readerAnswer } from './reader-answer.ts';
import { taggedResponse } from './response-cache.ts';
import { managedSite } from '../sites/repository.ts';
import { CommentList, CommentPage, CommentQuery, CommentRef, CreateBody, EditBody, ListedComment, ListQuery, StaffCommentBody } from './schemas.ts';
import { createComment, deleteComment, editComment, listComments, readComment } from './service.ts';
import { SUBTREE_PAGE_DEFAULT, SUBTREE_PAGE_MAX } from './subtree-page.ts';

/** A top-level comment with its replies, written as the list's response schema writes each (compiled once, then kept by Fastify). */
export function commentSerializer(reply: FastifyReply): SerializeComment {
  const toJson = reply.compileSerializationSchema(ListedComment as unknown as Record<string, unknown>);
  return (comment) => toJson(comment as unknown as Record<string, unknown>);
}

const notModified = Type.Null({ description: 'Not modified: the If-None-Match entity tag is current' });

export const commentRoutes: FastifyPluginAsyncTypebox<{ db: Db; caches: CommentCaches; confirmMails: ConfirmMailLimiter | null }> = async (app, { db, caches, confirmMails }) => {
  app.get('/v1/comments', {
    schema: {
      tags: ['comments'],
      summary: 'List a thread: pages of top-level comments with their nested replies',
      description:
        `Pinned top-level comments (at most ${MAX_PINNED}) lead page 1 of every sort, oldest pin first, marked pinned; page 1 still holds \`limit\` top-level comments, ` +
        'and later pages continue with the others where it stopped. ' +
        'Every list carries an ETag; a request whose If-None-Match names it gets 304 and no body. ' +
        'Lists for the public (no credential) are served from a response cache that every write to the thread clears.',
      security: OptionalCredential,
      querystring: ListQuery,
      response: { 200: CommentList, 304: notModified, ...errors },
    },
    handler: async (request, reply) => {
      // The public's list of this URL (see public-list.ts), which readers' lists are made of too.
      const publicList = () => caches.lists.read(db, request.url, request.query, commentSerializer(reply));
      const { caller } = request;
      if (caller.kind === 'public') return sendWithEtag(request, reply, await publicList());
      const list = await listComments(db, caller, request.query, publicList, caches.readerMarks);
      if ('own' in list) return sendWithEtag(request, reply, taggedResponse(Buffer.from(reply.serialize(list.own) as string)));
      return sendWithEtag(request, reply, readerAnswer(caches.readerAnswers, caller, request.url, list.shown, list.marks));
    },
  });

  app.get('/v1/comments/:id', {
    schema: {
      tags: ['comments'],
      summary: 'One comment with its visible subtree, a part at a time',
      description:
        `Up to \`limit\` replies (default ${SUBTREE_PAGE_DEFAULT}, at most ${SUBTREE_PAGE_MAX}), walked depth first with replies oldest first ` +
        'under each comment, as lists nest them. A comment whose replies were left for a later part carries has_more_replies; ' +
        '`next_cursor`, passed as `after`, fetches the next part, until it is null. One answer nests at most 200 levels: ' +
        'the comment at level 200 is marked has_more_replies, and GET on it continues below. ' +
        'Carries an ETag as lists do. The public\'s answer is served from a response cache that every write to the thread clears, ' +
        'and a signed-in reader who sees what the public sees gets it with their own marks.',
      security: OptionalCredential,
      params: IdParams,
      querystring: CommentQuery,
      response: { 200: CommentPage, 304: notModified, ...errors },
    },
    handler: async (request, reply) => {
      const { caller, query } = request;
      const serialize = (page: unknown) => reply.serialize(page) as string;
      const shared = caches.comments.at(db, request.url, request.params.id, query, serialize);
      const answer = await readComment(db, caller, request.params.id, query, shared, caches.readerMarks);
      if ('own' in answer) return sendWithEtag(request, reply, taggedResponse(Buffer.from(serialize(answer.own))));
      return sendWithEtag(request, reply, readerAnswer(caches.readerAnswers, caller, request.url, answer.shown, answer.marks));
    },
  });

  app.post('/v1/comments', {
    schema: {
      tags: ['comments'],
      summary: 'Post a comment or a reply (guests without a credential, where the site allows them)',
      security: OptionalCredential,
      body: CreateBody,
      response: { 201: CommentRef, ...errors },
    },
    config: { commentCreation: true },
    handler: async (request, reply) => reply.code(201).send(await createComment(db, request.caller, { ...request.body, language: requestLocale(request) }, confirmMails)),
  });

  app.post('/api/comments', {
    schema: {
      tags: ['comments'],
      summary: "Post a comment or a reply from the dashboard, as oneself (the site's moderators)",
      description:
        "Staff (owners, admins, moderators of the site) write under their own name with the `staff` badge; moderator and admin keys " +
        'write as POST /v1/comments would with the key (under its name, no badge). Published at once: neither the spam checks nor ' +
        'the moderation mode hold what a moderator writes. Integration keys and readers\' sessions get 403, other sites 404, as other management endpoints answer.',
      security: ManagementWrite,
      body: StaffCommentBody,
      response: { 201: CommentRef, ...errors },
    },
    handler: async (request, reply) => {
      await managedSite(db.kysely, request.caller, request.body.site_id, 'moderate');
      return reply.code(201).send(await createComment(db, request.caller, request.body));
    },
  });

  app.patch('/v1/comments/:id', {
    schema: {
      tags: ['comments'],
      summary: "Edit one's own comment",
      description:
        'Where the site would hold a new comment by the caller for approval (moderation_mode `all`, moderators excepted), ' +
        'the edit holds it too: a published comment goes back to pending, and the public sees nothing of it until a moderator approves it. ' +
        "Once the site's edit_window_seconds have passed since the comment was posted (0: at once; null: never), its author gets 403 edit_window_closed, " +
        'unless they moderate the site. The text an edit replaces is kept for moderators (GET /api/comments/{id}/revisions).',
      security: Credential,
      params: IdParams,
      body: EditBody,
      response: { 200: CommentRef, ...errors },
    },
    handler: (request) => editComment(db, request.caller, request.params.id, request.body.content),
  });

  app.delete('/v1/comments/:id', {
    schema: {
      tags: ['comments'],
      summary: 'Soft-delete a comment (author or moderator); idempotent',
      security: Credential,
      params: IdParams,
      response: { 200: CommentRef, ...errors },
    },
    handler: (request) => deleteComment(db, request.caller, request.params.id),
  });

  // Readers' moderators and keys pin through /v1; staff, whose cookie is read under /api/ alone, through its twin.
  // The management API answers by role before any lookup, as its other endpoints do (auth/management.ts).
  const pinPaths = [
    { path: '/v1/comments/:id/pin', security: Credential, byRoleFirst: false },
    { path: '/api/comments/:id/pin', security: ManagementWrite, byRoleFirst: true },
  ];
  for (const { path, security, byRoleFirst } of pinPaths) {
    const pin = (caller: Caller, id: string, pinned: boolean) => {
      if (byRoleFirst) requireCapability(caller, 'moderate');
      return setPinned(db, caller, id, pinned);
    };
    const pinning = (summary: string, description: string) => ({
      tags: ['comments'],
      summary,
      description: `${description} Moderators only (moderator or admin keys and staff, moderator sessions). Answers the comment.`,
      security,
      params: IdParams,
      response: { 200: CommentRef, ...errors },
    });
    app.post(path, {
      schema: pinning(
        'Pin a top-level comment at the head of its thread',
        `Pinned comments lead page 1 of every sort of the thread's lists, oldest pin first, marked pinned; later pages continue with the others. ` +
          `At most ${MAX_PINNED} a thread (409 for one more); a reply cannot be pinned (409). Pinning a pinned comment answers it unchanged.`,
      ),
      handler: (request) => pin(request.caller, request.params.id, true),
    });
    app.delete(path, {
      schema: pinning('Unpin a comment', 'The comment goes back to its place in the lists. Unpinning a comment that is not pinned answers it unchanged.'),
      handler: (request) => pin(request.caller, request.params.id, false),
    });
  }
};
