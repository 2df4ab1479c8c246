import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../db/connect.ts';
import { Credential, errors, IdParams, OptionalCredential } from '../http/schemas.ts';
import { CommentList, CommentRef, CreateBody, EditBody, ListQuery } from './schemas.ts';
import { createComment, deleteComment, editComment, getComment, listComments } from './service.ts';

export const commentRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/v1/comments', {
    schema: {
      tags: ['comments'],
      summary: 'List a thread: pages of top-level comments with their nested replies',
      security: OptionalCredential,
      querystring: ListQuery,
      response: { 200: CommentList, ...errors },
    },
    handler: (request) => listComments(db, request.caller, request.query),
  });

  app.get('/v1/comments/:id', {
    schema: {
      tags: ['comments'],
      summary: 'One comment with its whole visible subtree',
      security: OptionalCredential,
      params: IdParams,
      response: { 200: CommentRef, ...errors },
    },
    handler: (request) => getComment(db, request.caller, request.params.id),
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
    handler: async (request, reply) => reply.code(201).send(await createComment(db, request.caller, request.body)),
  });

  app.patch('/v1/comments/:id', {
    schema: {
      tags: ['comments'],
      summary: "Edit one's own comment",
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
};
