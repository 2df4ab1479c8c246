import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';
import { finishedImport, getWith, uploadImport } from '../../test/imports.ts';
import { sleep, startReceiver, subscribe, WEBHOOK_TEST_ENV, type Receiver } from '../../test/receiver.ts';

const DISQUS = readFileSync(join(import.meta.dirname, 'fixtures', 'disqus.xml'));
const POST_1 = 'https://blog.example.com/post-1';

let parley: TestParley;
let receiver: Receiver;
beforeAll(async () => {
  parley = await startParley(WEBHOOK_TEST_ENV);
  receiver = await startReceiver();
});
afterAll(async () => {
  await parley.close();
  await receiver.close();
});

/** The public's view of a page: each comment's text with its replies' texts below it. */
async function publicThread(siteId: string, url: string) {
  const list = await parley.request('GET', `/v1/comments?site_id=${siteId}&thread_url=${encodeURIComponent(url)}&sort=oldest`);
  type Listed = { content: string | null; replies: Listed[] };
  const shape = (comment: Listed): unknown => [comment.content, ...comment.replies.map(shape)];
  return list.body.comments.map(shape);
}

describe('importing through the management API', () => {
  it('takes a gzipped Disqus export as the body, answers 202 with a job, and the job completes with the report while readers see the comments', async () => {
    const site = await parley.newSite();
    const started = await uploadImport(parley, site.site_id, site.api_key, gzipSync(DISQUS), '', { 'content-type': 'application/gzip' });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      id: expect.stringMatching(/^imp_/),
      site_id: site.site_id,
      status: expect.stringMatching(/^(queued|running|completed)$/),
      format: 'disqus',
      dry_run: false,
      file_bytes: gzipSync(DISQUS).length,
      report: null,
      error: null,
      started_by: { id: expect.stringMatching(/^key_/), name: expect.any(String) },
    });
    const job = await finishedImport(parley, site.site_id, site.api_key, started.body.id);
    expect(job).toMatchObject({ status: 'completed', error: null, progress: { records_read: expect.any(Number), comments_processed: 8 } });
    expect(job.report).toMatchObject({
      format: 'disqus',
      dry_run: false,
      threads: { created: 2, existing: 0 },
      comments: { imported: 8, by_status: { published: 5, deleted: 1, pending: 1, spam: 1 }, already_present: 0 },
      skipped: { no_usable_page_address: 1 },
      reparented: 1,
    });
    expect(Date.parse(job.finished_at)).toBeGreaterThanOrEqual(Date.parse(job.started_at));
    // The deleted comment stays as a placeholder over its live reply; the spam reply below that stays hidden.
    // A new site writes Markdown: the export's HTML comes in as Markdown (html-markdown.ts).
    expect(await publicThread(site.site_id, POST_1)).toEqual([
      [
        'Hello & welcome\n\nSecond paragraph\\\nline two',
        ['> Hello & welcome\n\nAgreed, see [example.org/a/very/long/path/...](<https://example.org/a/very/long/path/to/a/page>)', [null, ['Read [this article](<https://example.org/x>) or https://example.org/y']]],
      ],
    ]);
    const listed = await getWith(parley, `/api/sites/${site.site_id}/imports`, site.api_key);
    expect(listed.body).toMatchObject({ total: 1, page: 1, imports: [{ id: started.body.id, status: 'completed' }] });
    const audit = await getWith(parley, `/api/accounts/${site.account_id}/audit-log`, site.api_key);
    expect(audit.body.entries).toContainEqual(
      expect.objectContaining({ action: 'import.started', target: started.body.id, data: { site_id: site.site_id, format: 'disqus', dry_run: false, file_bytes: gzipSync(DISQUS).length } }),
    );
  });

  it('adds nothing when the same file comes again, and its report says the comments were already there', async () => {
    const site = await parley.newSite();
    const first = await uploadImport(parley, site.site_id, site.api_key, DISQUS);
    await finishedImport(parley, site.site_id, site.api_key, first.body.id);
    const again = await uploadImport(parley, site.site_id, site.api_key, DISQUS, '?format=disqus');
    expect(again.status).toBe(202);
    const job = await finishedImport(parley, site.site_id, site.api_key, again.body.id);
    expect(job.report.comments).toEqual({ imported: 0, by_status: {}, already_present: 8 });
    const listed = await getWith(parley, `/api/sites/${site.site_id}/imports`, site.api_key);
    expect(listed.body.imports.map((j: { id: string }) => j.id)).toEqual([again.body.id, first.body.id]);
  });

  it('writes nothing on a dry run and reports what it would import', async () => {
    const site = await parley.newSite();
    const started = await uploadImport(parley, site.site_id, site.api_key, DISQUS, '?dry_run=true');
    const job = await finishedImport(parley, site.site_id, site.api_key, started.body.id);
    expect(job).toMatchObject({ status: 'completed', dry_run: true, report: { dry_run: true, comments: { imported: 8 }, threads: { created: 2 } } });
    expect(await publicThread(site.site_id, POST_1)).toEqual([]);
  });

  it('sends one import.completed webhook with the summary, and none for each comment imported', async () => {
    const site = await parley.newSite();
    await subscribe(parley, site, receiver.url, ['import.completed', 'comment.created']);
    const before = receiver.received.length;
    const started = await uploadImport(parley, site.site_id, site.api_key, DISQUS);
    await finishedImport(parley, site.site_id, site.api_key, started.body.id);
    const deadline = Date.now() + 10_000;
    while (receiver.received.length === before && Date.now() < deadline) await sleep(50);
    await sleep(300);
    const received = receiver.received.slice(before);
    expect(received.map((r) => r.headers['x-service-event'])).toEqual(['import.completed']);
    expect(received[0].body).toEqual({
      event: 'import.completed',
      site_id: site.site_id,
      timestamp: expect.any(String),
      data: {
        import: {
          id: started.body.id,
          started_by: started.body.started_by,
          format: 'disqus',
          threads: { created: 2, existing: 0 },
          comments: { imported: 8, by_status: { published: 5, deleted: 1, pending: 1, spam: 1 }, already_present: 0 },
          skipped: { no_usable_page_address: 1 },
          reparented: 1,
          times_without_zone: 1,
          truncated: 0,
          personal_data_not_kept: { emails: 4, ip_addresses: 2 },
          warnings_total: 2,
        },
      },
    });
  });
});

describe('exporting through the management API', () => {
  it("streams the site's comments as a JSON Lines attachment that imports into a new site as the same file (but for ids, which one database holds once)", async () => {
    const site = await parley.newSite();
    await finishedImport(parley, site.site_id, site.api_key, (await uploadImport(parley, site.site_id, site.api_key, DISQUS)).body.id);
    const exported = await getWith(parley, `/api/sites/${site.site_id}/export`, site.api_key);
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(exported.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="parley-${site.site_id}-\\d{4}-\\d{2}-\\d{2}\\.jsonl"$`));
    const text = await (await fetch(`${parley.url}/api/sites/${site.site_id}/export`, { headers: { authorization: `Bearer ${site.api_key}` } })).text();
    const lines = text.trimEnd().split('\n').map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ type: 'header', format: 'parley', site: { id: site.site_id }, personal_data: false });
    expect(lines.at(-1)).toMatchObject({ type: 'footer', threads: 2, comments: 8 });
    expect(lines.filter((line) => line.type === 'comment').every((line) => !('author_external_id' in line))).toBe(true);

    const copy = await parley.newSite();
    const imported = await finishedImport(parley, copy.site_id, copy.api_key, (await uploadImport(parley, copy.site_id, copy.api_key, text, '', { 'content-type': 'application/x-ndjson' })).body.id);
    expect(imported.report).toMatchObject({ format: 'parley', comments: { imported: 8 } });
    const again = await (await fetch(`${parley.url}/api/sites/${copy.site_id}/export`, { headers: { authorization: `Bearer ${copy.api_key}` } })).text();
    // Ids numbered in order of appearance: the same structure, parents, authors and threads.
    const withoutIds = (file: string) => {
      const seen = new Map<string, string>();
      const body = file.split('\n').slice(1).join('\n');
      return body.replace(/\b(thr|cmt|usr)_[0-9a-z]+/g, (id, prefix) => seen.get(id) ?? (seen.set(id, `${prefix}_${seen.size}`), seen.get(id)!));
    };
    expect(withoutIds(again)).toBe(withoutIds(text));
  });

  it("gives Disqus's XML with format=disqus, and the site's own user ids only with include_personal_data=true", async () => {
    const site = await parley.newSite();
    const session = await parley.signIn(site.api_key, site.site_id, { id: 'reader-7', name: 'Reader' });
    await parley.request('POST', '/v1/comments', { token: session, body: { site_id: site.site_id, thread_url: POST_1, content: 'A comment of mine' } });
    const xml = await getWith(parley, `/api/sites/${site.site_id}/export?format=disqus`, site.api_key);
    expect(xml.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(xml.headers.get('content-disposition')).toMatch(/\.xml"$/);
    expect(xml.body).toMatch(/^<\?xml[^>]*>\s*<disqus[\s>]/);
    expect(xml.body).toContain('A comment of mine');
    const plain = await getWith(parley, `/api/sites/${site.site_id}/export`, site.api_key);
    expect(plain.body).not.toContain('reader-7');
    const personal = await getWith(parley, `/api/sites/${site.site_id}/export?include_personal_data=true`, site.api_key);
    const comment = (personal.body as string).split('\n').map((line) => line && JSON.parse(line)).find((line) => line.type === 'comment');
    expect(comment).toMatchObject({ author_external_id: 'reader-7', content: 'A comment of mine' });
    const audit = await getWith(parley, `/api/accounts/${site.account_id}/audit-log`, site.api_key);
    const exports = audit.body.entries.filter((entry: { action: string }) => entry.action === 'site.exported').map((entry: { data: unknown }) => entry.data);
    expect(exports).toEqual([{ format: 'parley', include_personal_data: true }, { format: 'parley', include_personal_data: false }, { format: 'disqus', include_personal_data: false }]);
  });
});
