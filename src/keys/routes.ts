import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../db/connect.ts';
import { errors, IdParams, ManagementRead, ManagementWrite } from '../http/schemas.ts';
import type { KeyUse } from './last-used.ts';
import { KeyList, KeyListQuery, KeySchema, NewKeyBody, NewKeyResponse, RenameKeyBody } from './schemas.ts';
import { createKeyFor, listKeys, renameKey, revokeKey } from './service.ts';

/** API keys of the accounts a caller administers (owner or admin; an admin key). */
export const keyRoutes: FastifyPluginAsyncTypebox<{ db: Db; keyUse: KeyUse }> = async (app, { db, keyUse }) => {
  app.get('/api/keys', {
    schema: {
      tags: ['keys'],
      summary: 'API keys the caller manages, newest first (never their secrets)',
      security: ManagementRead,
      querystring: KeyListQuery,
      response: { 200: KeyList, ...errors },
    },
    handler: (request) => listKeys(db.kysely, request.caller, keyUse, { includeRevoked: request.query.include_revoked ?? false }),
  });

  app.post('/api/keys', {
    schema: {
      tags: ['keys'],
      summary: 'Create an API key; the secret is in this response only',
      security: ManagementWrite,
      body: NewKeyBody,
      response: { 201: NewKeyResponse, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(await createKeyFor(db.kysely, request.caller, request.body)),
  });

  app.patch('/api/keys/:id', {
    schema: { tags: ['keys'], summary: 'Rename an API key', security: ManagementWrite, params: IdParams, body: RenameKeyBody, response: { 200: KeySchema, ...errors } },
    handler: (request) => renameKey(db.kysely, request.caller, request.params.id, request.body.name, keyUse),
  });

  app.delete('/api/keys/:id', {
    schema: { tags: ['keys'], summary: 'Revoke an API key; idempotent', security: ManagementWrite, params: IdParams, response: { 200: KeySchema, ...errors } },
    handler: (request) => revokeKey(db.kysely, request.caller, request.params.id, keyUse),
  });
};
