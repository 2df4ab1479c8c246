import { ImportFileError, type SourceRecord, type SourceStatus } from '../source.ts';
import { toUtc } from '../times.ts';
import { count, jsonLines, text } from './json-lines.ts';

export const PARLEY_FORMAT_VERSION = 1;
const STATUSES = new Set(['published', 'pending', 'spam', 'removed']);
/** parley-export.schema.json's: what moderation put on a comment (null: nothing). */
const MODERATION_STATUSES = new Set(['pending', 'removed', 'spam', 'shadow_banned']);

function statusOf(value: Record<string, unknown>, where: string): SourceStatus {
  const status = text(value.status);
  if (!STATUSES.has(status)) throw new ImportFileError(`${where}: unknown status "${status}"`);
  return status as SourceStatus;
}

/** A value Parley's pages do not know would make every list that shows the comment fail: refused here. */
function moderationStatusOf(value: Record<string, unknown>, where: string): string | null {
  const status = value.moderation_status ?? null;
  if (status !== null && !MODERATION_STATUSES.has(status as string)) {
    throw new ImportFileError(`${where}: unknown moderation_status ${JSON.stringify(status)} (it is null, pending, removed, spam or shadow_banned)`);
  }
  return status as string | null;
}

/** Parley's own export (see parley-export.schema.json): a header, threads, comments, a footer with counts. */
export async function* readParley(path: string): AsyncGenerator<SourceRecord> {
  let header = false;
  let footer: Record<string, unknown> | null = null;
  let threads = 0;
  let comments = 0;
  for await (const { value, number } of jsonLines(path)) {
    const where = `line ${number}`;
    if (footer) throw new ImportFileError(`${where}: a line after the footer`);
    if (!header) {
      if (value.type !== 'header' || value.format !== 'parley') throw new ImportFileError(`${where}: the first line must be the header`);
      if (value.version !== PARLEY_FORMAT_VERSION) throw new ImportFileError(`${where}: format version ${text(value.version)} is not ${PARLEY_FORMAT_VERSION}`);
      header = true;
      continue;
    }
    if (value.type === 'footer') {
      footer = value;
    } else if (value.type === 'thread') {
      threads++;
      yield { kind: 'thread', sourceId: text(value.id), parleyId: text(value.id), url: text(value.url), createdAt: toUtc(text(value.created_at), where).iso };
    } else if (value.type === 'comment') {
      comments++;
      const authorId = text(value.author_id) || null;
      yield {
        kind: 'comment',
        sourceId: text(value.id),
        parleyId: text(value.id),
        threadSourceId: text(value.thread_id),
        parentSourceId: text(value.parent_id) || null,
        author: { sourceId: authorId, parleyId: authorId ?? undefined, name: text(value.author_name), externalId: text(value.author_external_id) || undefined },
        text: text(value.content),
        status: statusOf(value, where),
        moderationStatus: moderationStatusOf(value, where),
        deleted: value.is_deleted === true,
        edited: value.is_edited === true,
        createdAt: toUtc(text(value.created_at), where).iso,
        updatedAt: toUtc(text(value.updated_at), where).iso,
        zoneless: false,
        upvotes: count(value.upvotes),
        downvotes: count(value.downvotes),
        reactions: Object.fromEntries(Object.entries((value.reaction_counts ?? {}) as Record<string, unknown>).map(([type, n]) => [type, count(n)])),
        where,
      };
    } else throw new ImportFileError(`${where}: unknown line type "${text(value.type)}"`);
  }
  if (!header) throw new ImportFileError('the file is empty');
  if (!footer) throw new ImportFileError('the file ends without its footer (cut short?)');
  if (footer.threads !== threads || footer.comments !== comments) {
    throw new ImportFileError(`the footer counts ${text(footer.threads)} threads and ${text(footer.comments)} comments, the file holds ${threads} and ${comments}`);
  }
}
