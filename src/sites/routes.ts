import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { accountToAdminister, requireAccountAdmin, requireCredential } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { Credential, errors, IdParams } from '../http/schemas.ts';
import { findSiteToAdminister, listSitesFor } from './repository.ts';
import { KeySchema, NewKeyBody, NewKeyResponse, NewSiteBody, PublicSiteSchema, SiteSchema, SiteSettingsBody, UpdatedSiteSchema } from './schemas.ts';
import { createKeyFor, createSite, revokeKey, updateSite } from './service.ts';
import { publicSiteView, siteView } from './view.ts';

export const siteRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/v1/sites', {
    schema: {
      tags: ['sites'],
      summary: 'Sites visible to the credential',
      description: "An API key sees each site's settings in full; a session (its token is printed into pages) sees only its own site's public settings",
      security: Credential,
      response: { 200: Type.Object({ sites: Type.Array(Type.Union([SiteSchema, PublicSiteSchema])) }), ...errors },
    },
    handler: async (request) => {
      requireCredential(request.caller);
      const view = request.caller.kind === 'session' ? publicSiteView : siteView;
      return { sites: (await listSitesFor(db.kysely, request.caller)).map(view) };
    },
  });

  app.post('/api/sites', {
    schema: {
      tags: ['sites'],
      summary: "Create a site in the admin key's account",
      security: Credential,
      body: NewSiteBody,
      response: { 201: SiteSchema, ...errors },
    },
    handler: async (request, reply) => {
      const admin = accountToAdminister(request.caller, request.body.account_id);
      if (admin.siteIds !== null) throw new AppError('forbidden', 'A key limited to some sites cannot create sites');
      return reply.code(201).send(siteView(await createSite(db.kysely, admin.accountId, request.body)));
    },
  });

  app.get('/api/sites/:id', {
    schema: { tags: ['sites'], summary: 'A site and its settings', security: Credential, params: IdParams, response: { 200: SiteSchema, ...errors } },
    handler: async (request) => {
      return siteView(await findSiteToAdminister(db.kysely, request.caller, request.params.id));
    },
  });

  app.patch('/api/sites/:id', {
    schema: {
      tags: ['sites'],
      summary: "Change a site's settings",
      security: Credential,
      params: IdParams,
      body: SiteSettingsBody,
      response: { 200: UpdatedSiteSchema, ...errors },
    },
    handler: async (request) => {
      const site = await findSiteToAdminister(db.kysely, request.caller, request.params.id);
      const options = { allowPrivateWebhookTargets: app.config.webhookAllowPrivate };
      const updated = await updateSite(db.kysely, site, request.body, options);
      return { ...siteView(updated.site), ...(updated.generatedSecret && { generated_webhook_secret: updated.generatedSecret }) };
    },
  });

  app.post('/api/keys', {
    schema: {
      tags: ['sites'],
      summary: 'Create an API key; the secret is in this response only',
      security: Credential,
      body: NewKeyBody,
      response: { 201: NewKeyResponse, ...errors },
    },
    handler: async (request, reply) => {
      const admin = accountToAdminister(request.caller, request.body.account_id);
      return reply.code(201).send(await createKeyFor(db.kysely, admin, request.body));
    },
  });

  app.delete('/api/keys/:id', {
    schema: { tags: ['sites'], summary: 'Revoke an API key; idempotent', security: Credential, params: IdParams, response: { 200: KeySchema, ...errors } },
    handler: async (request) => {
      requireAccountAdmin(request.caller);
      return revokeKey(db.kysely, request.caller, request.params.id);
    },
  });
};
