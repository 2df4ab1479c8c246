import { requestLocale } from '../../i18n/request.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/connect.ts';
import { AppError } from '../../errors.ts';
import { errors, ProblemRef } from '../../http/schemas.ts';
import { pageVoice } from '../../mail/pages.ts';
import type { Voice } from '../../mail/words.ts';
import { findSite, type Site } from '../../sites/repository.ts';
import { sendCallbackPage, type OpenerMessage } from './callback-page.ts';
import { EXPIRED_SIGN_IN, finishSignIn, SIGN_IN_MODES, startSignIn, takePendingSignIn, UNKNOWN_SIGN_IN, type PendingSignIn } from './flow.ts';
import { CALLBACK_PATH } from './service.ts';

const AUTH = { tags: ['reader sign-in'] };
const Param = Type.String({ maxLength: 2000 });
const HtmlPage = { description: 'A small HTML page', content: { 'text/html': { schema: Type.String() } } };
const FailurePage = {
  description: 'Why the sign-in failed: a page for a browser (which asks for text/html), problem+json for any other client',
  content: { 'text/html': { schema: Type.String() }, 'application/problem+json': { schema: ProblemRef } },
};

/** What the page says of a failure, in the reader's language: the two the reader can act on by themselves, else the problem's own detail. */
function failureText({ say }: Voice, error: AppError): string {
  if (error.message === UNKNOWN_SIGN_IN) return say('pageProviderUnknown');
  if (error.message === EXPIRED_SIGN_IN) return say('pageProviderExpired');
  return say('pageProviderRefused', { detail: error.message });
}

/**
 * A reader signs in at one of the site's identity providers: the start sends them there, the
 * callback takes them back, signed in, to the page they came from. Public: the provider proves who
 * the reader is; nothing here needs a credential.
 */
export const providerSignInRoutes: FastifyPluginAsyncTypebox<{ db: Db; config: Config }> = async (app, { db, config }) => {
  app.get('/v1/auth/providers/:provider_id/start', {
    schema: {
      ...AUTH,
      summary: "Start signing in at one of the site's identity providers: redirects (302) to the provider",
      description:
        '`return_to` must be a page of one of the site\'s domains (or of this server). `mode`: `popup` (default; the callback page hands the ' +
        'session to `window.opener` with postMessage, to return_to\'s origin only) or `redirect` (the callback redirects to return_to with ' +
        '`#parley_session=<token>`). The sign-in must come back within 10 minutes.',
      params: Type.Object({ provider_id: Type.String({ minLength: 1, maxLength: 100 }) }),
      querystring: Type.Object({
        site_id: Type.String({ minLength: 1, maxLength: 100 }),
        return_to: Type.String({ minLength: 1, maxLength: 2000 }),
        mode: Type.Optional(Type.Enum([...SIGN_IN_MODES], { default: 'popup' })),
      }),
      response: { 302: Type.Null({ description: "To the provider's authorization page" }), ...errors },
    },
    handler: async (request, reply) => {
      const { site_id, return_to, mode = 'popup' } = request.query;
      const url = await startSignIn(db, { publicUrl: config.publicUrl, allowPrivate: config.identityAllowPrivate }, { providerId: request.params.provider_id, siteId: site_id, returnTo: return_to, mode });
      return reply.header('cache-control', 'no-store').redirect(url.href, 302);
    },
  });

  app.get(CALLBACK_PATH, {
    schema: {
      ...AUTH,
      summary: 'Where identity providers send readers back (the redirect URI to register at the provider)',
      description:
        'Pop-up sign-ins answer a page that posts `{type: "parley:session", session: {token, expires_at, user}}` to the opener (targetOrigin: ' +
        'return_to\'s origin) and closes; a refused sign-in posts `{type: "parley:sign-in-error", detail}` and shows the problem (4xx). ' +
        'Redirect sign-ins answer 303 to `return_to#parley_session=<token>`, or the problem page (problem+json to a client that does not ask for text/html).',
      querystring: Type.Object({ code: Type.Optional(Param), state: Type.Optional(Param), error: Type.Optional(Param), error_description: Type.Optional(Param) }),
      response: { 200: HtmlPage, 303: Type.Null({ description: 'To return_to, the session token in its fragment' }), '4xx': FailurePage },
    },
    handler: async (request, reply) => {
      let pending: PendingSignIn;
      let site: Site | undefined;
      try {
        pending = await takePendingSignIn(db, request.query.state);
      } catch (error) {
        return failurePage(error, null);
      }
      site = await findSite(db.kysely, pending.site_id);
      const origin = new URL(pending.return_to).origin;
      try {
        const session = await finishSignIn(db, config.publicUrl, pending, request.query, new URL(request.url, config.publicUrl), requestLocale(request));
        const back = new URL(pending.return_to);
        back.hash = `parley_session=${session.token}`;
        if (pending.mode === 'redirect') {
          return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(back.href, 303);
        }
        const voice = pageVoice(request, null, site);
        return sendCallbackPage(reply, 200, voice, voice.say('pageProviderSignedInTitle'), voice.say('pageProviderSignedIn'), {
          message: { type: 'parley:session', session },
          origin,
          fallback: back.href,
        });
      } catch (error) {
        return failurePage(error, pending.mode === 'popup' ? origin : null);
      }

      function failurePage(error: unknown, openerOrigin: string | null) {
        // A browser (which asks for HTML) gets a page to read; any other client the problem as JSON.
        if (!(error instanceof AppError) || !request.headers.accept?.includes('text/html')) throw error;
        const opener: OpenerMessage | null = openerOrigin ? { message: { type: 'parley:sign-in-error', detail: error.message }, origin: openerOrigin } : null;
        const voice = pageVoice(request, null, site);
        return sendCallbackPage(reply, error.status, voice, voice.say('pageProviderFailedTitle'), failureText(voice, error), opener);
      }
    },
  });
};
