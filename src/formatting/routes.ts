import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_CONTENT, cleanText } from '../comments/text.ts';
import { MentionSchema } from '../comments/schemas.ts';
import type { Db } from '../db/connect.ts';
import { errors, OptionalCredential } from '../http/schemas.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import { renderForSite } from './render.ts';

const PreviewBody = Type.Object({
  site_id: Type.String({ maxLength: 100 }),
  content: Type.String({ description: '1 to 10,000 characters after trimming, as a comment' }),
});

const Preview = Type.Object({
  content_html: Type.String({ description: 'The HTML a comment with this content would carry (content_html), sanitized alike' }),
  mentions: Type.Array(MentionSchema),
});

export const formattingRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.post('/v1/comments/preview', {
    schema: {
      tags: ['comments'],
      summary: "A comment's text as the site would show it, without posting it",
      description: "Rendered with the site's `formatting`, as a comment posted now would be. Stores nothing; limited as reads are.",
      security: OptionalCredential,
      body: PreviewBody,
      response: { 200: Preview, ...errors },
    },
    handler: async (request) => {
      const site = await siteOrNotFound(db.kysely, request.body.site_id);
      return renderForSite(db.kysely, site, cleanText('body/content', request.body.content, MAX_CONTENT));
    },
  });
};
