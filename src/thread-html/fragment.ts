import type { ChangeFeed } from '../db/changes.ts';
import type { Db } from '../db/connect.ts';
import { etagOf } from '../http/etag.ts';
import type { Locale } from '../i18n/locales.ts';
import type { PublicLists, SerializeComment } from '../comments/public-list.ts';
import { ResponseCache } from '../comments/response-cache.ts';
import { threadKey } from '../comments/thread-url.ts';
import { siteOrNotFound } from '../sites/repository.ts';
import { formSecretOf, issueFormToken } from '../spam/form-token.ts';
import type { Comment, CommentPage } from '../widget/client/api.ts';
import { renderThread, PAGE_SIZE, SLOT, type Notice, type Sort } from './render.ts';
import { threadLocale, threadWords } from './words.ts';

export interface ThreadHtmlQuery {
  site_id: string;
  thread_url: string;
  sort?: Sort;
  page?: number;
  lang?: string;
  reply?: string;
  notice?: string;
  retry?: number;
  detail?: string;
}

/** Where a kept fragment takes what each response fills in: a fresh form token, the time it was served. */
interface Slots {
  cuts: Array<{ at: number; slot: keyof typeof SLOT }>;
  siteId: string;
  /** The site's form secret, for the tokens; null where the thread shows no form. */
  secret: string | null;
}

export interface ThreadHtml {
  parts: Buffer[];
  /** Weak: responses differ in their form token and time, not in what they show. */
  etag: string;
  /** The strong tag If-None-Match is compared with. */
  strongEtag: string;
}

/**
 * Threads as HTML (render.ts), kept by URL and the reader's language like the public's lists, and
 * cleared by the same announcements of writes. Each is made from the public's list of the same page
 * as the widget asks for it, read through that list's cache (public-list.ts): a thread whose list
 * is kept costs no query.
 */
export class ThreadPages {
  readonly #kept: ResponseCache<Slots>;

  constructor(
    changes: ChangeFeed,
    maxBytes: number,
    private readonly lists: PublicLists,
    private readonly publicUrl: string,
  ) {
    this.#kept = new ResponseCache(changes, maxBytes, 1);
  }

  async read(db: Db, query: ThreadHtmlQuery, acceptLanguage: Locale | null, serialize: SerializeComment, now = Date.now()): Promise<ThreadHtml> {
    const key = `${acceptLanguage ?? ''}\n${JSON.stringify(query)}`;
    const kept = await this.#kept.read(key, () => this.#build(db, query, acceptLanguage, serialize));
    const { cuts, siteId, secret } = kept.page;
    const parts: Buffer[] = [];
    let at = 0;
    for (const cut of cuts) {
      parts.push(kept.body.subarray(at, cut.at), Buffer.from(cut.slot === 'token' ? issueFormToken(secret!, siteId, now) : String(now)));
      at = cut.at;
    }
    parts.push(kept.body.subarray(at));
    return { parts, etag: `W/${kept.etag}`, strongEtag: kept.etag };
  }

  async #build(db: Db, query: ThreadHtmlQuery, acceptLanguage: Locale | null, serialize: SerializeComment) {
    const site = await siteOrNotFound(db.kysely, query.site_id);
    const url = threadKey(query.thread_url, 'querystring/thread_url').href;
    const sort = query.sort ?? 'newest';
    const page = query.page ?? 1;
    // The widget's own request for this page: the list it reads is the one kept for the widget.
    const listPath = `/v1/comments?${new URLSearchParams({ site_id: query.site_id, thread_url: query.thread_url, sort, page: String(page), limit: String(PAGE_SIZE) })}`;
    const list = await this.lists.read(db, listPath, { site_id: query.site_id, thread_url: query.thread_url, sort, page, limit: PAGE_SIZE }, serialize);
    const listJson = list.body.toString();
    const shown = JSON.parse(listJson) as CommentPage;
    const locale = threadLocale(query.lang, site, acceptLanguage);
    const proofAlways = site.spam.proof_of_work === 'always';
    const withForm = site.allowGuests && !proofAlways;
    const notice: Notice | null = query.notice ? { code: query.notice, retry: query.retry ?? null, detail: query.detail ?? null } : null;
    const html = renderThread({
      siteId: site.id,
      threadUrl: url,
      base: this.publicUrl,
      locale,
      t: threadWords(locale, site),
      sort,
      page: shown,
      listJson,
      allowGuests: site.allowGuests,
      markdown: site.formatting === 'markdown',
      proofAlways,
      replyTo: (query.reply && withForm && findComment(shown.comments, query.reply)) || null,
      notice,
    });
    const { body, cuts } = cutSlots(html);
    const page_ = { cuts, siteId: site.id, secret: withForm ? await formSecretOf(db.kysely, site) : null };
    return { siteId: site.id, threadKey: url, response: { body, etag: etagOf(body) }, page: page_ };
  }
}

/** The HTML's bytes without its slots, and where each slot stood. */
function cutSlots(html: string): { body: Buffer; cuts: Slots['cuts'] } {
  const pieces: Buffer[] = [];
  const cuts: Slots['cuts'] = [];
  let length = 0;
  const pattern = new RegExp(`${SLOT.token}|${SLOT.servedAt}`, 'g');
  let last = 0;
  for (const match of html.matchAll(pattern)) {
    const piece = Buffer.from(html.slice(last, match.index));
    pieces.push(piece);
    length += piece.length;
    cuts.push({ at: length, slot: match[0] === SLOT.token ? 'token' : 'servedAt' });
    last = match.index + match[0].length;
  }
  pieces.push(Buffer.from(html.slice(last)));
  return { body: Buffer.concat(pieces), cuts };
}

function findComment(comments: Comment[], id: string): Comment | null {
  for (const comment of comments) {
    if (comment.id === id) return comment.is_deleted ? null : comment;
    const found = findComment(comment.replies, id);
    if (found) return found;
  }
  return null;
}
