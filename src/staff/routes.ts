import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { requireStaff } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { errors, StaffRead, StaffWrite } from '../http/schemas.ts';
import { matchLocale } from '../i18n/locales.ts';
import { openLoginLimiter } from '../ratelimits/login.ts';
import { addressRoutes } from './address-routes.ts';
import { clearStaffCookie, csrfTokenOf, setStaffCookie } from './cookie-auth.ts';
import { deviceCookieOf, setDeviceCookie } from './devices.ts';
import { namedMemberships, staffView, type StaffRow } from './repository.ts';
import {
  AcceptInviteBody,
  Joined,
  LoginBody,
  MeQuery,
  PasswordChangeBody,
  PasswordChanged,
  ResetBody,
  ResetDone,
  SessionParams,
  SetupBody,
  SignedInSchema,
  StaffLanguage,
  StaffSessionSchema,
} from './schemas.ts';
import { changeLanguage, changePassword, joinThroughLink, resetPassword, signIn } from './service.ts';
import { listStaffSessions, openStaffSession, revokeStaffSession, type OpenedSession } from './sessions.ts';

const AUTH = { tags: ['staff'] };
const SIGN_IN = { staffSignIn: true };

/**
 * Staff sign-in: sessions, passwords, and joining through links. Sign-in, setup, invites and resets
 * prove themselves in their bodies, so they need no cookie or CSRF token, but they answer only this
 * server's own origin (see cookie-auth.ts).
 */
export const staffAuthRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const limiter = await openLoginLimiter(app.config, app.log);
  app.addHook('onClose', () => limiter.close());
  await app.register(addressRoutes, { db });

  const signedIn = async (request: FastifyRequest, reply: FastifyReply, staff: StaffRow, session: Pick<OpenedSession, 'id' | 'csrfSecret' | 'createdAt' | 'expiresAt'>) => ({
    staff: staffView(staff),
    language: matchLocale(staff.language),
    memberships: await namedMemberships(db.kysely, staff.id),
    csrf_token: csrfTokenOf(request, reply, session.csrfSecret),
    session: { id: session.id, created_at: session.createdAt, expires_at: session.expiresAt },
  });

  app.post('/api/auth/login', {
    config: SIGN_IN,
    schema: {
      ...AUTH,
      summary: 'Sign in: sets the session cookie (and a device cookie) and answers with the CSRF token (failures are limited per client, and per account or known device: 429)',
      body: LoginBody,
      response: { 200: SignedInSchema, ...errors },
    },
    handler: async (request, reply) => {
      const { staff, device } = await signIn(db, limiter, request.body, request.ip, reply, deviceCookieOf(request));
      const session = await openStaffSession(db.kysely, staff, { ip: request.ip, userAgent: request.headers['user-agent'] ?? null });
      setStaffCookie(request, reply, session);
      setDeviceCookie(request, reply, staff, device);
      return signedIn(request, reply, staff, session);
    },
  });

  app.get('/api/auth/me', {
    schema: {
      ...AUTH,
      summary: 'Who is signed in, their accounts and roles, and a CSRF token',
      description: 'With if_signed_in=true, nobody signed in is 204 (no body) rather than 401: a page asks whether someone is without an error.',
      security: StaffRead,
      querystring: MeQuery,
      response: { 200: SignedInSchema, 204: Type.Null(), ...errors },
    },
    handler: async (request, reply) => {
      if (request.query.if_signed_in && request.caller.kind === 'public') return reply.code(204).send(null);
      requireStaff(request.caller);
      const { staffId, staffSessionId } = request.caller;
      const [staff, session] = await Promise.all([
        db.kysely.selectFrom('staff').selectAll().where('id', '=', staffId).executeTakeFirstOrThrow(),
        db.kysely.selectFrom('staff_sessions').select(['created_at', 'expires_at']).where('id', '=', staffSessionId).executeTakeFirstOrThrow(),
      ]);
      const current = { id: staffSessionId, csrfSecret: request.session!.csrfSecret, createdAt: session.created_at, expiresAt: session.expires_at };
      return signedIn(request, reply, staff, current);
    },
  });

  app.put('/api/auth/me/language', {
    schema: { ...AUTH, summary: "Choose the language of your dashboard and of Parley's mails to you (null: your browser's)", security: StaffWrite, body: StaffLanguage, response: { 200: StaffLanguage, ...errors } },
    handler: async (request) => {
      requireStaff(request.caller);
      return changeLanguage(db, request.caller, request.body.language);
    },
  });

  app.post('/api/auth/logout', {
    schema: { ...AUTH, summary: 'Sign out: ends this session and clears the cookie', security: StaffWrite, response: { 204: Type.Null(), ...errors } },
    handler: async (request, reply) => {
      requireStaff(request.caller);
      await revokeStaffSession(db.kysely, request.caller, request.caller.staffSessionId);
      clearStaffCookie(request, reply);
      return reply.code(204).send(null);
    },
  });

  app.get('/api/auth/sessions', {
    schema: {
      ...AUTH,
      summary: "The signed-in person's sessions still in force, newest first",
      security: StaffRead,
      response: { 200: Type.Object({ sessions: Type.Array(StaffSessionSchema) }), ...errors },
    },
    handler: async (request) => {
      requireStaff(request.caller);
      return { sessions: await listStaffSessions(db.kysely, request.caller) };
    },
  });

  app.delete('/api/auth/sessions/:id', {
    schema: { ...AUTH, summary: 'End one of your sessions (idempotent)', security: StaffWrite, params: SessionParams, response: { 200: StaffSessionSchema, ...errors } },
    handler: async (request, reply) => {
      requireStaff(request.caller);
      const session = await revokeStaffSession(db.kysely, request.caller, request.params.id);
      if (session.current) clearStaffCookie(request, reply);
      return session;
    },
  });

  app.post('/api/auth/password', {
    schema: {
      ...AUTH,
      summary: 'Change your password; every other session of yours ends',
      security: StaffWrite,
      body: PasswordChangeBody,
      response: { 200: PasswordChanged, ...errors },
    },
    handler: async (request, reply) => {
      requireStaff(request.caller);
      return changePassword(db, limiter, request.caller, request.body, reply);
    },
  });

  app.post('/api/auth/invites/accept', {
    config: SIGN_IN,
    schema: {
      ...AUTH,
      summary: "Accept an invite: a new address becomes a staff member (name and password); a known one proves its password and joins",
      body: AcceptInviteBody,
      response: { 201: Joined, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(await joinThroughLink(db, limiter, 'invite', request.body, request.ip, reply)),
  });

  app.post('/api/auth/setup', {
    config: SIGN_IN,
    schema: {
      ...AUTH,
      summary: "First run: become the owner of the demo account with the setup link `npm start` printed (once, while it has no owner)",
      body: SetupBody,
      response: { 201: Joined, ...errors },
    },
    handler: async (request, reply) => reply.code(201).send(await joinThroughLink(db, limiter, 'setup', request.body, request.ip, reply)),
  });

  app.post('/api/auth/reset', {
    config: SIGN_IN,
    schema: { ...AUTH, summary: 'Set a new password with a reset link; every session of that person ends', body: ResetBody, response: { 200: ResetDone, ...errors } },
    handler: async (request) => resetPassword(db, request.body),
  });
};
