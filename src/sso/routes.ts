import { requestLocale } from '../i18n/request.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../audit/audit.ts';
import type { Db } from '../db/connect.ts';
import { errors, IdParams, ManagementRead, ManagementWrite, Timestamp } from '../http/schemas.ts';
import { SessionCreated } from '../sessions/routes.ts';
import { managedSite } from '../sites/repository.ts';
import { createSecret, deleteSecret, exchangeToken, listSecrets, MAX_SECRETS } from './service.ts';

const SecretView = Type.Object({
  id: Type.String({ description: "sso_<id>: the JWT header's kid" }),
  created_at: Timestamp,
});

const SecretParams = Type.Object({ id: IdParams.properties.id, secret_id: IdParams.properties.id });

const EXCHANGE =
  "The site's backend signs a JWT for the signed-in user with one of the site's SSO secrets: header " +
  '`{"alg":"HS256","typ":"JWT","kid":"<secret id>"}`, claims `iss` (the site id), `aud` ("parley"), `sub` (the site\'s user id), ' +
  '`name`, `iat` and `exp` (seconds; exp at most 15 minutes after iat), `jti` (unique; a token is exchanged once, on any instance), ' +
  'and optionally `avatar_url`, `email` (one address) and `moderator` (honoured only when the site sets sso_moderators). Clocks may differ by 60 s. ' +
  '`name` follows the rules of POST /v1/sessions: no bidirectional control or zero-width character. ' +
  'A refused token answers 401 with `reason` (malformed, unsupported_algorithm, missing_kid, unknown_key, bad_signature, wrong_issuer, ' +
  'wrong_audience, missing_claim, invalid_claim, iat_in_milliseconds, lifetime_too_long, expired, not_yet_valid, replayed) and `server_time`.';

export const ssoRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.post('/v1/sso/exchange', {
    schema: {
      tags: ['sessions'],
      summary: 'Exchange a signed sign-on token (JWT) for a widget session',
      description: EXCHANGE,
      body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 8192, description: 'The JWT' }) }),
      response: { 201: SessionCreated, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(await exchangeToken(db, request.body.token, requestLocale(request))),
  });

  app.post('/api/sites/:id/sso-secrets', {
    schema: {
      tags: ['sessions'],
      summary: `Add an SSO signing secret (a site holds at most ${MAX_SECRETS}); the secret is in this response only`,
      security: ManagementWrite,
      params: IdParams,
      response: { 201: Type.Object({ ...SecretView.properties, secret: Type.String({ description: 'The HMAC key, shown this once' }) }), ...errors },
    },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return reply.code(201).send(await createSecret(db.kysely, site, actorOf(request.caller)));
    },
  });

  app.get('/api/sites/:id/sso-secrets', {
    schema: {
      tags: ['sessions'],
      summary: "The site's SSO secrets, without the secrets themselves",
      security: ManagementRead,
      params: IdParams,
      response: { 200: Type.Object({ secrets: Type.Array(SecretView) }), ...errors },
    },
    handler: async (request) => {
      return listSecrets(db.kysely, await managedSite(db.kysely, request.caller, request.params.id, 'administer'));
    },
  });

  app.delete('/api/sites/:id/sso-secrets/:secret_id', {
    schema: {
      tags: ['sessions'],
      summary: 'Delete an SSO secret: tokens it signed are refused from now on',
      security: ManagementWrite,
      params: SecretParams,
      response: { 200: SecretView, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return deleteSecret(db.kysely, site, request.params.secret_id, actorOf(request.caller));
    },
  });
};
