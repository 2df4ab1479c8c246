import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../ids.ts';
import { pageUrl, startParley, type TestParley } from '../../../test/helper.ts';
import { signedInReader } from './readers.fixture.ts';

let parley: TestParley;
beforeAll(async () => {
  // Mail on, written to the (silent) log: a reader's "Email me replies" makes a subscription.
  parley = await startParley({ PARLEY_SMTP_URL: 'log:', PARLEY_MAIL_FROM: 'comments@example.com' });
});
afterAll(() => parley.close());

async function post(token: string, siteId: string, thread: string, body: Record<string, unknown>) {
  const response = await parley.request('POST', '/v1/comments', { token, body: { site_id: siteId, thread_url: thread, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.id as string;
}

describe("a reader's export", () => {
  it('holds their profile, ways in, addresses, subscriptions, comments, votes, reactions and flags, as an attachment', async () => {
    const site = await parley.newSite({ siteName: 'Tea Blog' });
    const other = await parley.newSite();
    const lea = await signedInReader(parley, site.site_id, { email: 'lea@example.com', name: 'Lea' });
    const max = await signedInReader(parley, site.site_id, { email: 'max@example.com', name: 'Max' });
    const elsewhere = await signedInReader(parley, other.site_id, { email: 'lea@example.com', name: 'Lea' });
    const thread = pageUrl();
    const mine = await post(lea.token, site.site_id, thread, { content: 'Oolong <b>rules</b>', notify_replies: true });
    const gone = await post(lea.token, site.site_id, thread, { content: 'Oops' });
    await parley.request('DELETE', `/v1/comments/${gone}`, { token: lea.token });
    const his = await post(max.token, site.site_id, thread, { content: 'Green is better' });
    await post(elsewhere.token, other.site_id, pageUrl(), { content: 'On another site' });
    expect((await parley.request('POST', `/v1/comments/${his}/vote`, { token: lea.token, body: { vote_type: 'down' } })).status).toBe(200);
    expect((await parley.request('POST', `/v1/comments/${his}/react`, { token: lea.token, body: { reaction_type: 'funny' } })).status).toBe(200);
    expect((await parley.request('POST', `/v1/comments/${his}/flag`, { token: lea.token, body: { reason: 'rude' } })).status).toBe(200);
    await parley.request('POST', `/v1/comments/${his}/vote`, { token: max.token, body: { vote_type: 'up' } });

    const response = await parley.request('GET', '/v1/me/export', { token: lea.token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const date = new Date().toISOString().slice(0, 10);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="parley-export-${site.site_id}-${date}.json"`);
    const file = response.body;
    expect(file).toMatchObject({
      format: 'parley-reader-export',
      version: 1,
      site: { id: site.site_id, name: 'Tea Blog' },
      profile: { id: lea.user.id, name: 'Lea', email: 'lea@example.com', own_account: true },
      sign_in_methods: [{ type: 'email', email: 'lea@example.com' }],
      addresses: [{ email: 'lea@example.com', confirmed_at: expect.any(String), unsubscribed_at: null }],
      subscriptions: [{ comment_id: mine, thread_url: thread, email: 'lea@example.com', confirmed_at: expect.any(String) }],
      votes: [{ comment_id: his, thread_url: thread, vote: 'down' }],
      reactions: [{ comment_id: his, thread_url: thread, reaction: 'funny' }],
      flags: [{ comment_id: his, thread_url: thread, reason: 'rude' }],
    });
    expect(file.comments.map((c: { id: string; content: string; is_deleted: boolean; thread_url: string }) => [c.id, c.is_deleted, c.thread_url])).toEqual([
      [mine, false, thread],
      [gone, true, thread],
    ]);
    expect(file.comments[0]).toMatchObject({ content: 'Oolong <b>rules</b>', status: 'published' });
    const text = JSON.stringify(file);
    expect(text).not.toContain('max@example.com');
    expect(text).not.toContain('On another site');
    expect(text).not.toMatch(/secret|code_hash|token/);
  });

  it('streams 100,000 comments as valid JSON in bounded memory', async () => {
    const COMMENTS = 100_000;
    const site = await parley.newSite();
    const reader = await signedInReader(parley, site.site_id, { email: 'nat@example.com', name: 'Nat' });
    const thread = pageUrl();
    const first = await post(reader.token, site.site_id, thread, { content: 'the first' });
    const db = parley.app.db.kysely;
    const { thread_id } = await db.selectFrom('comments').select('thread_id').where('id', '=', first).executeTakeFirstOrThrow();
    // After the first comment's time: it comes first in the export, the last of these last.
    const start = Date.now() + 1000;
    for (let done = 1; done < COMMENTS; done += 1000) {
      const rows = Array.from({ length: Math.min(1000, COMMENTS - done) }, (_, i) => {
        const id = newId('cmt');
        const at = new Date(start + (done + i) * 1000).toISOString();
        return {
          id, site_id: site.site_id, thread_id, parent_id: null, root_id: id, author_ref: reader.user.id, author_name: 'Nat',
          content: `Comment ${done + i}: ${'a cup of tea and a long thought about it, '.repeat(6)}`, status: 'published', moderation_status: null,
          is_deleted: 0 as const, is_edited: 0 as const,
          created_at: at, updated_at: at, listed_public: 1 as const, listed_all: 1 as const, spam_reasons: null,
        };
      });
      await db.insertInto('comments').values(rows).execute();
    }

    const dir = mkdtempSync(join(tmpdir(), 'parley-export-'));
    try {
      const path = join(dir, 'export.json');
      // What the heap holds after a full collection, every 100 ms: what the export keeps, not its garbage.
      setFlagsFromString('--expose-gc');
      const collect = runInNewContext('gc') as () => void;
      const live = () => (collect(), process.memoryUsage().heapUsed);
      const heapBefore = live();
      let peak = heapBefore;
      const sampler = setInterval(() => (peak = Math.max(peak, live())), 100);
      const response = await fetch(`${parley.url}/v1/me/export`, { headers: { authorization: `Bearer ${reader.token}` } });
      expect(response.status).toBe(200);
      await pipeline(Readable.fromWeb(response.body as WebReadableStream), createWriteStream(path));
      clearInterval(sampler);
      const bytes = statSync(path).size;
      const growth = peak - heapBefore;
      console.log(`export of ${COMMENTS} comments: ${(bytes / 1e6).toFixed(1)} MB written; live heap grew by at most ${(growth / 1e6).toFixed(1)} MB while it streamed`);
      // Held whole, the file alone would have grown it by its size.
      expect(growth).toBeLessThan(bytes / 4);
      const file = JSON.parse(readFileSync(path, 'utf8'));
      expect(file.comments).toHaveLength(COMMENTS);
      expect(file.comments[0].content).toBe('the first');
      expect(file.comments.at(-1).content).toMatch(new RegExp(`^Comment ${COMMENTS - 1}: `));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
