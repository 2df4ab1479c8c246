import { textOf } from '../input.ts';
import { ImportFileError, type SourceRecord, type SourceStatus } from '../source.ts';
import { toUtc } from '../times.ts';
import { count, text } from './json-lines.ts';

/** Commento's export is one JSON document: it is read whole, so it may be at most this large unpacked. */
export const MAX_COMMENTO_BYTES = 256 << 20;

const STATUS: Record<string, SourceStatus> = { approved: 'published', unapproved: 'pending', flagged: 'spam' };

/**
 * Commento and Commento++'s export: gzipped JSON `{version, comments: [{commentHex, domain, path,
 * commenterHex, markdown, html, parentHex ("root" for none), score, state, creationDate, deleted}],
 * commenters: [{commenterHex, name, email, ...}]}`. The author's markdown is their text.
 */
export async function* readCommento(path: string): AsyncGenerator<SourceRecord> {
  let json = '';
  for await (const chunk of textOf(path)) {
    json += chunk;
    if (json.length > MAX_COMMENTO_BYTES) throw new ImportFileError(`a Commento export may hold at most ${MAX_COMMENTO_BYTES >> 20} MiB of JSON`);
  }
  let document: { comments?: unknown; commenters?: unknown };
  try {
    document = JSON.parse(json);
  } catch (error) {
    throw new ImportFileError(`not JSON: ${(error as Error).message}`);
  }
  json = '';
  if (!Array.isArray(document.comments)) throw new ImportFileError('no "comments" list: not a Commento export');
  const commenters = new Map<string, Record<string, unknown>>();
  for (const commenter of Array.isArray(document.commenters) ? document.commenters : []) commenters.set(text(commenter?.commenterHex), commenter);
  const seenThreads = new Set<string>();
  for (const [index, raw] of document.comments.entries()) {
    if (typeof raw !== 'object' || raw === null) throw new ImportFileError(`comments[${index}]: not an object`);
    const comment = raw as Record<string, unknown>;
    const where = `comments[${index}] (${text(comment.commentHex)})`;
    const domain = text(comment.domain).trim();
    const page = text(comment.path).trim();
    const url = /^https?:\/\//i.test(domain) ? `${domain}${page}` : `https://${domain}${page.startsWith('/') ? '' : '/'}${page}`;
    if (!seenThreads.has(url)) {
      seenThreads.add(url);
      yield { kind: 'thread', sourceId: url, url };
    }
    const commenterHex = text(comment.commenterHex);
    const commenter = commenters.get(commenterHex);
    const time = toUtc(text(comment.creationDate), where);
    const score = Number(comment.score) || 0;
    const parent = text(comment.parentHex);
    yield {
      kind: 'comment',
      sourceId: text(comment.commentHex),
      threadSourceId: url,
      parentSourceId: parent && parent !== 'root' ? parent : null,
      author: {
        sourceId: commenterHex && commenterHex !== 'anonymous' ? commenterHex : null,
        name: text(commenter?.name),
        hasEmail: Boolean(text(commenter?.email)),
      },
      text: text(comment.markdown),
      status: STATUS[text(comment.state)] ?? 'pending',
      deleted: comment.deleted === true,
      edited: false,
      createdAt: time.iso,
      zoneless: time.zoneless,
      upvotes: count(score),
      downvotes: count(-score),
      reactions: {},
      where,
    };
  }
}
