import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { errors } from '../http/schemas.ts';
import { verifiedPage, verifyPage } from '../mail/pages.ts';
import { AnyFormBody } from '../mail/schemas.ts';
import { confirmAddress, pendingConfirmation, VERIFY_PAGE } from './addresses.ts';

const Html = Type.String({ description: 'A small HTML page' });
const VerifyQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'From the confirmation mail' }) });
const PAGE = { tags: ['staff'], querystring: VerifyQuery };

/**
 * The page of the link mailed to a staff member's new address (addresses.ts). As with readers'
 * confirmation links, opening it only asks (mail scanners open links on their own); its button
 * posts to the same address, which confirms.
 */
export const addressRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  // The page's form posts an empty form: everything is in the query.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, _body, done) => done(null, {}));

  app.get(VERIFY_PAGE, {
    schema: { ...PAGE, summary: "The page of a staff address's confirmation link: asks to confirm (nothing changes yet)", response: { 200: Html, ...errors } },
    handler: async (request, reply) => {
      await pendingConfirmation(db.kysely, request.query.token);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(verifyPage());
    },
  });

  app.post(VERIFY_PAGE, {
    config: { staffSignIn: true },
    schema: { ...PAGE, summary: 'Confirm a staff address (the link works once, for 7 days)', body: AnyFormBody, response: { 200: Html, ...errors } },
    handler: async (request, reply) => {
      await confirmAddress(db.kysely, request.query.token);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(verifiedPage());
    },
  });
};
