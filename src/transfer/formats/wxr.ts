import { decodeHTML } from 'entities/decode';
import type { Formatting } from '../../formatting/html.ts';
import { htmlToSource } from '../html-markdown.ts';
import type { SourceRecord, SourceStatus } from '../source.ts';
import { toUtc } from '../times.ts';
import { xmlRecords } from './xml-records.ts';

const STATUS: Record<string, SourceStatus> = { '1': 'published', approve: 'published', '0': 'pending', hold: 'pending', spam: 'spam', trash: 'removed', 'post-trashed': 'removed' };

/**
 * WordPress eXtended RSS 1.0-1.2: `<rss><channel><item>` per post (title, link, wp:post_id) holding
 * `<wp:comment>` elements. comment_date_gmt is UTC; comment_date is the blog's local time with no
 * zone, read only when the GMT one is missing (0000-00-00 00:00:00).
 */
export async function* readWxr(path: string, formatting: Formatting): AsyncGenerator<SourceRecord> {
  const isRecord = (stack: string[]) => (stack.length === 3 && stack[2] === 'item') || (stack.length === 4 && stack[2] === 'item' && stack[3] === 'comment');
  for await (const record of xmlRecords(path, isRecord)) {
    const f = record.fields;
    if (record.name === 'item') {
      const id = f.get('post_id')?.trim() || f.get('link')?.trim() || '';
      const gmt = f.get('post_date_gmt');
      // WordPress keeps titles and commenters' names HTML-escaped ("Ben &amp; Holly"): decoded once, as texts are.
      yield { kind: 'thread', sourceId: id, url: (f.get('link') ?? '').trim(), createdAt: gmt && !gmt.startsWith('0000') ? toUtc(gmt, `line ${record.line}`).iso : undefined, title: decodeHTML(f.get('title') ?? '') };
      continue;
    }
    const outer = record.outer ?? new Map<string, string>();
    const id = f.get('comment_id')?.trim() ?? '';
    const where = `line ${record.line} (comment ${id})`;
    const gmt = f.get('comment_date_gmt')?.trim();
    const time = gmt && !gmt.startsWith('0000') ? { ...toUtc(gmt, where), zoneless: false } : toUtc(f.get('comment_date') ?? '', where);
    const approved = (f.get('comment_approved') ?? '1').trim();
    const type = (f.get('comment_type') ?? '').trim();
    const parent = f.get('comment_parent')?.trim();
    const userId = f.get('comment_user_id')?.trim();
    yield {
      kind: 'comment',
      sourceId: id,
      threadSourceId: outer.get('post_id')?.trim() || outer.get('link')?.trim() || '',
      parentSourceId: parent && parent !== '0' ? parent : null,
      author: {
        sourceId: userId && userId !== '0' ? `user:${userId}` : null,
        name: decodeHTML(f.get('comment_author') ?? ''),
        hasEmail: Boolean(f.get('comment_author_email')?.trim()),
        hasIp: Boolean(f.get('comment_author_IP')?.trim()),
      },
      text: htmlToSource(f.get('comment_content') ?? '', 'kept', formatting),
      status: STATUS[approved] ?? 'pending',
      deleted: false,
      edited: false,
      createdAt: time.iso,
      zoneless: time.zoneless,
      upvotes: 0,
      downvotes: 0,
      reactions: {},
      pingback: type === 'pingback' || type === 'trackback',
      where,
    };
  }
}
