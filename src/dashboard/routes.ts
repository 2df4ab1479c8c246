import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/connect.ts';
import { sendBundle } from '../http/bundle.ts';
import { AppError } from '../errors.ts';
import { sendHtmlPage } from '../http/html-page.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import { dashboardScript, dashboardStyles } from './bundle.ts';
import { readDashboardCatalogues } from './catalogues.ts';
import { requestLocale } from '../i18n/request.ts';
import type { Locale } from '../i18n/locales.ts';
import { DASHBOARD_POLICY, dashboardPage, PREVIEW_POLICY, previewPage } from './page.ts';

// Asset URLs carry their content's hash, so a browser may keep them for good.
const IMMUTABLE = 'public, max-age=31536000, immutable';
const version = (etag: string) => etag.replaceAll('"', '').slice(0, 12);

/**
 * The dashboard: one HTML document for /dashboard and every path under it (the script routes on the
 * real URL, so views can be shared, reloaded, and back and forward work), its script and stylesheet,
 * and the widget preview. Everything comes from this server.
 */
export const dashboardRoutes: FastifyPluginAsyncTypebox<{ db: Db; localesFolder: string | null }> = async (app, { db, localesFolder }) => {
  let catalogues: ReturnType<typeof readDashboardCatalogues> | null = null;
  const read = () => (catalogues ??= readDashboardCatalogues(localesFolder));
  const languages = () => read().files;
  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const [script, styles] = await Promise.all([dashboardScript(), dashboardStyles()]);
    const locales = Object.fromEntries([...languages()].map(([locale, file]) => [locale, version(file.etag)]));
    // Until the script knows the staff member's own choice, the page speaks the browser's language.
    const locale = requestLocale(request) ?? 'en';
    const words = read().boot.get(locale) ?? read().boot.get('en')!;
    reply.header('vary', 'Accept-Language');
    return sendHtmlPage(reply, DASHBOARD_POLICY, dashboardPage({ script: version(script.etag), styles: version(styles.etag), locales }, { locale, ...words }));
  };
  app.get('/dashboard', { schema: { hide: true } }, page);
  app.get('/dashboard/*', { schema: { hide: true } }, page);

  app.get('/dashboard/assets/app.js', { schema: { hide: true } }, async (request, reply) =>
    sendBundle(request, reply.header('cache-control', IMMUTABLE), await dashboardScript(), 'application/javascript; charset=utf-8'),
  );
  app.get('/dashboard/assets/app.css', { schema: { hide: true } }, async (request, reply) =>
    sendBundle(request, reply.header('cache-control', IMMUTABLE), await dashboardStyles(), 'text/css; charset=utf-8'),
  );

  // Only the language a staff member speaks is fetched, once, by the version the page names.
  app.get(
    '/dashboard/assets/locales/:file',
    { schema: { hide: true, params: Type.Object({ file: Type.String({ maxLength: 20 }) }) } },
    async (request, reply) => {
      const file = languages().get(request.params.file.replace(/\.json$/, '') as Locale);
      if (!file || !request.params.file.endsWith('.json')) throw new AppError('not_found', 'No such language file');
      return sendBundle(request, reply.header('cache-control', IMMUTABLE), file, 'application/json; charset=utf-8');
    },
  );

  app.get(
    '/dashboard/preview',
    { schema: { hide: true, querystring: Type.Object({ site_id: Type.String({ maxLength: 100 }), theme: Type.Optional(Type.Enum(['light', 'dark', 'auto'])) }) } },
    async (request, reply) => {
      const site = await siteOrNotFound(db.kysely, request.query.site_id);
      // A sample thread on the site's first domain, where the widget may post as on the real pages.
      const thread = `https://${site.domains[0] ?? request.hostname}/parley-preview`;
      return sendHtmlPage(reply, PREVIEW_POLICY, previewPage(site.id, thread, request.query.theme ?? 'auto'));
    },
  );
};
