import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { errors } from '../http/schemas.ts';
import { verifiedPage, verifyPage } from '../mail/pages.ts';
import { formBodyOf, HtmlPage, registerFormParsers } from '../mail/form-body.ts';
import { confirmAddress, pendingConfirmation, VERIFY_PAGE } from './addresses.ts';

const VerifyQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'From the confirmation mail' }) });
/** The page's button posts an empty form: everything is in the query. */
const EmptyForm = formBodyOf(Type.Object({}, { additionalProperties: true }));
const PAGE = { tags: ['staff'], querystring: VerifyQuery };

/**
 * The page of the link mailed to a staff member's new address (addresses.ts). As with readers'
 * confirmation links, opening it only asks (mail scanners open links on their own); its button
 * posts to the same address, which confirms.
 */
export const addressRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  registerFormParsers(app);

  app.get(VERIFY_PAGE, {
    schema: { ...PAGE, summary: "The page of a staff address's confirmation link: asks to confirm (nothing changes yet)", response: { 200: HtmlPage, ...errors } },
    handler: async (request, reply) => {
      await pendingConfirmation(db.kysely, request.query.token);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(verifyPage());
    },
  });

  app.post(VERIFY_PAGE, {
    config: { staffSignIn: true },
    schema: { ...PAGE, summary: 'Confirm a staff address (the link works once, for 7 days)', body: EmptyForm, response: { 200: HtmlPage, ...errors } },
    handler: async (request, reply) => {
      await confirmAddress(db.kysely, request.query.token);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(verifiedPage());
    },
  });
};
