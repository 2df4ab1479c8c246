import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';
import { finishedImport, getWith, uploadImport } from '../../test/imports.ts';
import { outOfMemory } from './job-runner.ts';
import { insertJob, STOPPED } from './jobs.ts';

const MAX = 4096;

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley({ PARLEY_IMPORT_MAX_SIZE: '4KiB' });
});
afterAll(() => parley.close());

const jobsOf = async (site: { site_id: string; api_key: string }) => (await getWith(parley, `/api/sites/${site.site_id}/imports`, site.api_key)).body;
const commentsOf = (siteId: string) => parley.app.db.kysely.selectFrom('comments').select('id').where('site_id', '=', siteId).execute();

/** A Disqus export of these posts, one a line, under the 4 KiB cap when they are few. */
function disqusOf(posts: string[]): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n' +
    '<thread dsq:id="t1"><link>https://blog.example.com/a</link></thread>\n' +
    posts.join('\n') +
    '\n</disqus>\n'
  );
}
const post = (id: number) => `<post dsq:id="p${id}"><message>Comment ${id}</message><createdAt>2020-01-01T00:00:00Z</createdAt><author><name>A</name></author><thread dsq:id="t1"/></post>`;

describe('a file the import cannot take', () => {
  it('fails the job with the line where the file broke, and leaves the site as it was', async () => {
    const site = await parley.newSite();
    // Line 7 (after the declaration, the root, the thread and three posts) closes a tag it never opened.
    const broken = disqusOf([post(1), post(2), post(3), '<post dsq:id="p4"><message>Comment 4</mesage></post>', post(5)]);
    const started = await uploadImport(parley, site.site_id, site.api_key, broken);
    expect(started.status).toBe(202);
    const job = await finishedImport(parley, site.site_id, site.api_key, started.body.id);
    expect(job).toMatchObject({ status: 'failed', report: null, error: { message: "line 7: unexpected close tag.", line: 7 } });
    expect(await commentsOf(site.site_id)).toEqual([]);
  });

  it('fails the job naming the line where elements nest deeper than a comment export ever does', async () => {
    const site = await parley.newSite();
    const deep = disqusOf([post(1), `<post dsq:id="p2">${'<a>'.repeat(101)}${'</a>'.repeat(101)}</post>`]);
    const started = await uploadImport(parley, site.site_id, site.api_key, deep);
    const job = await finishedImport(parley, site.site_id, site.api_key, started.body.id);
    expect(job).toMatchObject({ status: 'failed', error: { message: 'line 5: elements nested more than 100 deep', line: 5 } });
    expect(await commentsOf(site.site_id)).toEqual([]);
  });

  it("fails the job naming the line of a Parley export's comment whose moderation_status is not one Parley has", async () => {
    const site = await parley.newSite();
    const comment = { type: 'comment', id: 'cmt_1', thread_id: 'thr_1', parent_id: null, author_id: null, author_name: 'A', content: 'Hi', status: 'published', moderation_status: 'hidden', is_deleted: false, is_edited: false, upvotes: 0, downvotes: 0, reaction_counts: {}, created_at: '2020-01-01T00:00:00.000Z', updated_at: '2020-01-01T00:00:00.000Z' };
    const file = [
      { type: 'header', format: 'parley', version: 1, site: { id: 'site_1', name: 'Blog' }, personal_data: false },
      { type: 'thread', id: 'thr_1', url: 'https://blog.example.com/a', created_at: '2020-01-01T00:00:00.000Z' },
      comment,
      { type: 'footer', threads: 1, comments: 1, by_status: { published: 1 } },
    ];
    const started = await uploadImport(parley, site.site_id, site.api_key, file.map((line) => JSON.stringify(line)).join('\n'));
    const job = await finishedImport(parley, site.site_id, site.api_key, started.body.id);
    expect(job).toMatchObject({ status: 'failed', error: { message: 'line 3: unknown moderation_status "hidden" (it is null, pending, removed, spam or shadow_banned)', line: 3 } });
    expect(await commentsOf(site.site_id)).toEqual([]);
  });

  it('fails the job naming the format when the file is not in the format named', async () => {
    const site = await parley.newSite();
    const started = await uploadImport(parley, site.site_id, site.api_key, disqusOf([post(1)]), '?format=remark42');
    const job = await finishedImport(parley, site.site_id, site.api_key, started.body.id);
    expect(job).toMatchObject({ status: 'failed', format: 'remark42', error: { message: 'line 1: not JSON (Unexpected token \'<\', "<?xml vers"... is not valid JSON)', line: 1 } });
    expect(await commentsOf(site.site_id)).toEqual([]);
  });

  it('refuses with 400 a file whose format it cannot recognise, an unknown format, and an empty body; no job is made', async () => {
    const site = await parley.newSite();
    const unknown = await uploadImport(parley, site.site_id, site.api_key, 'name,comment\nAna,hello\n');
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(unknown.body).toMatchObject({ code: 'validation_failed', errors: [{ path: 'querystring/format', message: expect.stringContaining('name it with ?format=') }] });
    const named = await uploadImport(parley, site.site_id, site.api_key, disqusOf([post(1)]), '?format=csv');
    expect(named.status).toBe(400);
    expect(named.body.errors[0].path).toMatch(/format/);
    const empty = await uploadImport(parley, site.site_id, site.api_key, '');
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([{ path: 'body', message: 'is empty: send the file to import as the request body' }]);
    const damaged = await uploadImport(parley, site.site_id, site.api_key, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5, 6]));
    expect(damaged.status).toBe(400);
    expect(damaged.body.errors[0].message).toMatch(/^the gzip data is damaged/);
    expect(await jobsOf(site)).toMatchObject({ imports: [], total: 0 });
  });

  it('answers 413 to a file over PARLEY_IMPORT_MAX_SIZE, whether its length is declared or only shows as it streams, and keeps nothing of it', async () => {
    const site = await parley.newSite();
    const big = disqusOf(Array.from({ length: 40 }, (_, i) => post(i)));
    expect(big.length).toBeGreaterThan(MAX);
    const declared = await uploadImport(parley, site.site_id, site.api_key, big);
    expect(declared.status).toBe(413);
    expect(declared.body).toMatchObject({ code: 'payload_too_large', detail: expect.stringContaining(`at most ${MAX} bytes`) });
    const chunks = [big.slice(0, 3000), big.slice(3000)];
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next === undefined) controller.close();
        else controller.enqueue(new TextEncoder().encode(next));
      },
    });
    const streamed = await uploadImport(parley, site.site_id, site.api_key, stream);
    expect(streamed.status).toBe(413);
    expect(streamed.body.code).toBe('payload_too_large');
    expect(await jobsOf(site)).toMatchObject({ imports: [], total: 0 });
    // The same connection and server still take a file under the cap.
    const small = await uploadImport(parley, site.site_id, site.api_key, disqusOf([post(1)]));
    expect((await finishedImport(parley, site.site_id, site.api_key, small.body.id)).status).toBe('completed');
  });

  it('takes one import at a time per site: 409 while another instance runs one; once that instance stops renewing it, it shows failed and uploads go on', async () => {
    const site = await parley.newSite();
    const kysely = parley.app.db.kysely;
    // A job another instance (on the same database) is running: its lease runs a minute ahead.
    const actor = { ref: 'key_elsewhere', name: 'Other instance' };
    await insertJob(kysely, { id: 'imp_elsewhere', siteId: site.site_id, format: 'disqus', dryRun: false, fileBytes: 10, actor }, 60_000);
    await kysely.updateTable('import_jobs').set({ status: 'running' }).where('id', '=', 'imp_elsewhere').execute();
    const refused = await uploadImport(parley, site.site_id, site.api_key, disqusOf([post(1)]));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'conflict', detail: expect.stringContaining('imp_elsewhere') });
    // That instance dies: nobody renews the lease.
    await kysely.updateTable('import_jobs').set({ lease_until: new Date(Date.now() - 1000).toISOString() }).where('id', '=', 'imp_elsewhere').execute();
    const left = await getWith(parley, `/api/sites/${site.site_id}/imports/imp_elsewhere`, site.api_key);
    expect(left.body).toMatchObject({ status: 'failed', error: { message: STOPPED, line: null }, finished_at: expect.any(String) });
    const next = await uploadImport(parley, site.site_id, site.api_key, disqusOf([post(1)]));
    expect(next.status).toBe(202);
    expect((await finishedImport(parley, site.site_id, site.api_key, next.body.id)).status).toBe('completed');
  });

  it('answers 404 for a job that is not of the site', async () => {
    const site = await parley.newSite();
    const other = await parley.newSite();
    const started = await uploadImport(parley, site.site_id, site.api_key, disqusOf([post(1)]));
    expect((await getWith(parley, `/api/sites/${other.site_id}/imports/${started.body.id}`, other.api_key)).status).toBe(404);
    expect((await getWith(parley, `/api/sites/${site.site_id}/imports/imp_nothing`, site.api_key)).body).toMatchObject({ code: 'not_found' });
  });
});

describe('an import that needs more memory than an import may use', () => {
  let small: TestParley;
  beforeAll(async () => {
    small = await startParley({ PARLEY_IMPORT_MAX_MEMORY: '64MiB' });
  });
  afterAll(() => small.close());

  it('fails the job saying so, and nothing of the file is imported', async () => {
    const site = await small.newSite();
    // One post holding 120 fields of half a mebibyte each: more than 64 MiB to hold while reading it.
    const field = (n: number) => `<field${n}>${'x'.repeat(1 << 19)}</field${n}>`;
    const heavy = disqusOf([post(1), post(2).replace('</post>', `${Array.from({ length: 120 }, (_, n) => field(n)).join('')}</post>`)]);
    const started = await uploadImport(small, site.site_id, site.api_key, gzipSync(heavy));
    expect(started.status).toBe(202);
    const job = await finishedImport(small, site.site_id, site.api_key, started.body.id);
    expect(job).toMatchObject({ status: 'failed', report: null, error: { message: outOfMemory(64, false), line: null } });
    expect(job.error.message).toMatch(/^The import needed more than the 64 MiB of memory an import may use/);
    expect(await small.app.db.kysely.selectFrom('comments').select('id').where('site_id', '=', site.site_id).execute()).toEqual([]);
  }, 60_000);
});
