import { escapeHtml as esc } from '../formatting/escape.ts';
import { direction, type Locale } from '../i18n/locales.ts';
import type { Comment, CommentPage } from '../widget/client/api.ts';
import { fullDate, numberText } from '../widget/client/dom.ts';
import { problemMessage, type ProblemLike, type Translate } from '../widget/client/strings.ts';
import { STYLES } from '../widget/client/styles.ts';

export const SORTS = ['newest', 'oldest', 'top', 'best'] as const;
export type Sort = (typeof SORTS)[number];
/** The widget's page size (element.ts): the thread's HTML shows the page the widget would. */
export const PAGE_SIZE = 20;

/** Where the answer puts what changes with each response (a cached fragment is shared). */
export const SLOT = { token: '\u0000token\u0000', servedAt: '\u0000served\u0000' } as const;

/** What a reader came back with from the comment form (POST /v1/comments/form), as the page's `parley_notice`. */
export interface Notice {
  /** `held`, or the code of the problem that refused the comment. */
  code: string;
  retry: number | null;
  detail: string | null;
}

export interface ThreadView {
  siteId: string;
  threadUrl: string;
  /** Parley's public origin: where the form posts. */
  base: string;
  locale: Locale;
  t: Translate;
  sort: Sort;
  page: CommentPage;
  /** The list's response as sent to the widget: it takes the thread over from it. */
  listJson: string;
  allowGuests: boolean;
  /** The site's comments are Markdown: the widget's editor has its tabs and toolbar. */
  markdown: boolean;
  /** The site asks every guest for a proof of work, which needs a script. */
  proofAlways: boolean;
  /** The comment answered, when the reader followed a Reply link. */
  replyTo: Comment | null;
  notice: Notice | null;
}

/**
 * Rules only the server-rendered thread needs: links standing where the widget has buttons look
 * like them, so nothing moves when the widget takes over; the sort form sits where the widget's
 * sort control does.
 */
const FRAGMENT_STYLES =
  'a.act{display:inline-flex;align-items:center;font-size:.88em;color:var(--parley-muted);border:1px solid transparent;border-radius:var(--parley-radius);padding:2px 6px;min-height:28px;text-decoration:none}' +
  'a.act:hover{color:var(--parley-fg);background:var(--parley-surface)}.top form{margin:0}.top noscript button{margin-inline-start:6px}.ghost{visibility:hidden}';

/**
 * The thread as HTML: a `<parley-comments>` element whose declarative shadow root holds what the
 * widget draws for a guest, marked up with schema.org microdata, with forms and links that work
 * without a script; the list's JSON rides along for the widget. Each comment's anchor
 * (`#parley-<id>`) and the form's (`#parley-form`) are light-DOM elements slotted into place, as a
 * page's fragment finds no id inside a shadow root.
 */
export function renderThread(view: ThreadView): string {
  const { t, page } = view;
  const anchors: string[] = [];
  const comments = page.comments.map((comment) => commentHtml(view, comment, anchors)).join('');
  const more = page.page * PAGE_SIZE < page.total ? `<a class="act more" href="${esc(pageLink(view.threadUrl, { sort: view.sort, page: String(page.page + 1) }))}">${esc(t('loadMore'))}</a>` : '';
  const empty = page.comments.length === 0 ? esc(t('empty')) : '';
  const data = `{"thread_url":${json(view.threadUrl)},"sort":"${view.sort}","served_at":${SLOT.servedAt},"list":${view.listJson.replace(/</g, '\\u003c')}}`;
  return (
    `<parley-comments site-id="${esc(view.siteId)}" thread-url="${esc(view.threadUrl)}" lang="${view.locale}">` +
    '<template shadowrootmode="open">' +
    `<style>${STYLES}${FRAGMENT_STYLES}</style>` +
    `<section aria-label="${esc(t('heading'))}" lang="${view.locale}" dir="${direction(view.locale)}" itemscope itemtype="https://schema.org/DiscussionForumPosting">` +
    `<link itemprop="url" href="${esc(view.threadUrl)}"><meta itemprop="commentCount" content="${page.total}">` +
    `<div class="top"><h2>${esc(t('heading'))}</h2>${sortForm(view)}</div>` +
    `<div><slot name="parley-form"></slot>${composer(view)}</div>` +
    `<p class="msg" role="status" tabindex="-1">${empty}</p><div class="new" aria-hidden="true"></div>` +
    `<div>${comments}</div>${more}` +
    `<script type="application/json" data-parley-thread>${data}</script>` +
    '</section></template>' +
    `<span id="parley-form" slot="parley-form"></span>${anchors.join('')}` +
    '</parley-comments>'
  );
}

/** JSON of a string, safe inside a script element. */
function json(text: string): string {
  return JSON.stringify(text).replace(/</g, '\\u003c');
}

/** The thread's page with Parley's parameters of the thread's HTML (the site's page passes them on). */
export function pageLink(threadUrl: string, params: Record<string, string>, anchor = 'parley-form'): string {
  const url = new URL(threadUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(`parley_${name}`, value);
  url.hash = anchor;
  return url.href;
}

/** The widget's sort control; without a script, a button (in noscript) sends it as the page's `parley_sort`. */
function sortForm({ t, sort, threadUrl }: ThreadView): string {
  const url = new URL(threadUrl);
  const kept = [...url.searchParams].filter(([name]) => !name.startsWith('parley_'));
  const hidden = kept.map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`).join('');
  const options = SORTS.map((value) => `<option value="${value}"${value === sort ? ' selected' : ''}>${esc(t(`sort_${value}`))}</option>`).join('');
  url.search = '';
  url.hash = 'parley-form';
  return (
    `<form method="get" action="${esc(url.href)}">${hidden}<label for="parley-sort">${esc(t('sortBy'))}</label>` +
    `<select id="parley-sort" name="parley_sort">${options}</select><noscript><button type="submit">${esc(t('sortApply'))}</button></noscript></form>`
  );
}

/** The guest's comment form, as the widget draws it for a site with plain formatting, posting to Parley. */
function composer(view: ThreadView): string {
  const { t } = view;
  if (!view.allowGuests) return `<div><p class="who">${esc(t('signInToComment'))}</p></div>`;
  if (view.proofAlways) return `<div><p class="who">${esc(t('proofNeedsScript'))}</p></div>`;
  const reply = view.replyTo;
  const label = reply ? t('replyTo', { name: reply.author_name }) : t('write');
  const cancel = reply ? `<a class="act" href="${esc(view.threadUrl)}">${esc(t('cancel'))}</a>` : '';
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${esc(value)}">`;
  return (
    `<div><form method="post" action="${esc(view.base)}/v1/comments/form">` +
    hidden('site_id', view.siteId) +
    hidden('thread_url', view.threadUrl) +
    (reply ? hidden('parent_id', reply.id) : '') +
    hidden('form_token', SLOT.token) +
    `<label for="parley-name">${esc(t('guestName'))}</label><input id="parley-name" name="author_name" autocomplete="nickname" maxlength="100" dir="auto">` +
    '<div class="hp" aria-hidden="true"><label for="parley-website">Website</label><input id="parley-website" name="website" type="text" tabindex="-1" autocomplete="off"></div>' +
    `<label for="parley-content">${esc(label)}</label>${editor(view)}` +
    `<button type="submit" class="primary">${esc(reply ? t('sendReply') : t('post'))}</button>${cancel}` +
    `<p class="msg${view.notice && view.notice.code !== 'held' ? ' error' : ''}" role="status">${esc(noticeText(view))}</p>` +
    '</form></div>'
  );
}

/**
 * The comment field. On a Markdown site, the widget's editor bar stands above it, its Write tab
 * shown and the rest kept invisible: they need a script, and the space they take keeps the thread
 * where the widget will draw it.
 */
function editor({ t, markdown }: ThreadView): string {
  const field = '<div><textarea id="parley-content" name="content" required maxlength="10000" rows="3" dir="auto"></textarea></div>';
  if (!markdown) return field;
  const button = (attributes: string, label: string) => `<button type="button" tabindex="-1" ${attributes}>${esc(label)}</button>`;
  const tools = (['bold', 'italic', 'link', 'quote', 'code'] as const).map((tool) => button(`class="tool ${tool}"`, t(`tool_${tool}`))).join('');
  return (
    '<div class="editor"><div class="bar" aria-hidden="true">' +
    `<div role="tablist">${button('role="tab" aria-selected="true"', t('tabWrite'))}${button('role="tab" class="ghost"', t('tabPreview'))}</div>` +
    `<div role="toolbar" class="ghost">${tools}</div></div>${field}</div>`
  );
}

function noticeText({ notice, t }: ThreadView): string {
  if (!notice) return '';
  if (notice.code === 'held') return t('postedHeld');
  const problem: ProblemLike = { status: 400, code: notice.code, detail: notice.detail ?? notice.code, retryAfter: notice.retry };
  return problemMessage(problem, t);
}

/** A comment as the widget draws it for a guest, with its schema.org `Comment` properties. */
function commentHtml(view: ThreadView, comment: Comment, anchors: string[]): string {
  const { t, locale } = view;
  const id = esc(comment.id);
  anchors.push(`<span id="parley-${id}" slot="parley-${id}"></span>`);
  const author = comment.is_deleted
    ? ''
    : `<bdi class="author" itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">${esc(comment.author_name)}</span></bdi>` +
      comment.author_badges.map((badge) => `<span class="badge author-badge">${esc(badgeText(t, badge))}</span>`).join('') +
      (comment.author_is_guest ? `<span class="badge guest">${esc(t('guest'))} <span class="sr">${esc(t('guestHint'))}</span></span>` : '');
  const meta =
    `<div class="meta">${author}<time itemprop="dateCreated" datetime="${esc(comment.created_at)}" title="${esc(fullDate(comment.created_at, locale))}">${esc(shortDate(comment.created_at, locale))}</time>` +
    (comment.is_edited && !comment.is_deleted ? `<span class="edited">${esc(t('edited'))}</span>` : '') +
    (comment.pinned ? `<span class="badge pinned">${esc(t('pinned'))}</span>` : '') +
    '</div>';
  const text = comment.is_deleted
    ? `<p class="text deleted">${esc(t('deleted'))}</p>`
    : comment.content_html === null
      ? `<div class="text content" dir="auto" itemprop="text">${esc(comment.content ?? '')}</div>`
      : `<div class="text content" dir="auto" itemprop="text">${comment.content_html.trim().replace(/<pre>/g, '<pre tabindex="0">')}</div>`;
  const replies = comment.replies.map((reply) => commentHtml(view, reply, anchors)).join('');
  const more = comment.next_cursor || comment.has_more_replies ? `<a class="act more" href="${esc(pageLink(view.threadUrl, {}, `parley_comment=${comment.id}`))}">${esc(t('moreReplies'))}</a>` : '';
  return (
    `<article class="c" itemprop="comment" itemscope itemtype="https://schema.org/Comment"><slot name="parley-${id}"></slot>` +
    `<div class="body">${meta}${text}${comment.is_deleted ? '' : actions(view, comment)}<div></div><p class="msg" role="status"></p></div>` +
    `<div class="replies">${replies}</div>${more}</article>`
  );
}

/** The counts as a guest sees them (numbers, not buttons), and Reply as a link to the form with the parent. */
function actions(view: ThreadView, comment: Comment): string {
  const { t, locale } = view;
  const tally = (symbol: string, count: number, words: string) =>
    `<span class="count tally"><span aria-hidden="true">${symbol}</span><span aria-hidden="true">${numberText(count, locale)}</span><span class="sr">${esc(words)}</span></span>`;
  const parts = [
    `<meta itemprop="upvoteCount" content="${comment.upvotes}"><meta itemprop="downvoteCount" content="${comment.downvotes}">`,
    tally('▲', comment.upvotes, t('upvoteCount', { count: comment.upvotes })),
    tally('▼', comment.downvotes, t('downvoteCount', { count: comment.downvotes })),
  ];
  for (const [type, count] of Object.entries(comment.reaction_counts)) {
    if (count <= 0) continue;
    const key = `reaction_${type}`;
    parts.push(`<span class="count tally"><span>${esc(t.has(key) ? t(key) : type)}</span> <span>${numberText(count, locale)}</span></span>`);
  }
  parts.push('<span class="sep" aria-hidden="true"></span>');
  if (view.allowGuests && !view.proofAlways) parts.push(`<a class="act" href="${esc(pageLink(view.threadUrl, { reply: comment.id }))}">${esc(t('reply'))}</a>`);
  return `<div class="actions">${parts.join('')}</div>`;
}

/** Parley's own badges in the reader's language; a label the site gave the author, as the site wrote it. */
function badgeText(t: Translate, badge: string): string {
  const key = `badge_${badge}`;
  return t.has(key) ? t(key) : badge;
}

const shortFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * The day a comment was written, as shown: a kept page cannot say "5 minutes ago" (it would go
 * stale), and the day is about as wide as the relative time the widget writes in its place, so the
 * line does not wrap differently on a phone when the widget takes over.
 */
function shortDate(iso: string, locale: string): string {
  let format = shortFormats.get(locale);
  if (!format) shortFormats.set(locale, (format = new Intl.DateTimeFormat(locale, { dateStyle: 'medium' })));
  return format.format(new Date(iso));
}
