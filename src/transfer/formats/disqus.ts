import type { Formatting } from '../../formatting/html.ts';
import { htmlToSource } from '../html-markdown.ts';
import type { SourceRecord, SourceStatus } from '../source.ts';
import { toUtc } from '../times.ts';
import { isTrue, xmlRecords } from './xml-records.ts';

/**
 * Disqus's export: `<disqus>` holding `<category>`, `<thread dsq:id>` (link, title, createdAt, isClosed, isDeleted) and
 * `<post dsq:id>` (message HTML, createdAt, isDeleted, isSpam, isApproved when present, author,
 * `<thread dsq:id>`, `<parent dsq:id>` for a reply).
 */
export async function* readDisqus(path: string, formatting: Formatting): AsyncGenerator<SourceRecord> {
  for await (const record of xmlRecords(path, (stack) => stack.length === 2 && (stack[1] === 'thread' || stack[1] === 'post'))) {
    const f = record.fields;
    const id = f.get('@dsq:id') ?? f.get('@id') ?? '';
    const where = `line ${record.line} (${record.name} ${id})`;
    if (record.name === 'thread') {
      const created = f.get('createdAt');
      yield {
        kind: 'thread',
        sourceId: id,
        url: (f.get('link') ?? '').trim(),
        createdAt: created ? toUtc(created, where).iso : undefined,
        title: f.get('title'),
        closed: isTrue(f.get('isClosed')),
        deleted: isTrue(f.get('isDeleted')),
      };
      continue;
    }
    const time = toUtc(f.get('createdAt') ?? '', where);
    const status: SourceStatus = isTrue(f.get('isSpam')) ? 'spam' : f.has('isApproved') && !isTrue(f.get('isApproved')) ? 'pending' : 'published';
    const username = f.get('author/username')?.trim();
    const anonymous = isTrue(f.get('author/isAnonymous'));
    yield {
      kind: 'comment',
      sourceId: id,
      threadSourceId: f.get('thread@dsq:id') ?? f.get('thread@id') ?? '',
      parentSourceId: f.get('parent@dsq:id') ?? f.get('parent@id') ?? null,
      author: {
        sourceId: !anonymous && username ? username : null,
        name: f.get('author/name') ?? '',
        hasEmail: Boolean(f.get('author/email')?.trim()),
        hasIp: Boolean(f.get('ipAddress')?.trim()),
      },
      text: htmlToSource(f.get('message') ?? '', 'collapsed', formatting),
      status,
      deleted: isTrue(f.get('isDeleted')),
      edited: false,
      createdAt: time.iso,
      zoneless: time.zoneless,
      upvotes: Number(f.get('likes') ?? 0) || 0,
      downvotes: Number(f.get('dislikes') ?? 0) || 0,
      reactions: {},
      where,
    };
  }
}
