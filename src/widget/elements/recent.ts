import { direction } from '../../i18n/locales.ts';
import { localeOf, say, sayWith, serverOfScript } from './words.ts';

const server = serverOfScript();

interface RecentComment {
  id: string;
  author_name: string;
  content_html: string | null;
  created_at: string;
  thread_url: string;
  thread_title: string | null;
}

const EXCERPT_CHARACTERS = 140;

/** Light by default, `theme="dark"`, or `theme="auto"` (the reader's system), as `<parley-comments>`; colours are custom properties the page may set. */
const DARK = '--parley-fg:#ececf1;--parley-muted:#a9a9b4;--parley-accent:#8ab4f8;--parley-border:#3b3b46;--parley-bg:#17171c;color-scheme:dark';
const STYLES = `:host{display:block;--parley-fg:#1d1d22;--parley-muted:#5a5a66;--parley-accent:#0b57d0;--parley-border:#d5d5dd;--parley-bg:#fff;
color:var(--parley-fg);background:var(--parley-bg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
:host([theme=dark]){${DARK}}@media (prefers-color-scheme:dark){:host([theme=auto]){${DARK}}}
ul{list-style:none;margin:0;padding:0}li{padding:8px 0;border-bottom:1px solid var(--parley-border)}li:last-child{border:0}
a{color:var(--parley-accent);text-decoration:none;font-weight:600}a:hover,a:focus-visible{text-decoration:underline}
.title{font-style:italic}p{margin:2px 0;overflow-wrap:anywhere}time,.empty{color:var(--parley-muted);font-size:.88em}`;

/** The comment's text, read from its HTML by a parser that runs nothing, and shortened. */
function excerptOf(html: string | null): string {
  const text = (new DOMParser().parseFromString(html ?? '', 'text/html').body.textContent ?? '').replace(/\s+/g, ' ').trim();
  return text.length > EXCERPT_CHARACTERS ? `${text.slice(0, EXCERPT_CHARACTERS - 1).trimEnd()}…` : text;
}

/** "3 hours ago", in the locale's words. */
function ago(locale: string, iso: string): string {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60]] as const) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, 'second');
}

function textElement(tag: string, text: string, className?: string): HTMLElement {
  const element = document.createElement(tag);
  element.textContent = text;
  if (className) element.className = className;
  return element;
}

/**
 * `<parley-recent site-id="…" limit="5" [thread-url] [lang] [theme]>`: the newest comments the public
 * sees on a site (or one thread), each a link to the comment in its thread with its author, the
 * thread's title, the start of its text and how long ago it was written. Everything the server sends
 * is set as text, never as markup.
 */
class ParleyRecent extends HTMLElement {
  static observedAttributes = ['site-id', 'limit', 'thread-url', 'lang'];
  readonly #root = this.attachShadow({ mode: 'open' });
  #loads = 0;
  #queued = false;

  connectedCallback(): void {
    this.#queue();
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.#queue();
  }

  /** One load for all that changed in a task: an upgrade reports each attribute, then the connection. */
  #queue(): void {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      void this.#load();
    });
  }

  async #load(): Promise<void> {
    const siteId = this.getAttribute('site-id');
    if (!siteId) return;
    const load = ++this.#loads;
    const query = new URLSearchParams({ site_id: siteId, limit: this.getAttribute('limit') || '5' });
    const threadUrl = this.getAttribute('thread-url');
    if (threadUrl) query.set('thread_url', threadUrl);
    try {
      const response = await fetch(`${server}/v1/comments/recent?${query}`);
      if (!response.ok || load !== this.#loads) return;
      this.#show(((await response.json()) as { comments: RecentComment[] }).comments);
    } catch {
      // Offline or blocked: the page's own content stays.
    }
  }

  #show(comments: RecentComment[]): void {
    const locale = localeOf(this);
    const style = document.createElement('style');
    style.textContent = STYLES;
    const list = document.createElement('ul');
    list.setAttribute('aria-label', say(locale, 'recentComments'));
    list.lang = locale;
    list.dir = direction(locale);
    for (const comment of comments) {
      const link = document.createElement('a');
      link.href = `${comment.thread_url}#parley_comment=${encodeURIComponent(comment.id)}`;
      const title = comment.thread_title ?? new URL(comment.thread_url).pathname;
      link.append(...sayWith(locale, 'recentEntry', { author: textElement('span', comment.author_name), title: textElement('span', title, 'title') }));
      const time = textElement('time', ago(locale, comment.created_at));
      time.setAttribute('datetime', comment.created_at);
      const item = document.createElement('li');
      item.append(link, textElement('p', excerptOf(comment.content_html)), time);
      list.append(item);
    }
    this.#root.replaceChildren(style, comments.length === 0 ? textElement('p', say(locale, 'noRecentComments'), 'empty') : list);
  }
}

if (!customElements.get('parley-recent')) customElements.define('parley-recent', ParleyRecent);
