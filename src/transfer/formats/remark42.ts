import { decodeHTML } from 'entities/decode';
import type { Formatting } from '../../formatting/html.ts';
import { htmlToSource } from '../html-markdown.ts';
import { ImportFileError, type SourceRecord } from '../source.ts';
import { toUtc } from '../times.ts';
import { jsonLines, text } from './json-lines.ts';

/**
 * Remark42's backup: gzipped JSON Lines, a first line of site metadata (`version`, `users`, `posts`)
 * and then one comment per line: id, pid (parent), text (HTML), user {id, name, ip}, locator {url}, title (the page's),
 * votes {user: up?}, time (RFC 3339), edit, delete.
 */
export async function* readRemark42(path: string, formatting: Formatting): AsyncGenerator<SourceRecord> {
  for await (const { value, number } of jsonLines(path)) {
    if (!('locator' in value)) {
      if ('users' in value || 'posts' in value || 'version' in value) continue;
      throw new ImportFileError(`line ${number}: neither a comment nor the backup's metadata`);
    }
    const where = `line ${number} (comment ${text(value.id)})`;
    const locator = (value.locator ?? {}) as Record<string, unknown>;
    const user = (value.user ?? {}) as Record<string, unknown>;
    const votes = Object.values((value.votes ?? {}) as Record<string, unknown>);
    const url = text(locator.url).trim();
    const time = toUtc(text(value.time), where);
    yield { kind: 'thread', sourceId: url, url, title: text(value.title) };
    yield {
      kind: 'comment',
      sourceId: text(value.id),
      threadSourceId: url,
      parentSourceId: text(value.pid) || null,
      // Remark42 stores names HTML-escaped: decoded once.
      author: { sourceId: text(user.id) || null, name: decodeHTML(text(user.name)), hasIp: Boolean(text(user.ip)) },
      text: htmlToSource(text(value.text), 'collapsed', formatting),
      status: 'published',
      deleted: value.delete === true,
      edited: typeof value.edit === 'object' && value.edit !== null,
      createdAt: time.iso,
      zoneless: time.zoneless,
      upvotes: votes.filter((v) => v === true).length,
      downvotes: votes.filter((v) => v === false).length,
      reactions: {},
      where,
    };
  }
}
