import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabaseUrl, type FreshDatabase } from '../../test/helper.ts';
import { loadConfig } from '../config.ts';
import { connect, type Db } from '../db/connect.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { newId } from '../ids.ts';
import { bootstrap } from '../sites/bootstrap.ts';
import { importFile } from './import.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const scratch = mkdtempSync(join(tmpdir(), 'parley-import-test-'));
let database: FreshDatabase;
let db: Db;

beforeAll(async () => {
  database = await freshDatabaseUrl();
  db = connect({ ...loadConfig({}), databaseUrl: database.url });
  await migrateToLatest(db);
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

/** A `plain` site, whose HTML sources' comments become plain text (Markdown sites: html-markdown.happy.test.ts). */
async function newSite(domains: string[] = []) {
  const siteId = (await bootstrap(db.kysely, { siteName: 'Blog', domains })).site_id;
  await db.kysely.updateTable('sites').set({ formatting: 'plain' }).where('id', '=', siteId).execute();
  return siteId;
}

/** Every comment of the site as a reader of the import checks it: by source id, its parent's source id, page and fields. */
async function imported(siteId: string) {
  const rows = await db.kysely
    .selectFrom('comments as c')
    .innerJoin('import_sources as s', 's.comment_id', 'c.id')
    .leftJoin('import_sources as p', 'p.comment_id', 'c.parent_id')
    .innerJoin('threads as t', 't.id', 'c.thread_id')
    .innerJoin('comment_counts as n', 'n.comment_id', 'c.id')
    .select(['s.source_key', 'p.source_key as parent', 't.url_key', 'c.author_name', 'c.author_ref', 'c.content', 'c.status', 'c.is_deleted', 'c.is_edited', 'c.created_at', 'n.upvotes', 'n.downvotes'])
    .where('c.site_id', '=', siteId)
    .orderBy('s.source_key')
    .execute();
  return Object.fromEntries(rows.map(({ source_key, ...row }) => [source_key.slice(source_key.indexOf(':') + 1), { ...row, is_deleted: Number(row.is_deleted), is_edited: Number(row.is_edited), parent: row.parent?.slice(row.parent.indexOf(':') + 1) ?? null }]));
}

/** What the public's list of a page shows, as the API serves it from the stored listing. */
async function publicTotals(siteId: string) {
  const threads = await db.kysely.selectFrom('threads').select(['url_key', 'public_total', 'all_total']).where('site_id', '=', siteId).orderBy('url_key').execute();
  return threads.map((t) => [t.url_key, Number(t.public_total), Number(t.all_total)]);
}

/** The site's threads as its moderators see them: page, title, closed or not. */
async function threadsOf(siteId: string) {
  const threads = await db.kysely.selectFrom('threads').select(['url_key', 'title', 'closed_at']).where('site_id', '=', siteId).orderBy('url_key').execute();
  return threads.map((t) => ({ url: t.url_key, title: t.title, closed: t.closed_at !== null }));
}

const row = (fields: Partial<Awaited<ReturnType<typeof imported>>[string]>) => ({ is_deleted: 0, is_edited: 0, upvotes: 0, downvotes: 0, status: 'published', parent: null, ...fields });

describe('importing a Disqus export', () => {
  it('keeps every comment it can, merges one page\'s threads, and says what it could not keep', async () => {
    const siteId = await newSite();
    const report = await importFile(db, { siteId, path: join(FIXTURES, 'disqus.xml') });
    const rows = await imported(siteId);
    const post1 = 'https://blog.example.com/post-1';
    const post2 = 'https://blog.example.com/post-2';
    expect(rows).toEqual({
      // CDATA HTML: entities decoded once, paragraphs and line breaks kept; a decomposed name in NFC.
      '11': row({ url_key: post1, author_name: 'Zoë', author_ref: expect.stringMatching(/^usr_/), content: 'Hello & welcome\n\nSecond paragraph\nline two', created_at: '2020-01-01T10:00:00.000Z' }),
      // Escaped HTML in a duplicate thread of the same page (http, host case, fragment): same thread, parent found.
      '12': row({ parent: '11', url_key: post1, author_name: 'Bob', author_ref: expect.stringMatching(/^usr_/), content: '> Hello & welcome\n\nAgreed, see https://example.org/a/very/long/path/to/a/page', created_at: '2020-01-01T11:00:00.000Z' }),
      // Deleted, with a live reply: a placeholder.
      '13': row({ parent: '12', url_key: post1, author_name: 'Zoë', author_ref: rows['11'].author_ref, content: null, is_deleted: 1, created_at: '2020-01-01T12:00:00.000Z' }),
      '14': row({ parent: '13', url_key: post1, author_name: 'Anonymous', author_ref: null, content: 'Read this article (https://example.org/x) or https://example.org/y', created_at: '2020-01-01T13:00:00.000Z' }),
      '15': row({ parent: '14', url_key: post1, author_name: 'Spammer', author_ref: null, content: 'Buy cheap watches', status: 'spam', created_at: '2020-01-01T14:00:00.000Z' }),
      // Before its parent in the file.
      '16': row({ parent: '17', url_key: post2, author_name: 'Bob', author_ref: rows['12'].author_ref, content: 'A reply written before its parent in the file', created_at: '2020-01-02T09:30:00.000Z' }),
      // Not approved, and a time without a zone (read as UTC).
      '17': row({ url_key: post2, author_name: 'Carol', author_ref: expect.stringMatching(/^usr_/), content: 'Waiting for approval', status: 'pending', created_at: '2020-01-02T08:00:00.000Z' }),
      // An orphan, made top-level; +02:00 converted to UTC.
      '18': row({ url_key: post2, author_name: 'Дмитрий', author_ref: expect.stringMatching(/^usr_/), content: 'My parent is gone', created_at: '2020-01-02T08:00:00.000Z' }),
    });
    expect(report).toMatchObject({
      format: 'disqus',
      threads: { created: 2, existing: 0 },
      comments: { imported: 8, by_status: { published: 5, deleted: 1, pending: 1, spam: 1 }, already_present: 0 },
      skipped: { no_usable_page_address: 1 },
      reparented: 1,
      times_without_zone: 1,
      personal_data_not_kept: { emails: 4, ip_addresses: 2 },
    });
    expect(report.warnings).toEqual([
      { source_id: '19', message: expect.stringContaining('"javascript:alert(1)" is not an http(s) URL') },
      { source_id: '18', message: 'parent 999 is missing or was skipped: imported as a top-level comment' },
    ]);
    // The public sees comment 11 on post 1 and comment 18 on post 2; moderators also the pending 17.
    expect(await publicTotals(siteId)).toEqual([[post1, 1, 1], [post2, 1, 2]]);
    // A page's title is its first thread's in the file that has one.
    expect(await threadsOf(siteId)).toEqual([{ url: post1, title: 'Post one', closed: false }, { url: post2, title: 'Post two', closed: false }]);
  });

  it('reads a gzipped export as the plain one', async () => {
    const gz = join(scratch, 'disqus.xml.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(FIXTURES, 'disqus.xml'))));
    const [plain, gzipped] = [await newSite(), await newSite()];
    await importFile(db, { siteId: plain, path: join(FIXTURES, 'disqus.xml') });
    await importFile(db, { siteId: gzipped, path: gz });
    const strip = (rows: Awaited<ReturnType<typeof imported>>) => Object.fromEntries(Object.entries(rows).map(([id, r]) => [id, { ...r, author_ref: r.author_ref && 'user' }]));
    expect(strip(await imported(gzipped))).toEqual(strip(await imported(plain)));
  });

  it('adds nothing when the same file is imported again, and says so', async () => {
    const siteId = await newSite();
    await importFile(db, { siteId, path: join(FIXTURES, 'disqus.xml') });
    const before = await imported(siteId);
    const again = await importFile(db, { siteId, path: join(FIXTURES, 'disqus.xml'), batchSize: 3 });
    expect(again.comments).toEqual({ imported: 0, by_status: {}, already_present: 8 });
    expect(again.threads).toEqual({ created: 0, existing: 2 });
    expect(await imported(siteId)).toEqual(before);
    expect(await publicTotals(siteId)).toEqual([['https://blog.example.com/post-1', 1, 1], ['https://blog.example.com/post-2', 1, 2]]);
    const users = await db.kysely.selectFrom('site_users').select('external_id').where('site_id', '=', siteId).orderBy('external_id').execute();
    expect(users.map((u) => u.external_id)).toEqual(['import:disqus:bob', 'import:disqus:carol', 'import:disqus:dima', 'import:disqus:zoe']);
  });

  it("brings a deleted thread's posts in removed and a closed thread closed; an existing thread keeps its title, an untitled one takes the file's", async () => {
    const thread = (id: string, page: string, title: string, state = '') => `<thread dsq:id="${id}"><link>https://blog.example.com/${page}</link><title>${title}</title>${state}</thread>`;
    const post = (id: string, threadId: string, more = '') => `<post dsq:id="${id}"><message>Post ${id}</message><createdAt>2020-01-01T00:00:00Z</createdAt><author><name>A</name></author>${more}<thread dsq:id="${threadId}"/></post>`;
    const path = join(scratch, 'thread-states.xml');
    writeFileSync(
      path,
      '<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals">\n' +
        [
          thread('t1', 'open', 'Open', '<isClosed>false</isClosed><isDeleted>false</isDeleted>'),
          thread('t2', 'closed', 'Closed', '<isClosed>true</isClosed><isDeleted>false</isDeleted>'),
          thread('t3', 'gone', 'Gone', '<isClosed>false</isClosed><isDeleted>true</isDeleted>'),
          thread('t4', 'titled', 'Title from Disqus'),
          thread('t5', 'untitled', 'Title for an untitled page'),
          post('p1', 't1'),
          post('p2', 't2'),
          post('p3', 't3'),
          post('p4', 't3', '<isSpam>true</isSpam>'),
          post('p5', 't3', '<parent dsq:id="p3"/>'),
          post('p6', 't4'),
          post('p7', 't5'),
        ].join('\n') +
        '\n</disqus>\n',
    );
    const siteId = await newSite();
    const page = (name: string) => `https://blog.example.com/${name}`;
    const existing = (urlKey: string, title: string | null) => ({ id: newId('thr'), site_id: siteId, url_key: urlKey, created_at: '2019-01-01T00:00:00.000Z', public_total: 0, all_total: 0, title });
    await db.kysely.insertInto('threads').values([existing(page('titled'), 'Our own title'), existing(page('untitled'), null)]).execute();
    const report = await importFile(db, { siteId, path });
    expect(report).toMatchObject({ threads: { created: 3, existing: 2 }, comments: { imported: 7, by_status: { published: 4, removed: 2, spam: 1 } } });
    expect(report.warnings).toEqual([{ source_id: 't3', message: 'the thread was deleted in the source: its comments (3) are imported removed, hidden from the public' }]);
    const rows = await imported(siteId);
    expect(Object.fromEntries(Object.entries(rows).map(([id, r]) => [id, r.status]))).toEqual({ p1: 'published', p2: 'published', p3: 'removed', p4: 'spam', p5: 'removed', p6: 'published', p7: 'published' });
    // The public sees nothing of the deleted thread; moderators see its two top-level posts.
    expect((await publicTotals(siteId)).find(([url]) => url === page('gone'))).toEqual([page('gone'), 0, 2]);
    expect(await threadsOf(siteId)).toEqual([
      { url: page('closed'), title: 'Closed', closed: true },
      { url: page('gone'), title: 'Gone', closed: false },
      { url: page('open'), title: 'Open', closed: false },
      { url: page('titled'), title: 'Our own title', closed: false },
      { url: page('untitled'), title: 'Title for an untitled page', closed: false },
    ]);
  });

  it('writes nothing on a dry run, and reports what it would do', async () => {
    const siteId = await newSite();
    const report = await importFile(db, { siteId, path: join(FIXTURES, 'disqus.xml'), dryRun: true });
    expect(report).toMatchObject({ dry_run: true, threads: { created: 2 }, comments: { imported: 8, already_present: 0 }, reparented: 1 });
    expect(await imported(siteId)).toEqual({});
    expect(await publicTotals(siteId)).toEqual([]);
  });

  it('skips pages outside the site\'s domains', async () => {
    const siteId = await newSite(['elsewhere.example']);
    const report = await importFile(db, { siteId, path: join(FIXTURES, 'disqus.xml') });
    expect(report.skipped).toEqual({ no_usable_page_address: 9 });
    expect(await imported(siteId)).toEqual({});
  });
});

describe('importing other formats', () => {
  it('WordPress WXR: statuses, GMT times, pingbacks skipped and their replies reparented, one author per user id', async () => {
    const siteId = await newSite();
    const report = await importFile(db, { siteId, path: join(FIXTURES, 'wordpress.xml') });
    const page = 'https://blog.example.com/hello-world/';
    const rows = await imported(siteId);
    expect(rows).toEqual({
      '101': row({ url_key: page, author_name: 'Ana', author_ref: expect.stringMatching(/^usr_/), content: 'First line\nsecond line\n\nA new paragraph with & and https://ana.example.com/', created_at: '2023-12-02T10:30:00.000Z' }),
      // Names as WordPress stores them (HTML-escaped), decoded once.
      '102': row({ parent: '101', url_key: page, author_name: 'Ben & Holly', author_ref: null, content: '> First line\n\nHeld for moderation', status: 'pending', created_at: '2023-12-02T11:00:00.000Z' }),
      '104': row({ url_key: page, author_name: 'Ana', author_ref: rows['101'].author_ref, content: 'Replying to the pingback', created_at: '2023-12-03T09:00:00.000Z' }),
      '105': row({ url_key: page, author_name: 'Casino &amp; Co', author_ref: null, content: 'Win big', status: 'spam', created_at: '2023-12-04T08:00:00.000Z' }),
      '106': row({ url_key: page, author_name: 'Troll', author_ref: null, content: 'Rude words', status: 'removed', created_at: '2023-12-04T09:00:00.000Z' }),
    });
    expect(report).toMatchObject({ format: 'wxr', skipped: { pingback_or_trackback: 1 }, reparented: 1, times_without_zone: 1, personal_data_not_kept: { emails: 1, ip_addresses: 1 } });
    expect(await threadsOf(siteId)).toEqual([{ url: page, title: 'Hello & welcome', closed: false }]);
  });

  it('Remark42 backup (gzipped JSON Lines): offsets and nanoseconds, deleted placeholders, votes, edit marks', async () => {
    const gz = join(scratch, 'remark42.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(FIXTURES, 'remark42.jsonl'))));
    const siteId = await newSite();
    const report = await importFile(db, { siteId, path: gz });
    const page = 'https://blog.example.com/remark/';
    const rows = await imported(siteId);
    expect(rows).toEqual({
      // Remark42 stores names HTML-escaped: decoded once.
      r1: row({ url_key: page, author_name: 'Grace <3', author_ref: expect.stringMatching(/^usr_/), content: 'Top <b> text', created_at: '2021-03-01T15:00:00.123Z', upvotes: 2, downvotes: 1 }),
      r2: row({ parent: 'r1', url_key: page, author_name: 'Anonymous', author_ref: expect.stringMatching(/^usr_/), content: null, is_deleted: 1, created_at: '2021-03-01T11:00:00.000Z' }),
      r3: row({ parent: 'r2', url_key: page, author_name: 'Grace <3', author_ref: rows.r1.author_ref, content: 'Reply below a deleted one', created_at: '2021-03-01T12:00:00.000Z' }),
      r4: row({ parent: 'r1', url_key: page, author_name: 'Anonymous', author_ref: rows.r2.author_ref, content: 'Edited text', is_edited: 1, created_at: '2021-03-01T13:00:00.000Z' }),
    });
    expect(report).toMatchObject({ format: 'remark42', reparented: 0, times_without_zone: 0 });
    expect(await threadsOf(siteId)).toEqual([{ url: page, title: 'Remark post', closed: false }]);
  });

  it('Commento export (gzipped JSON): states, anonymous commenters, scores', async () => {
    const gz = join(scratch, 'commento.json.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(FIXTURES, 'commento.json'))));
    const siteId = await newSite();
    const report = await importFile(db, { siteId, path: gz });
    const page = 'https://blog.example.com/commento/';
    const rows = await imported(siteId);
    expect(rows).toEqual({
      aa01: row({ url_key: page, author_name: 'Hana', author_ref: expect.stringMatching(/^usr_/), content: 'Plain **markdown** text', created_at: '2022-05-01T08:00:00.500Z', upvotes: 3 }),
      aa02: row({ parent: 'aa01', url_key: page, author_name: 'Anonymous', author_ref: null, content: 'Anonymous reply', status: 'pending', created_at: '2022-05-01T09:00:00.000Z', downvotes: 1 }),
      aa03: row({ url_key: page, author_name: 'Hana', author_ref: rows.aa01.author_ref, content: 'Flagged', status: 'spam', created_at: '2022-05-01T10:00:00.000Z' }),
      aa04: row({ parent: 'aa01', url_key: page, author_name: 'Hana', author_ref: rows.aa01.author_ref, content: null, is_deleted: 1, created_at: '2022-05-01T11:00:00.000Z' }),
    });
    expect(report).toMatchObject({ format: 'commento', personal_data_not_kept: { emails: 3 } });
  });

  it("Isso's SQLite database: paths on the site's address, Unix times, modes", async () => {
    const file = join(scratch, 'comments.db');
    const isso = new SQLite(file);
    isso.exec(readFileSync(join(FIXTURES, 'isso.sql'), 'utf8'));
    isso.close();
    const siteId = await newSite(['blog.example.com']);
    const report = await importFile(db, { siteId, path: file });
    const page = 'https://blog.example.com/isso/';
    expect(await imported(siteId)).toEqual({
      '1': row({ url_key: page, author_name: 'Ivo', author_ref: null, content: 'Hello from *Isso*', created_at: '2020-09-13T12:26:40.250Z', upvotes: 2, downvotes: 1 }),
      '2': row({ parent: '1', url_key: page, author_name: 'Anonymous', author_ref: null, content: 'An edited reply', is_edited: 1, created_at: '2020-09-13T12:28:20.000Z' }),
      '3': row({ url_key: page, author_name: 'Ivo', author_ref: null, content: 'Waiting', status: 'pending', created_at: '2020-09-13T12:31:40.000Z' }),
      '4': row({ url_key: page, author_name: 'Anonymous', author_ref: null, content: null, is_deleted: 1, created_at: '2020-09-13T12:33:20.000Z' }),
      // Isso stores names HTML-escaped: decoded once.
      '5': row({ parent: '4', url_key: page, author_name: 'Jo & Mo', author_ref: null, content: 'Under a deleted one', created_at: '2020-09-13T12:35:00.000Z' }),
    });
    expect(report).toMatchObject({ format: 'isso', comments: { imported: 5 } });
    // The deleted top-level comment stays listed (a placeholder) while its reply is shown.
    expect(await publicTotals(siteId)).toEqual([[page, 2, 3]]);
    expect(await threadsOf(siteId)).toEqual([{ url: page, title: 'Isso post', closed: false }]);
  });
});

describe('hostile and malformed files', () => {
  const attempt = async (name: string, content: string | Buffer) => {
    const path = join(scratch, name);
    writeFileSync(path, content);
    const siteId = await newSite();
    const error = await importFile(db, { siteId, path }).then(() => null, (e: Error) => e.message);
    return { error, rows: await imported(siteId) };
  };
  const disqus = readFileSync(join(FIXTURES, 'disqus.xml'), 'utf8');

  it('refuses DTDs, so no external entity is fetched and no entity expands', async () => {
    const xxe = disqus.replace('<disqus ', '<!DOCTYPE disqus [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<disqus ').replace('Buy cheap watches', '&xxe;');
    expect(await attempt('xxe.xml', xxe)).toEqual({ error: 'line 2: document type declarations (DTDs) are not accepted', rows: {} });
    const laughs = `<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>\n<disqus>&lol2;</disqus>`;
    expect((await attempt('laughs.xml', laughs)).error).toBe('line 2: document type declarations (DTDs) are not accepted');
  });

  it('refuses a malformed file with the line where it broke, writing nothing', async () => {
    const broken = disqus.replace('</thread>\n  <thread dsq:id="3">', '</thred>\n  <thread dsq:id="3">');
    const result = await attempt('broken.xml', broken);
    expect(result).toEqual({ error: 'line 37: unexpected close tag.', rows: {} });
    const badTime = disqus.replace('2020-01-02T11:00:00Z', 'yesterday');
    expect(await attempt('time.xml', badTime)).toEqual({ error: 'line 147 (post 19): "yesterday" is not a date and time', rows: {} });
    expect((await attempt('cut.xml', disqus.slice(0, 3000))).error).toBe('line 82: unclosed tag: author');
  });

  it('stops a gzip bomb and an oversized field', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('<disqus xmlns="http://disqus.com">'), Buffer.from('<a>b</a>\n'.repeat(9 << 20)), Buffer.from('</disqus>')]));
    expect((await attempt('bomb.gz', bomb)).error).toMatch(/unpacks to more than 200 times its size/);
    const huge = disqus.replace('Buy cheap watches', 'x'.repeat((1 << 20) + 1));
    expect((await attempt('huge.xml', huge)).error).toMatch(/more than 1048576 characters/);
    const hugeTag = disqus.replace('<disqus ', `<disqus data="${'x'.repeat(1 << 21)}" `);
    expect((await attempt('huge-tag.xml', hugeTag)).error).toBe('line 2: a text, tag or declaration of more than 1048576 characters');
    // Inflating and scanning megabytes is work for a whole core: more time when another test file shares it.
  }, 90_000);

  it('refuses a file it does not recognise', async () => {
    expect((await attempt('notes.txt', 'just some notes')).error).toMatch(/the format could not be recognised/);
  });
});

describe('Disqus XML that Parley exports', () => {
  it('parses with a real XML parser into Disqus\'s documented structure', async () => {
    const { exportSite } = await import('./export.ts');
    const siteId = await newSite();
    await importFile(db, { siteId, path: join(FIXTURES, 'disqus.xml') });
    await db.kysely.updateTable('threads').set({ closed_at: '2024-01-01T00:00:00.000Z' }).where('site_id', '=', siteId).where('url_key', '=', 'https://blog.example.com/post-2').execute();
    const chunks: string[] = [];
    const { Writable } = await import('node:stream');
    await exportSite(db.kysely, { siteId, format: 'disqus', includePersonalData: false }, new Writable({ write: (c, _e, done) => (chunks.push(String(c)), done()) }));
    const file = join(scratch, 'export.xml');
    writeFileSync(file, chunks.join(''));
    // Python's ElementTree (expat) checks the structure: root, namespaces, every post's fields and references.
    const check = `
import sys, xml.etree.ElementTree as ET
ns = {'d': 'http://disqus.com', 'dsq': 'http://disqus.com/disqus-internals'}
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == '{http://disqus.com}disqus', root.tag
threads = {t.get('{http://disqus.com/disqus-internals}id'): t for t in root.findall('d:thread', ns)}
posts = root.findall('d:post', ns)
seen = set()
for t in threads.values():
    for field in ('id', 'forum', 'link', 'title', 'createdAt', 'isClosed', 'isDeleted'):
        assert t.find('d:' + field, ns) is not None, field
for p in posts:
    for field in ('message', 'createdAt', 'isDeleted', 'isSpam', 'author/d:name', 'author/d:isAnonymous'):
        assert p.find('d:' + field, ns) is not None, field
    assert p.find('d:thread', ns).get('{http://disqus.com/disqus-internals}id') in threads
    parent = p.find('d:parent', ns)
    if parent is not None:
        assert parent.get('{http://disqus.com/disqus-internals}id') in seen, 'parent after reply'
    seen.add(p.get('{http://disqus.com/disqus-internals}id'))
print(len(threads), len(posts))`;
    expect(execFileSync('python3', ['-c', check, file], { encoding: 'utf8' })).toBe('2 8\n');
    // And Parley reads it back: the same comments, pending ones still hidden (as deleted).
    const back = await newSite();
    const report = await importFile(db, { siteId: back, path: file });
    expect(report.comments).toMatchObject({ imported: 8, by_status: { published: 5, deleted: 2, spam: 1 } });
    // With the pages' titles and closed state.
    expect(await threadsOf(back)).toEqual(await threadsOf(siteId));
  });
});
