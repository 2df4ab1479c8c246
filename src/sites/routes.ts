import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireCredential } from '../auth/caller.ts';
import { accountToAdminister } from '../auth/management.ts';
import { actorOf } from '../audit/audit.ts';
import type { Db } from '../db/connect.ts';
import { Credential, errors, IdParams, ManagementRead, ManagementWrite } from '../http/schemas.ts';
import { listSitesFor, managedSite, sitesManagedBy } from './repository.ts';
import { DeleteSiteBody, DeletedSite, NewSiteBody, PublicSiteSchema, SiteSchema, SiteSettingsBody, UpdatedSiteSchema } from './schemas.ts';
import { createSite, deleteSite, updateSite } from './service.ts';
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

  app.get('/api/sites', {
    schema: {
      tags: ['sites'],
      summary: 'Sites the caller moderates or administers, oldest first',
      security: ManagementRead,
      response: { 200: Type.Object({ sites: Type.Array(SiteSchema) }), ...errors },
    },
    handler: async (request) => ({ sites: (await sitesManagedBy(db.kysely, request.caller, 'moderate')).map(siteView) }),
  });

  app.post('/api/sites', {
    schema: {
      tags: ['sites'],
      summary: 'Create a site in an account the caller administers for every site',
      security: ManagementWrite,
      body: NewSiteBody,
      response: { 201: SiteSchema, ...errors },
    },
    handler: async (request, reply) => {
      const { accountId } = accountToAdminister(request.caller, request.body.account_id);
      const site = await db.kysely.transaction().execute((trx) => createSite(trx, accountId, request.body, actorOf(request.caller)));
      return reply.code(201).send(siteView(site));
    },
  });

  app.get('/api/sites/:id', {
    schema: { tags: ['sites'], summary: 'A site and its settings', security: ManagementRead, params: IdParams, response: { 200: SiteSchema, ...errors } },
    handler: async (request) => siteView(await managedSite(db.kysely, request.caller, request.params.id, 'administer')),
  });

  app.patch('/api/sites/:id', {
    schema: {
      tags: ['sites'],
      summary: "Change a site's settings",
      security: ManagementWrite,
      params: IdParams,
      body: SiteSettingsBody,
      response: { 200: UpdatedSiteSchema, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const options = { allowPrivateWebhookTargets: app.config.webhookAllowPrivate };
      const updated = await updateSite(db.kysely, site, request.body, options, actorOf(request.caller));
      return { ...siteView(updated.site), ...(updated.generatedSecret && { generated_webhook_secret: updated.generatedSecret }) };
    },
  });

  app.delete('/api/sites/:id', {
    schema: {
      tags: ['sites'],
      summary: 'Delete a site with all its comments, threads, users, bans, logs and webhook deliveries',
      description: 'Needs the body {"confirm": "<the site\'s name or id>"}. Keys limited to this site alone are revoked.',
      security: ManagementWrite,
      params: IdParams,
      body: DeleteSiteBody,
      response: { 200: DeletedSite, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return deleteSite(db, site, request.body.confirm, actorOf(request.caller));
    },
  });
};
