import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../../audit/audit.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/connect.ts';
import { errors, IdParams, ManagementRead, ManagementWrite, Nullable, Timestamp } from '../../http/schemas.ts';
import { managedSite } from '../../sites/repository.ts';
import { checkGithub } from './github.ts';
import { assertReachableIssuer, issuerOf, PROVIDER_TYPES } from './kinds.ts';
import { checkOidc } from './oidc.ts';
import { callbackUrl, createProvider, deleteProvider, listProviders, providerOfSite, providerView, updateProvider } from './service.ts';

const TAGS = { tags: ['reader sign-in'] };

const ProviderType = Type.Enum([...PROVIDER_TYPES], {
  description:
    '`oidc` (any OpenID Connect issuer; issuer required), `github` (issuer: a GitHub Enterprise Server\'s base URL; default https://github.com), ' +
    '`google`, `gitlab` (issuer: a self-managed GitLab; default https://gitlab.com), `microsoft` (issuer: a tenant\'s v2.0 issuer; default the personal accounts\' tenant)',
});
const Issuer = Type.String({ minLength: 1, maxLength: 500, description: 'https (http only on 127.0.0.1, ::1 or localhost)' });
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'What the sign-in button says: "Sign in with <name>"' });
const ClientId = Type.String({ minLength: 1, maxLength: 500 });
const ClientSecret = Type.String({ minLength: 1, maxLength: 2000, description: 'Never shown again' });

const ProviderView = Type.Object({
  id: Type.String(),
  site_id: Type.String(),
  type: ProviderType,
  name: Type.String(),
  client_id: Type.String(),
  issuer: Type.String({ description: 'The issuer signed in at: the one given, else the type\'s' }),
  callback_url: Type.String({ description: "The redirect URI to register in the provider's console" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const ProviderParams = Type.Object({ id: IdParams.properties.id, provider_id: IdParams.properties.id });

/** Site admins add, change, test and remove the identity providers readers sign in with. */
export const identityProviderRoutes: FastifyPluginAsyncTypebox<{ db: Db; config: Config }> = async (app, { db, config }) => {
  const view = (provider: Parameters<typeof providerView>[0]) => providerView(provider, config.publicUrl);

  app.post('/api/sites/:id/identity-providers', {
    schema: {
      ...TAGS,
      summary: 'Add an identity provider readers sign in with',
      security: ManagementWrite,
      params: IdParams,
      body: Type.Object({ type: ProviderType, name: Name, client_id: ClientId, client_secret: ClientSecret, issuer: Type.Optional(Nullable(Issuer)) }, { additionalProperties: false }),
      response: { 201: ProviderView, ...errors },
    },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return reply.code(201).send(view(await createProvider(db.kysely, site, request.body, actorOf(request.caller))));
    },
  });

  app.get('/api/sites/:id/identity-providers', {
    schema: { ...TAGS, summary: "The site's identity providers, without their secrets", security: ManagementRead, params: IdParams, response: {
        200: Type.Object({ providers: Type.Array(ProviderView), callback_url: Type.String({ description: "The redirect URI to register in every provider's console, the same for all" }) }),
        ...errors,
      },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return { providers: (await listProviders(db.kysely, site.id)).map(view), callback_url: callbackUrl(config.publicUrl) };
    },
  });

  app.get('/api/sites/:id/identity-providers/:provider_id', {
    schema: { ...TAGS, summary: 'One identity provider, without its secret', security: ManagementRead, params: ProviderParams, response: { 200: ProviderView, ...errors } },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return view(await providerOfSite(db.kysely, site.id, request.params.provider_id));
    },
  });

  app.patch('/api/sites/:id/identity-providers/:provider_id', {
    schema: {
      ...TAGS,
      summary: 'Change an identity provider (its type stays; add another for another type)',
      description: '`issuer: null` goes back to the type\'s own issuer (not for `oidc`, which has none).',
      security: ManagementWrite,
      params: ProviderParams,
      body: Type.Object({ name: Type.Optional(Name), client_id: Type.Optional(ClientId), client_secret: Type.Optional(ClientSecret), issuer: Type.Optional(Nullable(Issuer)) }, { additionalProperties: false }),
      response: { 200: ProviderView, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return view(await updateProvider(db.kysely, site, request.params.provider_id, request.body, actorOf(request.caller)));
    },
  });

  app.delete('/api/sites/:id/identity-providers/:provider_id', {
    schema: {
      ...TAGS,
      summary: 'Remove an identity provider: nobody signs in through it any more',
      description: "Its readers' identities and sign-ins in progress go with it; the readers and their comments stay, and sign in again another way.",
      security: ManagementWrite,
      params: ProviderParams,
      response: { 200: ProviderView, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      return view(await deleteProvider(db.kysely, site, request.params.provider_id, actorOf(request.caller)));
    },
  });

  app.post('/api/sites/:id/identity-providers/:provider_id/test', {
    schema: {
      ...TAGS,
      summary: 'Check that the provider answers: discovery for OpenID Connect, the authorization page and API for GitHub',
      security: ManagementWrite,
      params: ProviderParams,
      response: { 200: Type.Object({ ok: Type.Boolean(), detail: Type.String({ description: 'What was found, or what failed' }) }), ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      const provider = await providerOfSite(db.kysely, site.id, request.params.provider_id);
      await assertReachableIssuer(issuerOf(provider), config.identityAllowPrivate);
      return provider.type === 'github' ? checkGithub(provider) : checkOidc(provider);
    },
  });
};
