import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Db } from '../db/connect.ts';
import { Credential, errors, StaffRead, StaffWrite } from '../http/schemas.ts';
import { requireStaff } from '../auth/caller.ts';
import { formField, FormBody, HtmlPage, registerFormParsers } from './form-body.ts';
import { findSite } from '../sites/repository.ts';
import { confirmedPage, confirmPage, FORGET_FIELD, pageVoice, RESUME_FIELD, unsubscribedPage, unsubscribePage } from './pages.ts';
import { confirmAddress, pendingConfirmation, signedAddress, unsubscribe, type UnsubscribeAction } from './readers.ts';
import { ConfirmQuery, ReaderMailChange, ReaderMailSettings, StaffMailChange, StaffMailSettings, UnsubscribeQuery } from './schemas.ts';
import { changeReaderMailSettings, changeStaffMailSettings, readerMailSettings, staffMailSettings } from './settings.ts';

const MAIL = { tags: ['mail'] };
/** What an unsubscribe page's button, or a mail client's one-click (no such field), asks for. */
function actionOf(body: unknown): UnsubscribeAction {
  if (formField(body, FORGET_FIELD[0]) === FORGET_FIELD[1]) return 'forget';
  if (formField(body, RESUME_FIELD[0]) === RESUME_FIELD[1]) return 'resume';
  return 'stop';
}

/** The pages a mail's links open: HTML, never JSON. */

/**
 * The links mails carry (confirm an address, unsubscribe), which work without signing in: a GET
 * shows a page that asks, a POST does it (mail scanners fetch links; RFC 8058 clients post
 * `List-Unsubscribe=One-Click`). And each person's own mail settings.
 */
export const mailRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  // Everything a link does is in its query: a body is read only for the forget and resume buttons' fields.
  registerFormParsers(app);

  /** A link's page speaks its address's language, else the browser's, else its site's. */
  async function addressVoice(request: { headers: IncomingHttpHeaders }, address: { site_id: string; language: string | null }) {
    return pageVoice(request, address.language, await findSite(db.kysely, address.site_id));
  }

  app.get('/v1/mail/confirm', {
    schema: { ...MAIL, summary: 'The page of a confirmation link: asks to confirm (nothing changes yet)', querystring: ConfirmQuery, response: { 200: HtmlPage, ...errors } },
    handler: async (request, reply) => {
      const address = await pendingConfirmation(db.kysely, request.query.token);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(confirmPage(await addressVoice(request, address)));
    },
  });

  app.post('/v1/mail/confirm', {
    schema: { ...MAIL, summary: 'Confirm the reply mails of the comment the link was mailed for (the link works once, for 24 hours)', querystring: ConfirmQuery, body: FormBody, response: { 200: HtmlPage, ...errors } },
    handler: async (request, reply) => {
      const address = await confirmAddress(db.kysely, request.query.token);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(confirmedPage(await addressVoice(request, address)));
    },
  });

  app.get('/v1/mail/unsubscribe', {
    schema: { ...MAIL, summary: 'The page of an unsubscribe link: asks (nothing changes yet)', querystring: UnsubscribeQuery, response: { 200: HtmlPage, ...errors } },
    handler: async (request, reply) => {
      const { sig, ...what } = request.query;
      const address = await signedAddress(db.kysely, what, sig);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(unsubscribePage(await addressVoice(request, address), what.scope, address.unsubscribed_at !== null));
    },
  });

  app.post('/v1/mail/unsubscribe', {
    schema: {
      ...MAIL,
      summary: 'Unsubscribe (one comment, one page, mentions, or everything from the site), without signing in; RFC 8058 one-click posts here',
      description:
        'On a link for every mail (scope all), a form field forget=address deletes the address instead, with every subscription it made; ' +
        'resume=mail lifts an earlier "stop all mail" (only the link of a mail sent to the address can: nothing else lifts it).',
      querystring: UnsubscribeQuery,
      body: FormBody,
      response: { 200: HtmlPage, ...errors },
    },
    handler: async (request, reply) => {
      const { sig, ...what } = request.query;
      const action = actionOf(request.body);
      const address = await unsubscribe(db.kysely, what, sig, action);
      return reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(unsubscribedPage(await addressVoice(request, address), action));
    },
  });

  app.get('/v1/sessions/current/mail', {
    schema: { ...MAIL, summary: "The signed-in reader's mail settings", security: Credential, response: { 200: ReaderMailSettings, ...errors } },
    handler: (request) => readerMailSettings(db, request.caller),
  });

  app.put('/v1/sessions/current/mail', {
    schema: { ...MAIL, summary: 'Whether "Email me replies" starts ticked on this reader\'s comments, and how often notifications are mailed (any of them)', security: Credential, body: ReaderMailChange, response: { 200: ReaderMailSettings, ...errors } },
    handler: (request) => changeReaderMailSettings(db, request.caller, request.body),
  });

  app.get('/api/auth/me/mail', {
    schema: { ...MAIL, summary: 'Which moderation mails you get', security: StaffRead, response: { 200: StaffMailSettings, ...errors } },
    handler: (request) => {
      requireStaff(request.caller);
      return staffMailSettings(db, request.caller);
    },
  });

  app.put('/api/auth/me/mail', {
    schema: { ...MAIL, summary: 'Choose your moderation mails: off, pending (comments waiting for approval) or all (also flags); as they come or in a daily digest', security: StaffWrite, body: StaffMailChange, response: { 200: StaffMailSettings, ...errors } },
    handler: (request) => {
      requireStaff(request.caller);
      return changeStaffMailSettings(db, request.caller, request.body);
    },
  });
};
