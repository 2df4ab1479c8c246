import type { Site } from '../sites/repository.ts';
import type { ExportedComment, ExportedThread } from './exported.ts';

/**
 * Disqus's export structure (what Disqus sends and every peer's importer reads): a `<disqus>` root,
 * one `<category>`, the `<thread>`s, then the `<post>`s, parents before replies.
 */

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** Disqus writes seconds, no milliseconds. */
const disqusTime = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');

/** Plain text as Disqus's message HTML: paragraphs at blank lines, <br> at single line breaks. */
function messageHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escape(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('');
}

export function disqusHeader(site: Site): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    '<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"' +
    ' xsi:schemaLocation="http://disqus.com/api/schemas/1.0/disqus.xsd http://disqus.com/api/schemas/1.0/disqus-internals.xsd">\n' +
    `  <category dsq:id="1"><forum>${escape(site.id)}</forum><title>General</title><isDefault>true</isDefault></category>\n`
  );
}

export function disqusThread(site: Site, thread: ExportedThread): string {
  const url = escape(thread.url_key);
  return (
    `  <thread dsq:id="${thread.id}"><id>${url}</id><forum>${escape(site.id)}</forum><category dsq:id="1"/><link>${url}</link>` +
    `<title>${thread.title === null ? url : escape(thread.title)}</title><message/><createdAt>${disqusTime(thread.created_at)}</createdAt>` +
    `<author><email/><name>${escape(site.name)}</name><isAnonymous>true</isAnonymous></author><isClosed>${thread.closed_at !== null}</isClosed><isDeleted>false</isDeleted></thread>\n`
  );
}

/**
 * A comment as a Disqus post. Disqus's format has no pending, removed or shadow-banned state: such
 * a comment is written as deleted (isDeleted, isApproved false), so no importer shows what Parley hid.
 */
export function disqusPost(comment: ExportedComment, personal: boolean): string {
  const hidden = comment.status === 'pending' || comment.status === 'removed' || comment.moderation_status === 'shadow_banned';
  const username = comment.author_ref === null ? '' : `<username>${escape(personal && comment.author_external_id ? comment.author_external_id : comment.author_ref)}</username>`;
  return (
    `  <post dsq:id="${comment.id}"><id/><message>${escape(messageHtml(comment.content ?? ''))}</message>` +
    `<createdAt>${disqusTime(comment.created_at)}</createdAt><isDeleted>${Boolean(comment.is_deleted) || hidden}</isDeleted>` +
    `<isSpam>${comment.status === 'spam'}</isSpam>${hidden ? '<isApproved>false</isApproved>' : ''}` +
    `<author>${personal && comment.author_email ? `<email>${escape(comment.author_email)}</email>` : '<email/>'}<name>${escape(comment.author_name)}</name><isAnonymous>${comment.author_ref === null}</isAnonymous>${username}</author>` +
    `<thread dsq:id="${comment.thread_id}"/>${comment.parent_id ? `<parent dsq:id="${comment.parent_id}"/>` : ''}</post>\n`
  );
}

export function disqusFooter(): string {
  return '</disqus>\n';
}
