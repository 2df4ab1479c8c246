import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { actorOf } from '../audit/audit.ts';
import type { Db } from '../db/connect.ts';
import { errors, IdParams, ManagementRead, ManagementWrite } from '../http/schemas.ts';
import { managedSite } from '../sites/repository.ts';
import { createBan, liftBan, listBans } from './bans.ts';
import { eraseUser } from './erase.ts';
import { setLabels } from './labels.ts';
import {
  BanList,
  BanListQuery,
  BanParams,
  BanSchema,
  LabelsBody,
  ModeratedUser,
  ModerateUserBody,
  NewBanBody,
  NewNoteBody,
  NoteParams,
  NoteSchema,
  Profile,
  UserParams,
} from './schemas.ts';
import { addNote, commenterProfile, deleteNote, moderateUserComments } from './service.ts';

/** A site's commenters for its moderators: profiles, notes, bans, removing all of a user's comments; and, for admins, erasing a user. */
export const commenterRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/api/sites/:id/users/:user_id', {
    schema: {
      tags: ['commenters'],
      summary: "A site user's profile: comments by status, recent comments, bans, moderators' notes",
      security: ManagementRead,
      params: UserParams,
      response: { 200: Profile, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return commenterProfile(db, site, request.params.user_id);
    },
  });

  app.patch('/api/sites/:id/users/:user_id', {
    schema: {
      tags: ['commenters'],
      summary: "Give a site user labels (moderators): badges their comments on the site show, new and earlier ones alike",
      security: ManagementWrite,
      params: UserParams,
      body: LabelsBody,
      response: { 200: Profile, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      await setLabels(db, site, request.params.user_id, request.body.labels);
      return commenterProfile(db, site, request.params.user_id);
    },
  });

  app.delete('/api/sites/:id/users/:user_id', {
    schema: {
      tags: ['commenters'],
      summary: "Erase a site user's personal data (admins): addresses, subscriptions, sessions, name, avatar, the site's id for them",
      description:
        'Their comments stay, under the name "Deleted user" (remove or delete them first if they should go too); a later sign-in with the same site user id starts a new user. 204, and 204 again for a user erased before; the audit log records it without the erased data.',
      security: ManagementWrite,
      params: UserParams,
      response: { 204: Type.Null(), ...errors },
    },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'administer');
      await eraseUser(db, actorOf(request.caller), site, request.params.user_id);
      return reply.code(204).send(null);
    },
  });

  app.post('/api/sites/:id/users/:user_id/notes', {
    schema: { tags: ['commenters'], summary: 'Add a note on a user, for the moderators', security: ManagementWrite, params: UserParams, body: NewNoteBody, response: { 201: NoteSchema, ...errors } },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return reply.code(201).send(await addNote(db, request.caller, site, request.params.user_id, request.body.body));
    },
  });

  app.delete('/api/sites/:id/users/:user_id/notes/:note_id', {
    schema: { tags: ['commenters'], summary: "Delete a note: its author's own, or any as an owner or admin (403 for another moderator's)", security: ManagementWrite, params: NoteParams, response: { 200: NoteSchema, ...errors } },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return deleteNote(db, request.caller, site, request.params.user_id, request.params.note_id);
    },
  });

  app.post('/api/sites/:id/users/:user_id/moderate', {
    schema: {
      tags: ['commenters'],
      summary: "Remove (or mark as spam) all of a user's comments on the site",
      description: 'Each comment is moderated as PATCH /v1/comments/{id}/moderate would (log entry and events per comment).',
      security: ManagementWrite,
      params: UserParams,
      body: ModerateUserBody,
      response: { 200: ModeratedUser, ...errors },
    },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return moderateUserComments(db, request.caller, site, request.params.user_id, request.body.action, request.body.reason ?? null);
    },
  });

  app.get('/api/sites/:id/bans', {
    schema: { tags: ['commenters'], summary: "A site's bans, newest first", security: ManagementRead, params: IdParams, querystring: BanListQuery, response: { 200: BanList, ...errors } },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return listBans(db, site, request.query);
    },
  });

  app.post('/api/sites/:id/bans', {
    schema: {
      tags: ['commenters'],
      summary: "Ban a site user: 'ban' refuses their writes (until expires_at, if given), 'shadow_ban' hides their comments from others",
      security: ManagementWrite,
      params: IdParams,
      body: NewBanBody,
      response: { 201: BanSchema, ...errors },
    },
    handler: async (request, reply) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return reply.code(201).send(await createBan(db, request.caller, site, request.body));
    },
  });

  app.delete('/api/sites/:id/bans/:ban_id', {
    schema: { tags: ['commenters'], summary: 'Lift a ban (a shadow ban: the comments it hid are shown again)', security: ManagementWrite, params: BanParams, response: { 200: BanSchema, ...errors } },
    handler: async (request) => {
      const site = await managedSite(db.kysely, request.caller, request.params.id, 'moderate');
      return liftBan(db, request.caller, site, request.params.ban_id);
    },
  });
};
