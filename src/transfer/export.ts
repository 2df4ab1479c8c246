import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import { findSite, type Site } from '../sites/repository.ts';
import { PARLEY_FORMAT_VERSION } from './formats/parley.ts';
import { ImportFileError } from './source.ts';
import { disqusFooter, disqusHeader, disqusPost, disqusThread } from './disqus-xml.ts';
import type { ExportedComment, ExportedThread } from './exported.ts';

export const EXPORT_FORMATS = ['parley', 'disqus'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportOptions {
  siteId: string;
  format: ExportFormat;
  /** Adds the site's own ids of its users (`author_external_id`) and authors' addresses (`author_email`). */
  includePersonalData: boolean;
}

/** Top-level comments read per page; each page's reply trees come with it. */
const ROOTS_PER_PAGE = 200;

/** Resolves when `out` takes more, or has closed (then it never drains). */
async function drainedOrClosed(out: Writable): Promise<void> {
  const settled = new AbortController();
  try {
    await Promise.race([once(out, 'drain', { signal: settled.signal }), once(out, 'close', { signal: settled.signal })]);
  } finally {
    settled.abort();
  }
}

/** Writes with back-pressure, in chunks of about 64 KiB. */
class Output {
  #parts: string[] = [];
  #size = 0;
  constructor(readonly out: Writable) {}
  async write(text: string): Promise<void> {
    this.#parts.push(text);
    this.#size += text.length;
    if (this.#size >= 65_536) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.#parts.length === 0) return;
    const chunk = this.#parts.join('');
    this.#parts = [];
    this.#size = 0;
    if (!this.out.write(chunk)) await drainedOrClosed(this.out);
    // A reader that went away (an HTTP download cut off) ends the export.
    if (this.out.destroyed) throw new Error('the export was cut off: its destination closed');
  }
}

async function* threadsOf(db: Kysely<Database>, siteId: string): AsyncGenerator<ExportedThread> {
  let after = '';
  for (;;) {
    const page = await db.selectFrom('threads').select(['id', 'url_key', 'created_at', 'title', 'closed_at']).where('site_id', '=', siteId).where('id', '>', after).orderBy('id').limit(1000).execute();
    if (page.length === 0) return;
    yield* page;
    after = page.at(-1)!.id;
  }
}

/** A page of reply trees, each root followed by its replies depth first, siblings oldest first: parents always before their replies. */
function inTreeOrder(roots: string[], rows: ExportedComment[]): ExportedComment[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const children = new Map<string, ExportedComment[]>();
  for (const row of rows) {
    if (row.parent_id === null) continue;
    const siblings = children.get(row.parent_id) ?? [];
    siblings.push(row);
    children.set(row.parent_id, siblings);
  }
  const ordered: ExportedComment[] = [];
  const visit = (row: ExportedComment) => {
    const stack = [row];
    while (stack.length > 0) {
      const next = stack.pop()!;
      ordered.push(next);
      const below = (children.get(next.id) ?? []).sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1));
      for (let i = below.length - 1; i >= 0; i--) stack.push(below[i]);
    }
  };
  for (const id of roots) visit(byId.get(id)!);
  return ordered;
}

async function* commentsOf(db: Kysely<Database>, siteId: string): AsyncGenerator<ExportedComment> {
  let after = '';
  for (;;) {
    const roots = (
      await db.selectFrom('comments').select('id').where('site_id', '=', siteId).where('parent_id', 'is', null).where('id', '>', after).orderBy('id').limit(ROOTS_PER_PAGE).execute()
    ).map((row) => row.id);
    if (roots.length === 0) return;
    const rows = await db
      .selectFrom('comments as c')
      .innerJoin('comment_counts as n', 'n.comment_id', 'c.id')
      .leftJoin('site_users as u', (join) => join.onRef('u.id', '=', 'c.author_ref').on('u.site_id', '=', siteId))
      .leftJoin('mail_subscriptions as s', 's.comment_id', 'c.id')
      .leftJoin('mail_addresses as a', 'a.id', 's.address_id')
      .select((eb) => [
        'c.id', 'c.thread_id', 'c.parent_id', 'c.author_ref', 'c.author_name', 'u.external_id as author_external_id',
        eb.fn.coalesce('a.email', 'u.email').as('author_email'), 'c.content', 'c.status',
        'c.moderation_status', 'c.is_deleted', 'c.is_edited', 'n.upvotes', 'n.downvotes', 'n.reaction_counts', 'c.created_at', 'c.updated_at',
      ])
      .where('c.root_id', 'in', roots)
      .execute();
    yield* inTreeOrder(roots, rows);
    after = roots.at(-1)!;
  }
}

function parleyComment(row: ExportedComment, personal: boolean): string {
  return JSON.stringify({
    type: 'comment',
    id: row.id,
    thread_id: row.thread_id,
    parent_id: row.parent_id,
    author_id: row.author_ref,
    author_name: row.author_name,
    ...(personal && { author_external_id: row.author_external_id, author_email: row.author_email }),
    content: row.content,
    status: row.status,
    moderation_status: row.moderation_status,
    is_deleted: Boolean(row.is_deleted),
    is_edited: Boolean(row.is_edited),
    upvotes: Number(row.upvotes),
    downvotes: Number(row.downvotes),
    reaction_counts: JSON.parse(row.reaction_counts),
    created_at: row.created_at,
    updated_at: row.updated_at,
  });
}

/**
 * Streams a site's threads and comments: Parley's JSON Lines (parley-export.schema.json) or Disqus's
 * export XML. Reads a page of top-level comments and their reply trees at a time.
 */
export async function exportSite(db: Kysely<Database>, options: ExportOptions, out: Writable): Promise<{ threads: number; comments: number }> {
  const site = await findSite(db, options.siteId);
  if (!site) throw new ImportFileError(`no site ${options.siteId}`);
  const output = new Output(out);
  const counts = { threads: 0, comments: 0, by_status: {} as Record<string, number> };
  const parley = options.format === 'parley';
  await output.write(parley ? `${JSON.stringify(parleyHeader(site, options.includePersonalData))}\n` : disqusHeader(site));
  for await (const thread of threadsOf(db, site.id)) {
    counts.threads++;
    await output.write(parley ? `${JSON.stringify({ type: 'thread', id: thread.id, url: thread.url_key, created_at: thread.created_at })}\n` : disqusThread(site, thread));
  }
  for await (const comment of commentsOf(db, site.id)) {
    counts.comments++;
    const counted = comment.is_deleted ? 'deleted' : comment.status;
    counts.by_status[counted] = (counts.by_status[counted] ?? 0) + 1;
    await output.write(parley ? `${parleyComment(comment, options.includePersonalData)}\n` : disqusPost(comment, options.includePersonalData));
  }
  await output.write(parley ? `${JSON.stringify({ type: 'footer', ...counts })}\n` : disqusFooter());
  await output.flush();
  return counts;
}

function parleyHeader(site: Site, personal: boolean) {
  return { type: 'header', format: 'parley', version: PARLEY_FORMAT_VERSION, site: { id: site.id, name: site.name }, personal_data: personal };
}
