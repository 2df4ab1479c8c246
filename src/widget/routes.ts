import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { canAccessSite, isModerator, type Caller } from '../auth/caller.ts';
import type { Db } from '../db/connect.ts';
import { AppError } from '../errors.ts';
import { sendBundle } from '../http/bundle.ts';
import { sendHtmlPage } from '../http/html-page.ts';
import { compileCatalog } from '../i18n/compile.ts';
import { matchLocale } from '../i18n/locales.ts';
import { errors, OptionalCredential } from '../http/schemas.ts';
import { isOwnAccount } from '../readers/sign-in.ts';
import { findSite, type Site } from '../sites/repository.ts';
import { PublicSiteSchema } from '../sites/schemas.ts';
import { publicSiteView } from '../sites/view.ts';
import { formSecretOf, issueFormToken } from '../spam/form-token.ts';
import { newChallenge } from '../spam/proof.ts';
import { countBundle, dialogsBundle, localeFiles, recentBundle, widgetBundle } from './bundle.ts';
import { DEMO_POLICY, DemoQuery, demoPage } from './demo.ts';
import { lazySerializer } from '../thread-html/routes.ts';
import { bellOf } from '../live/stream-key.ts';
import { requestLocale } from '../i18n/request.ts';
import type { ThreadPages } from '../thread-html/fragment.ts';
import widgetEnglish from './locales/en.json' with { type: 'json' };
import dialogEnglish from './locales/dialogs/en.json' with { type: 'json' };

/** The messages the widget shows, its dialogs' among them: a site's words for its mails stay on the server. */
const WIDGET_KEYS = new Set([...Object.keys(widgetEnglish), ...Object.keys(dialogEnglish)]);

const WidgetSettings = Type.Object({
  site: PublicSiteSchema,
  viewer: Type.Object({
    signed_in: Type.Boolean({ description: 'The request carried a session (or key) of this site' }),
    name: Type.Union([Type.String(), Type.Null()]),
    moderator: Type.Boolean(),
    user_id: Type.Union([Type.String(), Type.Null()], { description: "A session's user (the widget draws their identicon from it); null for a guest or a key" }),
    avatar_url: Type.Union([Type.String(), Type.Null()], { description: "A session's user's picture, where there is one" }),
    own_account: Type.Boolean({ description: "The session's user signed in by themselves (email or an identity provider), so may rename and delete their account; false for a site's SSO or backend users" }),
  }),
  sign_in: Type.Object(
    {
      email: Type.Boolean({ description: 'Readers may sign in with a code mailed to them (the site allows it, this server mails, and the site lists its domains)' }),
      providers: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), type: Type.String() }), {
        description: "The site's identity providers, by name; none while the site lists no domains",
      }),
      erase_grace_seconds: Type.Integer({ description: "How long the deletion of a reader's own account waits (PARLEY_ERASE_GRACE); signing in before then cancels it. 0: at once" }),
    },
    { description: 'How a reader signs in from the widget' },
  ),
  mail: Type.Object(
    {
      enabled: Type.Boolean({ description: 'Whether this server mails replies: the widget offers "Email me replies" only then' }),
      address_known: Type.Boolean({ description: "A signed-in reader's SSO token gave their address: the widget asks for none" }),
      notify_replies: Type.Boolean({ description: 'The signed-in reader\'s default for "Email me replies"' }),
    },
    { description: 'What the widget needs for "Email me replies"' },
  ),
  notifications: Type.Union(
    [
      Type.Object({
        unread: Type.Integer({ description: "The signed-in reader's unread notifications (GET /v1/notifications)" }),
        stream_key: Type.String({ description: 'Sent as `notifications_key` to GET /v1/comments/stream, which then carries the unread count as it changes; ends with the session' }),
      }),
      Type.Null(),
    ],
    { description: "A signed-in reader's notification bell; null for a guest or a key" },
  ),
  form: Type.Union([
    Type.Object(
      {
        token: Type.String({ description: 'Sent back as form_token with each guest comment' }),
        min_submit_seconds: Type.Integer({ description: 'A comment sent sooner than this after the token was issued is held: the widget waits out the rest' }),
        challenge: Type.Union([
          Type.Object(
            { algorithm: Type.String(), challenge: Type.String(), maxnumber: Type.Optional(Type.Integer()), salt: Type.String(), signature: Type.String() },
            { description: 'An ALTCHA challenge, where the site asks guests for proof of work; its solution goes in altcha. Good for one comment, for an hour' },
          ),
          Type.Null(),
        ]),
      },
      { description: "What a guest's comment is sent with (src/spam); null for a signed-in reader" },
    ),
    Type.Null(),
  ]),
  strings: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.Unknown())]), {
    description:
      "The site's own words for the widget and its dialogs, in the effective language (`lang` where Parley speaks it, else the site's `language`, else en), " +
      'by message key; each compiled: plain text, or the ICU MessageFormat syntax tree of a message with placeholders. `{}` when the site has none',
  }),
});

/** The site's own words for the widget in `locale`, compiled as the locale files are (src/widget/bundle.ts). */
function widgetStrings(site: Site, lang: string | undefined) {
  const table = site.strings[matchLocale(lang) ?? site.language ?? 'en'] ?? {};
  return compileCatalog(Object.fromEntries(Object.entries(table).filter(([key]) => WIDGET_KEYS.has(key))));
}

/** Files named by their hash never change under their name; pages of any origin fetch them (module scripts and fetch are CORS). */
function cachedForGood(reply: FastifyReply): FastifyReply {
  return reply
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('access-control-allow-origin', '*');
}

/** The session's user, for a session of this site; undefined for a guest or a key. */
function sessionUser(db: Db, caller: Caller, signedIn: boolean) {
  if (!signedIn || caller.kind !== 'session') return undefined;
  return db.kysely.selectFrom('site_users').select(['id', 'external_id', 'avatar_url', 'email', 'notify_replies']).where('id', '=', caller.userId).executeTakeFirst();
}

/**
 * Readers sign in only on a site that lists its domains: a sign-in comes back to a page of the site,
 * and without domains no page can be told apart from an attacker's (src/readers/sign-in.ts).
 */
async function signInFor(db: Db, site: Site, eraseGraceMs: number) {
  const erase_grace_seconds = Math.round(eraseGraceMs / 1000);
  if (site.domains.length === 0) return { email: false, providers: [], erase_grace_seconds };
  const providers = await db.kysely.selectFrom('identity_providers').select(['id', 'name', 'type']).where('site_id', '=', site.id).orderBy('name').orderBy('id').execute();
  return { email: site.emailSignIn && db.mail !== null, providers, erase_grace_seconds };
}

/** A guest's form: its signed issue time, and a proof-of-work challenge where the site asks for one. */
async function guestForm(db: Db, site: Site) {
  const secret = await formSecretOf(db.kysely, site);
  const challenge = site.spam.proof_of_work === 'off' ? null : await newChallenge(secret);
  const checked = site.spam.enabled && site.spam.form_check;
  return { token: issueFormToken(secret, site.id), min_submit_seconds: checked ? site.spam.min_submit_seconds : 0, challenge };
}

export const widgetRoutes: FastifyPluginAsyncTypebox<{ db: Db; eraseGraceMs: number; pages: ThreadPages }> = async (app, { db, eraseGraceMs, pages }) => {
  app.get('/v1/widget', {
    schema: {
      tags: ['widget'],
      summary: "What the widget needs before drawing a thread: the site's public settings and who is reading",
      security: OptionalCredential,
      querystring: Type.Object({
        site_id: Type.String({ maxLength: 100 }),
        lang: Type.Optional(Type.String({ maxLength: 35, description: 'The language the widget was given (its `lang` attribute, else the page\'s): which of the site\'s own words come in `strings`' })),
      }),
      response: { 200: WidgetSettings, ...errors },
    },
    handler: async (request) => {
      const site = await findSite(db.kysely, request.query.site_id);
      if (!site) throw new AppError('not_found', `No site ${request.query.site_id}`);
      const caller = request.caller;
      const signedIn = canAccessSite(caller, site);
      const user = await sessionUser(db, caller, signedIn);
      return {
        form: signedIn ? null : await guestForm(db, site),
        site: publicSiteView(site),
        viewer: {
          signed_in: signedIn,
          name: !signedIn ? null : caller.kind === 'session' ? caller.userName : caller.kind === 'key' ? caller.name : null,
          moderator: isModerator(caller, site),
          user_id: user?.id ?? null,
          avatar_url: user?.avatar_url ?? null,
          own_account: user !== undefined && isOwnAccount(user.external_id),
        },
        sign_in: await signInFor(db, site, eraseGraceMs),
        // Only with mail on is a signed-in reader's address or default worth telling.
        mail: { enabled: db.mail !== null, address_known: db.mail !== null && Boolean(user?.email), notify_replies: db.mail !== null && user?.notify_replies === 1 },
        notifications: signedIn && caller.kind === 'session' ? await bellOf(db.kysely, caller) : null,
        strings: widgetStrings(site, request.query.lang),
      };
    },
  });

  // The widget and the element scripts: a page names them without a hash, so they are kept a few minutes only.
  for (const [path, bundle] of [
    ['/embed.js', widgetBundle],
    ['/embed/count.js', countBundle],
    ['/embed/recent.js', recentBundle],
  ] as const) {
    app.get(path, { schema: { hide: true } }, async (request, reply) => {
      reply.header('cache-control', 'public, max-age=300, stale-while-revalidate=86400').header('cross-origin-resource-policy', 'cross-origin');
      return sendBundle(request, reply, await bundle(), 'application/javascript; charset=utf-8');
    });
  }

  // The dialogs' module, named by its hash. Another hash (an embed.js of an earlier build) is 404.
  app.get('/embed/:file', { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 100 }) }) } }, async (request, reply) => {
    const bundle = await dialogsBundle();
    if (`embed/${request.params.file}` !== bundle.path) throw new AppError('not_found', `No ${request.params.file} in this version of Parley`);
    return sendBundle(request, cachedForGood(reply), bundle, 'application/javascript; charset=utf-8');
  });

  // A locale's messages (embed/locales/<hash>/<locale>.json), in the folder named by the hash of them all.
  app.get(
    '/embed/locales/:hash/:file',
    { schema: { hide: true, params: Type.Object({ hash: Type.String({ maxLength: 64 }), file: Type.String({ maxLength: 40 }) }) } },
    async (request, reply) => {
      const { hash, file } = request.params;
      const locales = await localeFiles();
      const bundle = file.endsWith('.json') ? locales.byLocale.get(file.slice(0, -'.json'.length)) : undefined;
      if (`embed/locales/${hash}` !== locales.path || !bundle) throw new AppError('not_found', `No locales/${hash}/${file} in this version of Parley`);
      return sendBundle(request, cachedForGood(reply), bundle, 'application/json; charset=utf-8');
    },
  );

  app.get('/', { schema: { hide: true, querystring: DemoQuery } }, async (request, reply) => {
    const demo = await db.kysely.selectFrom('sites').select('id').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
    const threadUrl = `${request.protocol}://${request.host}/`;
    const { session_token: sessionToken, parley_static: withoutScript, parley_sort: sort, parley_page: page, parley_reply: replyTo, parley_notice: notice, parley_retry: retry, parley_detail: detail } = request.query;
    // The thread as a site's server includes it: the page's parley_* parameters passed on without the prefix.
    const threadHtml = demo && (await pages.read(db, { site_id: demo.id, thread_url: threadUrl, sort, page, reply: replyTo, notice, retry, detail }, requestLocale(request), lazySerializer(reply)));
    return sendHtmlPage(
      reply,
      DEMO_POLICY,
      demoPage({ siteId: demo?.id ?? null, threadUrl, sessionToken: sessionToken ?? null, threadHtml: threadHtml ? Buffer.concat(threadHtml.parts).toString() : null, withScript: withoutScript === undefined }),
    );
  });
};
