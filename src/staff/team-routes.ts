import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { errors, ManagementRead, ManagementWrite } from '../http/schemas.ts';
import {
  AccountParams,
  AuditLogSchema,
  AuditQuery,
  InviteParams,
  InviteSchema,
  MemberChangeBody,
  MemberParams,
  MemberSchema,
  NewInviteBody,
  NewInviteSchema,
  ResetLinkSchema,
} from './schemas.ts';
import { auditLogOf, changeMember, invite, issueResetLink, listInvites, listMembers, removeMember, revokeInvite } from './team.ts';

/** Links point at this server's own origin (TRUST_PROXY applied), where the dashboard is served. */
function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

const TEAM = { tags: ['team'] };

/**
 * An account's team, for its owners and admins and its admin keys: members, invites (links shown
 * once to copy), reset links, and the audit log of who changed what.
 */
export const teamRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get('/api/accounts/:id/members', {
    schema: { ...TEAM, summary: "The account's staff and their roles", security: ManagementRead, params: AccountParams, response: { 200: Type.Object({ members: Type.Array(MemberSchema) }), ...errors } },
    handler: (request) => listMembers(db, request.caller, request.params.id),
  });

  app.patch('/api/accounts/:id/members/:staffId', {
    schema: {
      ...TEAM,
      summary: "Change a member's role or a moderator's sites (only owners touch owners; the last owner cannot be demoted: 409)",
      security: ManagementWrite,
      params: MemberParams,
      body: MemberChangeBody,
      response: { 200: MemberSchema, ...errors },
    },
    handler: (request) => changeMember(db, request.caller, request.params.id, request.params.staffId, request.body),
  });

  app.delete('/api/accounts/:id/members/:staffId', {
    schema: {
      ...TEAM,
      summary: 'Remove a member, or leave the account yourself (the last owner cannot: 409)',
      security: ManagementWrite,
      params: MemberParams,
      response: { 200: MemberSchema, ...errors },
    },
    handler: (request) => removeMember(db, request.caller, request.params.id, request.params.staffId),
  });

  app.post('/api/accounts/:id/members/:staffId/reset-link', {
    schema: {
      ...TEAM,
      summary: 'A single-use password reset link for a member (24 hours; earlier ones stop working), shown once to hand over',
      security: ManagementWrite,
      params: MemberParams,
      response: { 201: ResetLinkSchema, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(await issueResetLink(db, request.caller, request.params.id, request.params.staffId, originOf(request))),
  });

  app.get('/api/accounts/:id/invites', {
    schema: { ...TEAM, summary: "The account's invites, newest first (tokens are never shown again)", security: ManagementRead, params: AccountParams, response: { 200: Type.Object({ invites: Type.Array(InviteSchema) }), ...errors } },
    handler: (request) => listInvites(db, request.caller, request.params.id),
  });

  app.post('/api/accounts/:id/invites', {
    schema: {
      ...TEAM,
      summary: 'Invite someone for a role (7 days, single use): the link is in this response only',
      security: ManagementWrite,
      params: AccountParams,
      body: NewInviteBody,
      response: { 201: NewInviteSchema, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(await invite(db, request.caller, request.params.id, request.body, originOf(request))),
  });

  app.delete('/api/accounts/:id/invites/:inviteId', {
    schema: { ...TEAM, summary: 'Revoke an invite (idempotent)', security: ManagementWrite, params: InviteParams, response: { 200: InviteSchema, ...errors } },
    handler: (request) => revokeInvite(db, request.caller, request.params.id, request.params.inviteId),
  });

  app.get('/api/accounts/:id/audit-log', {
    schema: {
      ...TEAM,
      summary: 'Who (a staff member or a key) changed what in the team, newest first',
      security: ManagementRead,
      params: AccountParams,
      querystring: AuditQuery,
      response: { 200: AuditLogSchema, ...errors },
    },
    handler: (request) => auditLogOf(db, request.caller, request.params.id, request.query.page ?? 1, request.query.limit ?? 20),
  });
};
