import type { Db } from '../db/connect.ts';
import { renderContent, type Formatting } from '../formatting/html.ts';
import type { Insertable, Kysely } from 'kysely';
import type { CommentCountsTable, CommentTable, Database, ThreadTable } from '../db/schema.ts';
import { refreshListing, totalsPlus } from '../comments/listing.ts';
import { refreshStatistics } from '../db/dialect.ts';
import { newId } from '../ids.ts';
import { nowIso } from '../clock.ts';
import { wilsonLowerBound } from '../votes/wilson.ts';
import type { Format } from './source.ts';
import type { Staging } from './staging.ts';
import type { ImportReport } from './report.ts';

interface StagedRow {
  seq: number;
  depth: number;
  source_id: string;
  url_key: string;
  parent_seq: number | null;
  parent_final: string | null;
  parent_root: string | null;
  parent_thread: string | null;
  author_source: string | null;
  author_parley_id: string | null;
  author_external_id: string | null;
  author_name: string;
  content: string | null;
  status: string;
  moderation_status: string | null;
  deleted: number;
  edited: number;
  upvotes: number;
  downvotes: number;
  reactions: string;
  created_at: string;
  updated_at: string | null;
  parley_id: string | null;
}

interface Placed {
  id: string;
  root_id: string;
  thread_id: string;
}

export interface PublishOptions {
  siteId: string;
  /** The site's formatting, which imported comments are rendered with as new ones are. */
  formatting: Formatting;
  format: Format;
  dryRun: boolean;
  batchSize: number;
  onBatch?: (written: number) => void;
}

/** Rows per multi-row INSERT at most: 22 columns each stays under SQLite's and PostgreSQL's bound-value limits. */
const INSERT_ROWS = 128;

/**
 * Statements are kept prepared by their SQL (db/sqlite-driver.ts, kept-statements.ts): an `in (...)`
 * list is padded to a power of two (repeating its first value) and inserts go in power-of-two groups,
 * so that a long import prepares a dozen shapes, not one per batch size.
 */
function padded<T>(values: T[]): T[] {
  if (values.length === 0) return values;
  const size = 2 ** Math.ceil(Math.log2(Math.max(values.length, 8)));
  return [...values, ...Array<T>(size - values.length).fill(values[0])];
}

function powerOfTwoGroups<T>(rows: T[]): T[][] {
  const groups: T[][] = [];
  for (let start = 0; start < rows.length; ) {
    const size = Math.min(INSERT_ROWS, 2 ** Math.floor(Math.log2(rows.length - start)));
    groups.push(rows.slice(start, start + size));
    start += size;
  }
  return groups;
}

/**
 * The second pass: the staged comments, parents before their replies, written in batches of
 * `batchSize`, each batch in one transaction with its threads, authors, thread totals and source map.
 * A comment whose source key the site already maps is not written again, so a rerun (after a crash,
 * or of the same file) adds only what is missing. Sends no events: this is history.
 */
export async function publish(db: Db, staging: Staging, options: PublishOptions, report: ImportReport): Promise<void> {
  const next = staging.db.prepare(`
    select c.seq, c.depth, c.source_id, c.url_key, c.parent_seq, p.final_id as parent_final, p.final_root as parent_root, p.final_thread as parent_thread,
      c.author_source, c.author_parley_id, c.author_external_id, c.author_name, c.content, c.status, c.moderation_status, c.deleted, c.edited,
      c.upvotes, c.downvotes, c.reactions, c.created_at, c.updated_at, c.parley_id
    from comments c left join comments p on p.seq = c.parent_seq
    where c.url_key is not null and (c.depth, c.seq) > (?, ?) order by c.depth, c.seq limit ?`);
  const place = staging.db.prepare('update comments set final_id = ?, final_root = ?, final_thread = ? where seq = ?');
  let after = [-1, 0];
  let written = 0;
  for (;;) {
    const rows = next.all(after[0], after[1], options.batchSize) as StagedRow[];
    if (rows.length === 0) break;
    after = [rows.at(-1)!.depth, rows.at(-1)!.seq];
    const placed = options.dryRun
      ? await writeBatch(db.kysely, staging, rows, options, report)
      : await db.kysely.transaction().execute((trx) => writeBatch(trx, staging, rows, options, report));
    staging.begin();
    for (const row of rows) {
      const at = placed.get(row.seq)!;
      place.run(at.id, at.root_id, at.thread_id, row.seq);
    }
    staging.commit();
    written += rows.length;
    options.onBatch?.(written);
  }
  await countPagesAlreadyThere(db.kysely, staging, options, report);
  if (options.dryRun) return;
  await refreshStatistics(db.kysely, db.dialect, ['comments', 'threads', 'site_users', 'import_sources']);
  await refreshDeletedRoots(db, staging);
}

/**
 * A deleted top-level comment is listed while a live reply below it is shown: decided once its
 * replies are in. A few roots per statement: each walks down its replies (on PostgreSQL, 500 of
 * them in one statement ran past the statement time-out).
 */
async function refreshDeletedRoots(db: Db, staging: Staging): Promise<void> {
  const roots = staging.db.prepare('select seq, final_id from comments where depth = 0 and deleted = 1 and url_key is not null and seq > ? order by seq limit 25');
  let after = 0;
  for (;;) {
    const rows = roots.all(after) as { seq: number; final_id: string }[];
    if (rows.length === 0) return;
    after = rows.at(-1)!.seq;
    await db.kysely.transaction().execute((trx) => refreshListing(trx, rows.map((row) => row.final_id)));
  }
}

async function writeBatch(trx: Kysely<Database>, staging: Staging, rows: StagedRow[], options: PublishOptions, report: ImportReport): Promise<Map<number, Placed>> {
  const { siteId, format, dryRun } = options;
  const placed = new Map<number, Placed>();
  const present = await alreadyPresent(trx, siteId, format, rows);
  const fresh: StagedRow[] = [];
  for (const row of rows) {
    const found = present.get(row.source_id);
    if (found) {
      placed.set(row.seq, found);
      report.comments.already_present++;
    } else fresh.push(row);
  }
  if (fresh.length === 0) return placed;
  const threads = await threadsOf(trx, staging, siteId, fresh.filter((row) => row.parent_seq === null), dryRun, report);
  const authors = await authorsOf(trx, siteId, format, fresh, dryRun);
  const freeIds = await freeCommentIds(trx, fresh);
  const now = nowIso();
  const inserts: Insertable<CommentTable>[] = [];
  const counts: Insertable<CommentCountsTable>[] = [];
  const totals = new Map<string, { public: number; all: number }>();
  for (const row of fresh) {
    const id = row.parley_id && freeIds.has(row.parley_id) ? row.parley_id : newId('cmt');
    const topLevel = row.parent_seq === null;
    // A parent in this batch (a lower depth) was placed a moment ago; one in an earlier batch, in staging.
    const parent = topLevel ? null : (placed.get(row.parent_seq!) ?? { id: row.parent_final!, root_id: row.parent_root!, thread_id: row.parent_thread! });
    const threadId = parent ? parent.thread_id : threads.get(row.url_key)!;
    const publicRow = row.status === 'published' && row.moderation_status === null;
    const listedAll = topLevel && !row.deleted ? 1 : 0;
    const listedPublic = listedAll && publicRow ? 1 : 0;
    if (listedAll) {
      const total = totals.get(threadId) ?? { public: 0, all: 0 };
      total.all++;
      total.public += listedPublic;
      totals.set(threadId, total);
    }
    inserts.push({
      id,
      site_id: siteId,
      thread_id: threadId,
      parent_id: parent ? parent.id : null,
      root_id: parent ? parent.root_id : id,
      author_ref: authorRefOf(row, format, authors),
      author_name: row.author_name,
      content: row.deleted ? null : row.content,
      content_html: row.deleted ? null : renderContent(row.content!, options.formatting),
      status: row.status,
      moderation_status: row.moderation_status,
      is_deleted: row.deleted ? 1 : 0,
      is_edited: row.edited ? 1 : 0,
      created_at: row.created_at,
      updated_at: row.updated_at ?? row.created_at,
      listed_public: listedPublic,
      listed_all: listedAll,
    });
    // A comment that comes with counts has its counts row written first (the insert's trigger makes the others).
    if (row.upvotes > 0 || row.downvotes > 0 || row.reactions !== '{}') {
      counts.push({
        comment_id: id,
        thread_id: threadId,
        root_id: parent ? parent.root_id : id,
        top_level: topLevel ? 1 : 0,
        upvotes: row.upvotes,
        downvotes: row.downvotes,
        score: row.upvotes - row.downvotes,
        wilson: wilsonLowerBound(row.upvotes, row.downvotes),
        reaction_counts: row.reactions,
        listed_public: listedPublic,
        listed_all: listedAll,
      });
    }
    placed.set(row.seq, { id, root_id: parent ? parent.root_id : id, thread_id: threadId });
    const counted = row.deleted ? 'deleted' : row.moderation_status === 'shadow_banned' ? 'shadow_banned' : (row.status as 'published');
    report.comments.by_status[counted] = (report.comments.by_status[counted] ?? 0) + 1;
    report.comments.imported++;
  }
  if (dryRun) return placed;
  const sources = inserts.map((comment, i) => ({ site_id: siteId, source_key: `${format}:${fresh[i].source_id}`, comment_id: comment.id!, created_at: now }));
  for (const group of powerOfTwoGroups(counts)) await trx.insertInto('comment_counts').values(group).execute();
  for (const group of powerOfTwoGroups(inserts)) await trx.insertInto('comments').values(group).execute();
  for (const group of powerOfTwoGroups(sources)) await trx.insertInto('import_sources').values(group).execute();
  await addToThreads(trx, totals);
  return placed;
}

/** The batch's additions to its threads' totals: one statement per distinct pair of additions, not one per thread. */
async function addToThreads(trx: Kysely<Database>, totals: Map<string, { public: number; all: number }>): Promise<void> {
  const byDelta = new Map<string, { public: number; all: number; threads: string[] }>();
  for (const [threadId, total] of totals) {
    const key = `${total.public}:${total.all}`;
    const group = byDelta.get(key) ?? { ...total, threads: [] };
    group.threads.push(threadId);
    byDelta.set(key, group);
  }
  for (const group of byDelta.values()) {
    for (let start = 0; start < group.threads.length; start += INSERT_ROWS * 4) {
      const threads = padded(group.threads.slice(start, start + INSERT_ROWS * 4));
      await trx.updateTable('threads').set(totalsPlus(group.public, group.all)).where('id', 'in', threads).execute();
    }
  }
}

/** The batch's comments the site already holds: by source key, and (Parley's format) by their own id in this site. */
async function alreadyPresent(trx: Kysely<Database>, siteId: string, format: Format, rows: StagedRow[]): Promise<Map<string, Placed>> {
  const found = new Map<string, Placed>();
  const mapped = await trx
    .selectFrom('import_sources as s')
    .innerJoin('comments as c', 'c.id', 's.comment_id')
    .select(['s.source_key', 'c.id', 'c.root_id', 'c.thread_id'])
    .where('s.site_id', '=', siteId)
    .where('s.source_key', 'in', padded(rows.map((row) => `${format}:${row.source_id}`)))
    .execute();
  for (const row of mapped) found.set(row.source_key.slice(format.length + 1), { id: row.id, root_id: row.root_id, thread_id: row.thread_id });
  const ownIds = rows.flatMap((row) => (row.parley_id ? [row.parley_id] : []));
  if (ownIds.length > 0) {
    const own = await trx.selectFrom('comments').select(['id', 'root_id', 'thread_id']).where('site_id', '=', siteId).where('id', 'in', padded(ownIds)).execute();
    for (const row of own) found.set(row.id, row);
  }
  return found;
}

/** Source ids (Parley's format) that no comment anywhere holds yet, so they can be kept. */
async function freeCommentIds(trx: Kysely<Database>, rows: StagedRow[]): Promise<Set<string>> {
  const wanted = rows.flatMap((row) => (row.parley_id?.startsWith('cmt_') ? [row.parley_id] : []));
  if (wanted.length === 0) return new Set();
  const taken = new Set((await trx.selectFrom('comments').select('id').where('id', 'in', padded(wanted)).execute()).map((row) => row.id));
  return new Set(wanted.filter((id) => !taken.has(id)));
}

/**
 * The site's threads of these pages that it had before the import, counted as existing; one without
 * a title takes the file's (a title the site has is kept, and so is whether the thread is closed).
 */
async function existingThreads(trx: Kysely<Database>, staging: Staging, siteId: string, urlKeys: string[], dryRun: boolean, report: ImportReport): Promise<{ id: string; url_key: string }[]> {
  const existing = await trx.selectFrom('threads').select(['id', 'url_key', 'title']).where('site_id', '=', siteId).where('url_key', 'in', padded(urlKeys)).execute();
  for (const thread of existing) {
    report.threads.existing++;
    const title = thread.title ? null : staging.pageTitle(thread.url_key);
    if (title && !dryRun) await trx.updateTable('threads').set({ title }).where('id', '=', thread.id).where((eb) => eb.or([eb('title', 'is', null), eb('title', '=', '')])).execute();
  }
  return existing;
}

/**
 * The pages whose comments were all there already, so that no batch looked their thread up: counted
 * as existing (a rerun of the same file finds every page there).
 */
async function countPagesAlreadyThere(db: Kysely<Database>, staging: Staging, options: PublishOptions, report: ImportReport): Promise<void> {
  let page: string[] = [];
  const take = async () => {
    if (page.length === 0) return;
    const urlKeys = page;
    page = [];
    await db.transaction().execute((trx) => existingThreads(trx, staging, options.siteId, urlKeys, options.dryRun, report));
  };
  for (const urlKey of staging.pagesNotVisited()) {
    page.push(urlKey);
    if (page.length === INSERT_ROWS * 4) await take();
  }
  await take();
}

/** The thread of each page of these top-level comments, created when the site has none yet. */
async function threadsOf(trx: Kysely<Database>, staging: Staging, siteId: string, rows: StagedRow[], dryRun: boolean, report: ImportReport): Promise<Map<string, string>> {
  const threads = new Map<string, string>();
  const missing = new Set<string>();
  for (const row of rows) {
    const known = staging.threadOfPage(row.url_key);
    if (known) threads.set(row.url_key, known);
    else missing.add(row.url_key);
  }
  if (missing.size === 0) return threads;
  for (const thread of await existingThreads(trx, staging, siteId, [...missing], dryRun, report)) {
    threads.set(thread.url_key, thread.id);
    missing.delete(thread.url_key);
  }
  const created: Insertable<ThreadTable>[] = [];
  const now = nowIso();
  for (const urlKey of missing) {
    const { parleyId, createdAt, closed } = staging.pageOrigin(urlKey);
    const taken = parleyId && (await trx.selectFrom('threads').select('id').where('id', '=', parleyId).executeTakeFirst());
    const id = parleyId && !taken ? parleyId : newId('thr');
    // The source keeps no time of closing: closed as of the import.
    created.push({ id, site_id: siteId, url_key: urlKey, created_at: createdAt, public_total: 0, all_total: 0, title: staging.pageTitle(urlKey), closed_at: closed ? now : null });
    threads.set(urlKey, id);
    report.threads.created++;
  }
  if (!dryRun && created.length > 0) await trx.insertInto('threads').values(created).execute();
  for (const [urlKey, id] of threads) staging.rememberThreadOfPage(urlKey, id);
  return threads;
}

/** How a source person is known among the site's users: by the site's own id of them (Parley's format) or the source's. */
function externalIdOf(row: StagedRow, format: Format): string | null {
  if (row.author_source === null) return null;
  if (format === 'parley') return row.author_parley_id?.startsWith('usr_') ? (row.author_external_id ?? `import:parley:${row.author_parley_id}`) : null;
  return `import:${format}:${row.author_source}`;
}

function authorRefOf(row: StagedRow, format: Format, authors: Map<string, string>): string | null {
  const external = externalIdOf(row, format);
  if (external !== null) return authors.get(external)!;
  // Parley's format: an API key (or a guest, null) stays the author it was.
  return format === 'parley' ? row.author_parley_id : null;
}

/**
 * The site user of each source person in the batch, created on their first comment here: one
 * person's comments keep one author, across batches and reruns.
 */
async function authorsOf(trx: Kysely<Database>, siteId: string, format: Format, rows: StagedRow[], dryRun: boolean): Promise<Map<string, string>> {
  const wanted = new Map<string, StagedRow>();
  for (const row of rows) {
    const external = externalIdOf(row, format);
    if (external !== null && !wanted.has(external)) wanted.set(external, row);
  }
  const authors = new Map<string, string>();
  if (wanted.size === 0) return authors;
  const existing = await trx.selectFrom('site_users').select(['id', 'external_id']).where('site_id', '=', siteId).where('external_id', 'in', padded([...wanted.keys()])).execute();
  for (const user of existing) authors.set(user.external_id, user.id);
  const missing = [...wanted].filter(([external]) => !authors.has(external));
  if (missing.length === 0) return authors;
  const keep = missing.flatMap(([, row]) => (row.author_parley_id?.startsWith('usr_') ? [row.author_parley_id] : []));
  const taken = new Set(keep.length ? (await trx.selectFrom('site_users').select('id').where('id', 'in', padded(keep)).execute()).map((user) => user.id) : []);
  const now = nowIso();
  const users = missing.map(([external, row]) => {
    const id = row.author_parley_id?.startsWith('usr_') && !taken.has(row.author_parley_id) ? row.author_parley_id : newId('usr');
    authors.set(external, id);
    return { id, site_id: siteId, external_id: external, name: row.author_name, avatar_url: null, first_comment_at: row.created_at, created_at: now };
  });
  if (!dryRun) await trx.insertInto('site_users').values(users).execute();
  return authors;
}
