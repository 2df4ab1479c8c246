import { requestLocale } from '../../i18n/request.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_AUTHOR_NAME, NAME_PATTERN } from '../../comments/text.ts';
import type { Db } from '../../db/connect.ts';
import { sendHtmlPage, type PagePolicy } from '../../http/html-page.ts';
import { errors } from '../../http/schemas.ts';
import { FormBody, HtmlPage, registerFormParsers } from '../../mail/form-body.ts';
import { pageVoice, signInPage } from '../../mail/pages.ts';
import { shownName } from '../../mail/shown-name.ts';
import { clientKey } from '../../ratelimits/client-key.ts';
import type { SignInLimiter } from '../../ratelimits/sign-in-mails.ts';
import { SessionCreated } from '../../sessions/routes.ts';
import { siteOrNotFound } from '../../sites/repository.ts';
import { MAX_WRONG_CODES, SIGN_IN_CODE_LIFETIME_MS } from './codes.ts';
import { pendingLink, requestSignInCode, signInByLink, verifySignInCode } from './service.ts';

const READERS = { tags: ['readers'] };
const MINUTES = SIGN_IN_CODE_LIFETIME_MS / 60_000;

const SiteId = Type.String({ minLength: 1, maxLength: 100 });
const Email = Type.String({ format: 'email', maxLength: 254, description: 'The reader\'s address; compared lower-cased' });

const CodeRequest = Type.Object({
  site_id: SiteId,
  email: Email,
  return_to: Type.Optional(Type.String({ maxLength: 2048, description: "The page to come back to, signed in, from the mail's link: a page of the site's domains (or of Parley itself). Without it the link only says to type the code." })),
});

const CodeSent = Type.Object({
  sent: Type.Literal(true),
  expires_in: Type.Integer({ description: 'Seconds the code and the link work' }),
});

const CodeEntry = Type.Object({
  site_id: SiteId,
  email: Email,
  code: Type.String({ pattern: '^\\s*[0-9]{3}[\\s-]?[0-9]{3}\\s*$', maxLength: 20, description: 'The six digits of the mail (a space or dash in the middle is ignored)' }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AUTHOR_NAME, pattern: NAME_PATTERN, description: 'The name a new account starts with (the reader changes it later); else "Reader"' })),
});

const LinkQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100, description: "sil_<random>, from the mail's link" }) });

/** The link's page: its own styles, no script; its button may lead (303) to the page the reader came from. */
function linkPagePolicy(returnTo: URL | null): PagePolicy {
  return { sources: `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${returnTo ? ` ${returnTo.origin}` : ''}; base-uri 'none'`, framedBy: 'none' };
}

/**
 * Readers' sign-in by a code mailed to their address (no password): POST /v1/auth/email mails a
 * code and a link, either of which signs in once. The link's GET only shows a button (mail
 * scanners open links on their own); its POST signs in.
 */
export const readerEmailRoutes: FastifyPluginAsyncTypebox<{ db: Db; limiter: SignInLimiter | null; publicUrl: string }> = async (app, { db, limiter, publicUrl }) => {
  registerFormParsers(app);

  app.post('/v1/auth/email', {
    schema: {
      ...READERS,
      summary: 'Mail a reader a sign-in code and link',
      description:
        `The same answer for any address: there is no account to look up, as the first sign-in makes it. The code is 6 digits; it and the link work once, for ${MINUTES} minutes; ` +
        `asking again makes the earlier ones stop working. 409 when the site does not offer it (email_sign_in off, no domains) or the server sends no mail; ` +
        '429 past the limits per client network, per address and per site (PARLEY_RATE_LIMIT_SIGN_IN_MAILS_PER_*).',
      body: CodeRequest,
      response: { 202: CodeSent, ...errors },
    },
    handler: async (request, reply) => {
      const site = await siteOrNotFound(db.kysely, request.body.site_id);
      const { email, return_to: returnTo } = request.body;
      return reply.code(202).send(await requestSignInCode(db, limiter, publicUrl, site, { email, returnTo, client: clientKey(request.ip), language: requestLocale(request) }));
    },
  });

  app.post('/v1/auth/email/verify', {
    schema: {
      ...READERS,
      summary: 'Sign a reader in with the code mailed to them',
      description:
        'Answers the body of POST /v1/sessions: the reader\'s own account on the site (made on their first sign-in, or the one that proved this address before). ' +
        `A wrong, used or expired code answers 401 with reason wrong_code; the ${MAX_WRONG_CODES}th wrong code ends the code (reason too_many_attempts): ask for a new one. ` +
        '429 past the wrong codes a client may try.',
      body: CodeEntry,
      response: { 201: SessionCreated, ...errors },
    },
    handler: async (request, reply) => {
      const site = await siteOrNotFound(db.kysely, request.body.site_id);
      const { email, code, name } = request.body;
      return reply.code(201).send(await verifySignInCode(db, limiter, site, { email, code, name, client: clientKey(request.ip), language: requestLocale(request) }));
    },
  });

  app.get('/v1/auth/email/link', {
    schema: { ...READERS, summary: "The page of a sign-in mail's link: a button that signs in (nothing is spent yet)", querystring: LinkQuery, response: { 200: HtmlPage, ...errors } },
    handler: async (request, reply) => {
      const link = await pendingLink(db, request.query.token);
      return sendHtmlPage(reply, linkPagePolicy(link.returnTo), signInPage(pageVoice(request, null, link.site), shownName(link.site.name, 'Parley'), link.returnTo !== null));
    },
  });

  app.post('/v1/auth/email/link', {
    schema: {
      ...READERS,
      summary: "Sign in with a sign-in mail's link",
      description: 'Spends the link and its code, and answers 303 to the page the code was asked from, with `#parley_session=<session token>`. A link asked for without return_to signs nobody in: its page says to type the code.',
      querystring: LinkQuery,
      body: FormBody,
      response: { 200: HtmlPage, 303: { description: 'Signed in: back to the page, the session token in the fragment' }, ...errors },
    },
    handler: async (request, reply) => {
      const target = await signInByLink(db, request.query.token, requestLocale(request));
      if (target !== null) return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(target.href, 303);
      const link = await pendingLink(db, request.query.token);
      return sendHtmlPage(reply, linkPagePolicy(null), signInPage(pageVoice(request, null, link.site), shownName(link.site.name, 'Parley'), false));
    },
  });
};
