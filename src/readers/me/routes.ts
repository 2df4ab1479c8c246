import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { nowIso } from '../../clock.ts';
import type { Db } from '../../db/connect.ts';
import { Credential, errors } from '../../http/schemas.ts';
import { claimGuestComments } from './claim.ts';
import { myComments } from './comments.ts';
import { deleteMyAccount } from './erasure.ts';
import { exportFileName, readerExport } from './export.ts';
import { readerOf } from './reader.ts';
import { Claimed, Deletion, MethodParams, MyChange, MyComments, MyCommentsQuery, MyPage } from './schemas.ts';
import { changeMe, myPage, removeSignInMethod } from './service.ts';

const ME = { tags: ['me'], security: Credential };

/** A signed-in reader's own page: a session only (the public 401, an API key 403). */
export const meRoutes: FastifyPluginAsyncTypebox<{ db: Db; eraseGraceMs: number }> = async (app, { db, eraseGraceMs }) => {
  app.get('/v1/me', {
    schema: { ...ME, summary: "The signed-in reader: name, ways of signing in, mail settings, guest comments they may claim", response: { 200: MyPage, ...errors } },
    handler: (request) => myPage(db, request.caller),
  });

  app.patch('/v1/me', {
    schema: {
      ...ME,
      summary: "Change the reader's name (readers who signed in by themselves; a site's SSO or backend users: 403) or whether mentions mail them",
      description: "The reader's earlier comments on the site show the new name too. Nothing changes unless all of it may.",
      body: MyChange,
      response: { 200: MyPage, ...errors },
    },
    handler: (request) => changeMe(db, request.caller, request.body),
  });

  app.delete('/v1/me', {
    schema: {
      ...ME,
      summary: "Delete the reader's account (readers who signed in by themselves; a site's SSO or backend users: 403)",
      description:
        'Signs the reader out everywhere. The account is erased (as DELETE /api/sites/{id}/users/{user_id} does: addresses, subscriptions, ways of signing in, ' +
        'name; comments stay under "Deleted user") once PARLEY_ERASE_GRACE (7 days) has passed, unless the reader signs in again before, which keeps it; ' +
        'with PARLEY_ERASE_GRACE=0, at once.',
      response: { 200: Deletion, ...errors },
    },
    handler: (request) => deleteMyAccount(db, eraseGraceMs, request.caller),
  });

  app.get('/v1/me/comments', {
    schema: { ...ME, summary: "The reader's comments on the site, newest first", querystring: MyCommentsQuery, response: { 200: MyComments, ...errors } },
    handler: (request) => myComments(db, request.caller, request.query),
  });

  app.get('/v1/me/export', {
    schema: {
      ...ME,
      summary: "Download everything of the reader's on the site as one JSON file",
      description:
        'Profile, ways of signing in (no secrets), addresses, reply-mail subscriptions, and every comment (with its content, status and thread), vote, ' +
        'reaction and flag of theirs. Streamed as an attachment.',
      response: { 200: { description: 'The export, as an attachment', content: { 'application/json': { schema: Type.String() } } }, ...errors },
    },
    handler: async (request, reply) => {
      const { site, user } = await readerOf(db, request.caller);
      const body = Readable.from(readerExport(db.kysely, site, user), { objectMode: false });
      // The answer has begun: cut short, the file is not valid JSON, which the reader's tools notice.
      body.on('error', (err) => request.log.error({ err }, "a reader's export stopped"));
      return reply
        .type('application/json; charset=utf-8')
        .header('content-disposition', `attachment; filename="${exportFileName(site, nowIso())}"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  });

  app.delete('/v1/me/sign-in-methods/:id', {
    schema: { ...ME, summary: 'Remove one of the reader\'s ways of signing in (never the last one: 409)', params: MethodParams, response: { 200: MyPage, ...errors } },
    handler: (request) => removeSignInMethod(db, request.caller, request.params.id),
  });

  app.post('/v1/me/guest-comments/claim', {
    schema: {
      ...ME,
      summary: 'Make the reader\'s earlier guest comments theirs (claimable_guest_comments of GET /v1/me)',
      description: 'They then show the reader\'s name, count as theirs, and the reader may edit and delete them.',
      response: { 200: Claimed, ...errors },
    },
    handler: (request) => claimGuestComments(db, request.caller),
  });
};
