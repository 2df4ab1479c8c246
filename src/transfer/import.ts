import type { Db } from '../db/connect.ts';
import type { Formatting } from '../formatting/html.ts';
import { findSite } from '../sites/repository.ts';
import { readCommento } from './formats/commento.ts';
import { readDisqus } from './formats/disqus.ts';
import { readIsso } from './formats/isso.ts';
import { readParley } from './formats/parley.ts';
import { readRemark42 } from './formats/remark42.ts';
import { readWxr } from './formats/wxr.ts';
import { detectFormat } from './input.ts';
import { publish } from './publish.ts';
import { emptyReport, skip, warn, type ImportReport } from './report.ts';
import { ImportFileError, type Format, type SourceRecord } from './source.ts';
import { authorNameOf, contentOf, Staging } from './staging.ts';

export interface ImportOptions {
  siteId: string;
  path: string;
  format?: Format;
  dryRun?: boolean;
  /** Isso keeps page paths: the site's address they hang from. */
  baseUrl?: string;
  batchSize?: number;
  onProgress?: (stage: 'read' | 'written', count: number) => void;
}

/** HTML sources' comments are converted to the site's formatting (see html-markdown.ts); the others keep their text. */
function readerFor(format: Format, path: string, baseUrl: string | undefined, formatting: Formatting): AsyncIterable<SourceRecord> {
  switch (format) {
    case 'disqus':
      return readDisqus(path, formatting);
    case 'wxr':
      return readWxr(path, formatting);
    case 'remark42':
      return readRemark42(path, formatting);
    case 'commento':
      return readCommento(path);
    case 'isso':
      return readIsso(path, baseUrl);
    case 'parley':
      return readParley(path);
  }
}

/** Staged records per staging transaction. */
const STAGE_BATCH = 10_000;

/** The first pass: the whole file read, checked and staged; a malformed file stops here, before any write. */
async function stage(staging: Staging, records: AsyncIterable<SourceRecord>, report: ImportReport, onProgress: ImportOptions['onProgress']): Promise<void> {
  let count = 0;
  staging.begin();
  for await (const record of records) {
    if (++count % STAGE_BATCH === 0) {
      staging.commit();
      onProgress?.('read', count);
      staging.begin();
    }
    if (record.kind === 'thread') {
      staging.addThread(record);
      continue;
    }
    if (record.sourceId === '') throw new ImportFileError(`${record.where}: a comment without an id`);
    if (record.pingback) {
      skip(report, 'pingback_or_trackback', record.sourceId, 'a pingback or trackback, not a comment');
      continue;
    }
    const { content, cut } = contentOf(record.text);
    if (content === '' && !record.deleted) {
      skip(report, 'empty_text', record.sourceId, 'the comment has no text');
      continue;
    }
    if (!staging.addComment(record, record.deleted ? null : content, authorNameOf(record.author.name), record.author.sourceId)) {
      skip(report, 'duplicate_source_id', record.sourceId, `${record.where}: a second comment with this id`);
      continue;
    }
    if (cut) {
      report.truncated++;
      warn(report, record.sourceId, 'text cut to 10,000 characters');
    }
    if (record.zoneless) report.times_without_zone++;
    if (record.author.hasEmail) report.personal_data_not_kept.emails++;
    if (record.author.hasIp) report.personal_data_not_kept.ip_addresses++;
  }
  staging.commit();
  onProgress?.('read', count);
}

/**
 * Imports a file into a site: read and checked whole first (into a private staging file), then
 * written parent before child in batches, each batch one transaction. Never deletes; a comment
 * already imported (same source id) is not written again; nothing is announced (no webhooks).
 */
export async function importFile(db: Db, options: ImportOptions): Promise<ImportReport> {
  const site = await findSite(db.kysely, options.siteId);
  if (!site) throw new ImportFileError(`no site ${options.siteId}`);
  const format = options.format ?? (await detectFormat(options.path));
  const report = emptyReport(format, options.dryRun ?? false);
  const staging = new Staging();
  try {
    await stage(staging, readerFor(format, options.path, options.baseUrl ?? (site.domains[0] ? `https://${site.domains[0]}/` : undefined), site.formatting), report, options.onProgress);
    const allowed = (host: string) => site.domains.length === 0 || site.domains.includes(host);
    staging.resolve(allowed);
    for (const comment of staging.unusable()) {
      skip(report, 'no_usable_page_address', comment.source, `${comment.place}: the page address "${comment.url.slice(0, 200)}" is not an http(s) URL of the site's domains`);
    }
    for (const thread of staging.deletedThreads()) {
      warn(report, thread.source, `the thread was deleted in the source: its comments (${thread.comments}) are imported removed, hidden from the public`);
    }
    const reparented = staging.db.prepare('select source_id, parent_source from comments where reparented = 1').iterate() as Iterable<{ source_id: string; parent_source: string }>;
    for (const row of reparented) {
      report.reparented++;
      warn(report, row.source_id, `parent ${row.parent_source} is missing or was skipped: imported as a top-level comment`);
    }
    await publish(db, staging, { siteId: site.id, formatting: site.formatting, format, dryRun: report.dry_run, batchSize: options.batchSize ?? 2000, onBatch: (n) => options.onProgress?.('written', n) }, report);
    // Cached lists of the site's pages are stale now (in this process, and with Redis in every instance).
    if (report.comments.imported > 0 && !report.dry_run) db.changes.siteChanged(site.id);
    return report;
  } finally {
    staging.close();
  }
}
