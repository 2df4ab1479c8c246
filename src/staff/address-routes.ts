import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { errors, StaffWrite } from '../http/schemas.ts';
import { pageVoice, verifiedPage, verifyPage } from '../mail/pages.ts';
import { formBodyOf, HtmlPage, registerFormParsers } from '../mail/form-body.ts';
import { ADDRESS_MAILS_PER_HOUR, ADDRESS_MAILS_PER_MINUTE, openAddressMailLimiter } from '../ratelimits/address-mails.ts';
import { confirmAddress, pendingConfirmation, resendConfirmation, VERIFY_PAGE } from './addresses.ts';
import { requireStaff } from '../auth/caller.ts';
import { ConfirmationSent } from './schemas.ts';

const VerifyQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'From the confirmation mail' }) });
/** The page's button posts an empty form: everything is in the query. */
const EmptyForm = formBodyOf(Type.Object({}, { additionalProperties: true }));
const PAGE = { tags: ['staff'], querystring: VerifyQuery };

/**
 * The page of the link mailed to a staff member's new address (addresses.ts). As with readers'
 * confirmation links, opening it only asks (mail scanners open links on their own); its button
 * posts to the same address, which confirms. A signed-in person whose link expired or was lost asks
 * for a new one.
 */
export const addressRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  registerFormParsers(app);
  const limiter = await openAddressMailLimiter(app.config, app.log);
  app.addHook('onClose', () => limiter.close());

  app.get(VERIFY_PAGE, {
    schema: { ...PAGE, summary: "The page of a staff address's confirmation link: asks to confirm (nothing changes yet)", response: { 200: HtmlPage, ...errors } },
    handler: async (request, reply) => {
      const staff = await pendingConfirmation(db.kysely, request.query.token);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(verifyPage(pageVoice(request, staff.language)));
    },
  });

  app.post(VERIFY_PAGE, {
    config: { staffSignIn: true },
    schema: { ...PAGE, summary: 'Confirm a staff address (the link works once, for 7 days)', body: EmptyForm, response: { 200: HtmlPage, ...errors } },
    handler: async (request, reply) => {
      const staff = await confirmAddress(db.kysely, request.query.token);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(verifiedPage(pageVoice(request, staff.language)));
    },
  });

  app.post(`${VERIFY_PAGE}/resend`, {
    schema: {
      tags: ['staff'],
      summary: `Mail yourself a new link to confirm your address (7 days; the earlier link stops working); at most ${ADDRESS_MAILS_PER_MINUTE} a minute and ${ADDRESS_MAILS_PER_HOUR} an hour (429)`,
      description: '409 when your address is already confirmed, or when the server sends no mail.',
      security: StaffWrite,
      response: { 202: ConfirmationSent, ...errors },
    },
    handler: async (request, reply) => {
      requireStaff(request.caller);
      return reply.code(202).send(await resendConfirmation(db, limiter, request.caller.staffId));
    },
  });
};
