/// <reference lib="dom" />
import type { ReactionResult, VoteResult } from '../../votes/service.ts';
import { Api, ApiProblem, showProblem, type Comment, type CommentPage, type DialogHost, type WidgetSettings } from './api.ts';
import { direction, matchLocale, type Locale } from '../../i18n/locales.ts';
import { fullDate, h, modal, numberText, relativeTime, showHtml, submitted } from './dom.ts';
import { bell, followToggle } from './bell.ts';
import { editor } from './editor.ts';
import { GuestForm } from './guest-form.ts';
import { identicon } from './identicon.ts';
import { LiveConnection, type LiveMessage } from './live.ts';
import { loadDialogs, type DialogsModule } from './load-dialogs.ts';
import { localeFile } from './locale-file.ts';
import type { Participant } from './mention-picker.ts';
import { siteOfKey, storedSession, storeSession, takeSessionFromUrl } from './session.ts';
import { setStrings, translator, wordsFor, type Messages, type Translate } from './strings.ts';
import { STYLES } from './styles.ts';
import { takeServerThread } from './takeover.ts';

const SORTS = ['newest', 'oldest', 'top', 'best'] as const;
type Sort = (typeof SORTS)[number];
const MODERATIONS = ['approve', 'remove', 'spam', 'shadow_ban', 'unhide'] as const;
type Moderation = (typeof MODERATIONS)[number];
const PAGE_SIZE = 20;
const MAX_CONTENT = 10_000;

/** A rendered comment: its data, its element, and the parts redrawn or filled in place. */
interface Entry {
  data: Comment;
  element: HTMLElement;
  body: HTMLElement;
  replies: HTMLElement;
  /** Where reply and edit forms and the delete confirmation open. */
  slot: HTMLElement;
  message: HTMLElement;
  busy: boolean;
  moderating: boolean;
}

/** "Email me replies" as the form sends it. */
type NotifyWish = { notify_replies?: boolean; email?: string };

interface FormOptions {
  label: string;
  submit: string;
  initial?: string;
  guestName: boolean;
  /** Offers "Email me replies" (new comments and replies, when the server mails). */
  notify?: boolean;
  /** `website` is the hidden field of a guest's form, which people leave empty. */
  onSubmit: (content: string, name: string, website: string, notify: NotifyWish) => Promise<void>;
  onCancel?: () => void;
}

let uniqueId = 0;
const instances = new Set<ParleyComments>();
/** Sessions exchanged for sign-on tokens: each token is exchanged once (a second exchange is refused), however many widgets carry it. */
const ssoSessions = new Map<string, Promise<string>>();

/** How often "5 minutes ago" is rewritten while the page stays open: the finest unit it shows is a minute. */
const TIMES_REFRESH_MS = 30_000;
/** One timer for every widget of the page, running while any is in the document. */
let timesRefresh: ReturnType<typeof setInterval> | undefined;
/** A sign-in or sign-out in another tab reaches this page's widgets through the storage event. */
let watchingSessions = false;

/**
 * `<parley-comments site-id=… [thread-url] [session-token | sso-token] [theme] [lang]>`: one thread,
 * drawn in its own shadow root. Every widget on a page keeps its own state; they share only the
 * strings, the sessions of sign-on tokens, and the session of a reader who signed in through a
 * widget (kept in the page's storage per site, used where the page gives no token of its own).
 */
export class ParleyComments extends HTMLElement {
  static observedAttributes = ['site-id', 'thread-url', 'session-token', 'sso-token', 'lang'];
  /** Where embed.js came from; the API lives there too. */
  static apiBase = '';
  /** The sign-in and account dialogs' module (embed/account.<hash>.js), beside embed.js. */
  static dialogsUrl = '';
  /** The folder of the locale files (embed/locales/<hash>), beside embed.js. */
  static localesUrl = '';

  /** Adds or replaces the words for a language (`en` replaces the built-in English), over the site's and Parley's. */
  static setStrings(lang: string, strings: Record<string, string>): void {
    setStrings(lang, strings);
    for (const widget of instances) widget.#schedule();
  }

  /** Milliseconds from the first page's data arriving to the thread being in the DOM. */
  renderTime: number | null = null;

  // The thread's HTML (GET /v1/comments/html) comes with its shadow root: the widget draws over it.
  #root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
  /** Every message in the reader's language, the dialogs' among them (dialogs.ts). */
  #messages: Messages = wordsFor('en', {}, {});
  #t: Translate = translator('en', this.#messages);
  #lang: Locale = 'en';
  /** The element that carries the widget's `lang` and `dir`; dialogs open in it. */
  #frame = h('section');
  #api = new Api('', null);
  #settings: WidgetSettings = {
    site: { id: '', name: '', allow_guests: false, reactions: [], live_updates: false, formatting: 'plain', edit_window_seconds: null, language: null },
    viewer: { signed_in: false, name: null, moderator: false, user_id: null, avatar_url: null, own_account: false },
    sign_in: { email: false, providers: [], erase_grace_seconds: 0 },
    mail: { enabled: false, address_known: false, notify_replies: false },
    form: null,
    strings: {},
  };
  #guestForm: GuestForm | null = null;
  #sort: Sort = 'newest';
  #page = 1;
  #total = 0;
  #entries = new Map<string, Entry>();
  #list = h('div');
  #status = h('p');
  #more = h('button');
  #generation = 0;
  #scheduled = false;
  #live: LiveConnection | null = null;
  /** New top-level comments that arrived live, shown when the reader asks (the page does not jump under them). */
  #incoming: Comment[] = [];
  #newButton = h('button');
  /** Says politely that comments arrived, without moving the focus: a screen reader hears of the button. */
  #announcer = h('p');
  /** Said above the form once, after the widget is drawn again (the account's deletion date). */
  #notice: string | null = null;
  /** The control (its data-k) that takes the focus once the widget is drawn again after a sign-in or out. */
  #focusAfterLoad: string | null = null;
  /** Shows the reader's count of unread notifications on their bell; null without one. */
  #setUnread: ((unread: number) => void) | null = null;

  connectedCallback(): void {
    instances.add(this);
    timesRefresh ??= setInterval(() => instances.forEach((widget) => widget.#refreshTimes()), TIMES_REFRESH_MS);
    if (!watchingSessions) {
      watchingSessions = true;
      addEventListener('storage', (event) => {
        const siteId = siteOfKey(event.key);
        if (siteId !== null) ParleyComments.#sessionChanged(siteId);
      });
    }
    this.#schedule();
  }

  /** Every widget of the site on the stored session draws itself again as the reader now is. */
  static #sessionChanged(siteId: string): void {
    for (const widget of instances) if (widget.#siteId === siteId && widget.#keepsSession) widget.#schedule();
  }

  /** Where the page gives no token, the widget keeps the reader's own sign-in. */
  get #keepsSession(): boolean {
    return !this.getAttribute('session-token') && !this.getAttribute('sso-token');
  }

  disconnectedCallback(): void {
    // A load still under way ends without opening a stream: a removed widget must not keep one.
    this.#generation += 1;
    this.#live?.stop();
    this.#live = null;
    instances.delete(this);
    if (instances.size > 0) return;
    clearInterval(timesRefresh);
    timesRefresh = undefined;
  }

  /**
   * Rewrites each comment's relative time (only the ones whose words changed touch the DOM), and
   * takes Edit away from the comments whose edit window closed meanwhile.
   */
  #refreshTimes(): void {
    const now = Date.now();
    this.#root.querySelectorAll('time').forEach((time) => {
      const words = relativeTime(time.dateTime, this.#lang, now);
      if (time.textContent !== words) time.textContent = words;
    });
    for (const entry of this.#entries.values()) {
      if (entry.body.querySelector('[data-k="edit"]') && !this.#editable(entry.data, now)) this.#fillBody(entry);
    }
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.#schedule();
  }

  /** Several attributes set in a row cause one reload. */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      void this.#load();
    });
  }

  get #siteId(): string {
    return this.getAttribute('site-id') ?? '';
  }

  get #threadUrl(): string {
    return this.getAttribute('thread-url') || location.href.split('#')[0];
  }

  #listPath(page: number): string {
    const query = new URLSearchParams({ site_id: this.#siteId, thread_url: this.#threadUrl, sort: this.#sort, page: String(page), limit: String(PAGE_SIZE) });
    return `/v1/comments?${query}`;
  }

  async #load(): Promise<void> {
    const generation = ++this.#generation;
    this.#live?.stop();
    this.#live = null;
    this.#incoming = [];
    const arriving = takeSessionFromUrl();
    if (arriving) {
      storeSession(this.#siteId, arriving);
      // The sign-in pop-up, cut off from its opener by a provider's Cross-Origin-Opener-Policy, came
      // back here: the opener's widget hears of the stored session, and this window has done its part.
      if (window.name === 'parley-sign-in' && !window.opener) window.close();
    }
    const stored = this.#keepsSession ? storedSession(this.#siteId) : null;
    const asked = this.#askedLocale;
    this.#api = new Api(ParleyComments.apiBase, this.getAttribute('session-token') || stored, asked);
    // The file of a language the element or the page names comes in parallel with the settings.
    const file = asked && localeFile(ParleyComments.localesUrl, asked);
    let composer: HTMLElement | null = null;
    try {
      if (!this.getAttribute('session-token') && this.getAttribute('sso-token')) this.#api = new Api(ParleyComments.apiBase, await this.#ssoSession(), asked);
      // The public's first page, drawn by the server in the element, is not read again.
      const served = this.#keepsSession && !stored ? takeServerThread(this.#root, this.#threadUrl) : null;
      if (served) this.#sort = served.sort;
      const listed = served ? Promise.resolve(served.list) : this.#api.call<CommentPage>('GET', this.#listPath(1));
      // Awaited once the widget is drawn; a failure of the settings too is said once, below.
      listed.catch(() => undefined);
      const settings = await this.#widgetSettings(asked);
      const locale = asked ?? matchLocale(settings.site.language) ?? 'en';
      const messages = await (file || localeFile(ParleyComments.localesUrl, locale));
      if (generation !== this.#generation) return;
      // Drawn once its words are known, the site's own among them: no word shows in another language first.
      this.#speak(locale, messages, settings.strings);
      this.#settings = settings;
      this.#guestForm = settings.form && new GuestForm(settings.form, () => this.#widgetSettings(null).then((fresh) => fresh.form));
      composer = this.#draw();
      composer.append(this.#composer());
      if (this.#focusAfterLoad) composer.querySelector<HTMLElement>(`[data-k="${this.#focusAfterLoad}"]`)?.focus();
      this.#focusAfterLoad = null;
      const page = await listed;
      if (generation !== this.#generation) return;
      const arrived = performance.now();
      this.#showPage(page, true);
      this.#openOnLinkedComment();
      this.renderTime = performance.now() - arrived;
      performance.measure('parley:render', { start: arrived, duration: this.renderTime });
      if (settings.site.live_updates) this.#live = new LiveConnection(this.#streamUrl(), (message) => this.#onLive(message), () => this.#pollNew());
    } catch (error) {
      if (generation !== this.#generation) return;
      // A kept session the server no longer knows (signed out elsewhere, expired): the reader is a guest again.
      if (stored && error instanceof ApiProblem && error.status === 401) {
        storeSession(this.#siteId, null);
        return ParleyComments.#sessionChanged(this.#siteId);
      }
      if (!composer) {
        const messages = file ? await file : {};
        if (generation !== this.#generation) return;
        this.#speak(asked ?? 'en', messages, {});
        this.#draw();
      }
      this.#showProblem(this.#status, error);
      this.#status.append(h('button', { type: 'button', class: 'retry', onclick: () => this.#schedule() }, this.#t('retry')));
    }
  }

  /** The language the element, or else the page, names where Parley speaks it; null leaves it to the site's setting. */
  get #askedLocale(): Locale | null {
    return matchLocale(this.getAttribute('lang')) ?? matchLocale(this.parentElement?.closest('[lang]')?.getAttribute('lang'));
  }

  /** Takes the words of `locale`: its file's over English, the site's own over those; API calls say it. */
  #speak(locale: Locale, file: Messages, site: Messages): void {
    this.#lang = locale;
    this.#messages = wordsFor(locale, file, site);
    this.#t = translator(locale, this.#messages);
    this.#api = this.#api.speaking(locale);
  }

  /** Draws the widget's frame in its language and direction; the composer goes in the returned element. */
  #draw(): HTMLElement {
    const t = this.#t;
    const sortId = `parley-sort-${++uniqueId}`;
    const sort = h(
      'select',
      { id: sortId, onchange: () => ((this.#sort = sort.value as Sort), void this.#reloadList()) },
      ...SORTS.map((value) => h('option', { value, selected: value === this.#sort }, t(`sort_${value}`))),
    );
    const composer = h('div');
    this.#list = h('div');
    this.#status = h('p', { class: 'msg', role: 'status', tabindex: -1 }, t('loading'));
    this.#more = h('button', { type: 'button', class: 'more', hidden: true, onclick: () => void this.#loadMore() }, t('loadMore'));
    this.#newButton = h('button', { type: 'button', class: 'new', onclick: () => this.#showIncoming() });
    this.#announcer = h('p', { class: 'sr', 'aria-live': 'polite' });
    this.#updateNew();
    this.#frame = h(
      'section',
      { 'aria-label': t('heading'), lang: this.#lang, dir: direction(this.#lang) },
      h('div', { class: 'top' }, h('h2', {}, t('heading')), h('div', {}, h('label', { for: sortId }, t('sortBy')), sort)),
      composer,
      this.#status,
      this.#newButton,
      this.#announcer,
      this.#list,
      this.#more,
      // A feed reader follows the thread from here; a page that wants feed discovery names the feed in its own head.
      h('p', { class: 'feed' }, h('a', { href: this.#feedUrl(), rel: 'alternate', type: 'application/atom+xml' }, t('feed'))),
    );
    this.#root.replaceChildren(h('style', {}, STYLES), this.#frame);
    return composer;
  }

  #feedUrl(): string {
    return `${ParleyComments.apiBase}/v1/feeds/thread.atom?${new URLSearchParams({ site_id: this.#siteId, thread_url: this.#threadUrl })}`;
  }

  /** The session for the `sso-token` attribute: the token is exchanged once for a session token. */
  #ssoSession(): Promise<string | null> {
    const token = this.getAttribute('sso-token');
    if (!token) return Promise.resolve(null);
    let session = ssoSessions.get(token);
    if (!session) {
      session = new Api(ParleyComments.apiBase, null).call<{ token: string }>('POST', '/v1/sso/exchange', { token }).then((answer) => answer.token);
      ssoSessions.set(token, session);
      session.catch(() => ssoSessions.delete(token));
    }
    return session;
  }

  /** The thread's stream; a signed-in reader's also rings their bell (its key proves the session without a header, which EventSource cannot send). */
  #streamUrl(): string {
    const key = this.#settings.notifications?.stream_key;
    return `${ParleyComments.apiBase}/v1/comments/stream?${new URLSearchParams({ site_id: this.#siteId, thread_url: this.#threadUrl, ...(key && { notifications_key: key }) })}`;
  }

  #onLive(message: LiveMessage): void {
    if (message.type === 'reset') return void this.#reloadList();
    if (message.type === 'ready') return;
    if (message.type === 'notifications') return this.#setUnread?.(message.unread);
    if (message.type === 'comment.created') return this.#arrived(message.comment);
    if (message.type === 'comment.hidden') {
      this.#incoming = this.#incoming.filter((comment) => comment.id !== message.comment_id);
      this.#updateNew();
      const entry = this.#entries.get(message.comment_id);
      // Moderators see hidden comments too; their own list is right as it is.
      if (entry && !this.#settings.viewer.moderator) this.#drop(entry);
      return;
    }
    if (message.type === 'comment.counts') {
      const entry = this.#entries.get(message.comment_id);
      if (!entry) return;
      Object.assign(entry.data, { upvotes: message.upvotes, downvotes: message.downvotes, reaction_counts: message.reaction_counts });
      return this.#fillBody(entry);
    }
    const entry = this.#entries.get(message.comment.id);
    if (!entry) return;
    if (message.type === 'comment.deleted' && entry.replies.childElementCount === 0) return this.#drop(entry);
    // The reader's own marks are theirs, not the public's.
    const { user_vote, user_reaction, user_is_author, replies } = entry.data;
    entry.data = { ...message.comment, user_vote, user_reaction, user_is_author, replies };
    this.#fillBody(entry);
  }

  /** A comment the public can now see: a reply goes under its parent, a new thread waits behind the button. */
  #arrived(comment: Comment): void {
    if (this.#entries.has(comment.id)) return;
    if (comment.parent_id !== null) {
      this.#entries.get(comment.parent_id)?.replies.append(this.#render(comment));
      return;
    }
    if (this.#incoming.some((waiting) => waiting.id === comment.id)) return;
    this.#incoming.push(comment);
    this.#updateNew();
    this.#announcer.textContent = this.#t('liveAnnounce', { count: this.#incoming.length });
  }

  /** Space for the button is always kept, so the thread below never moves when it appears. */
  #updateNew(): void {
    const count = this.#incoming.length;
    this.#newButton.textContent = this.#t('newComments', { count });
    this.#newButton.setAttribute('aria-hidden', String(count === 0));
    this.#newButton.disabled = count === 0;
    if (count === 0) this.#announcer.textContent = '';
  }

  #showIncoming(): void {
    const shown = this.#incoming.filter((comment) => !this.#entries.has(comment.id));
    this.#incoming = [];
    for (const comment of shown) this.#list.prepend(this.#render(comment));
    this.#total += shown.length;
    this.#updateNew();
    this.#updateFooter();
    const first = this.#list.firstElementChild as HTMLElement | null;
    if (first) focusComment(first);
  }

  /** Without a stream: the newest comments, read again; the ones not shown yet wait behind the button. */
  async #pollNew(): Promise<void> {
    const query = new URLSearchParams({ site_id: this.#siteId, thread_url: this.#threadUrl, sort: 'newest', page: '1', limit: String(PAGE_SIZE) });
    const page = await this.#api.call<CommentPage>('GET', `/v1/comments?${query}`);
    for (const comment of page.comments.reverse()) this.#arrived(comment);
  }

  #drop(entry: Entry): void {
    entry.element.remove();
    this.#entries.delete(entry.data.id);
    if (entry.data.parent_id === null) this.#total -= 1;
    this.#updateFooter();
  }

  async #reloadList(): Promise<void> {
    const generation = this.#generation;
    try {
      const page = await this.#api.call<CommentPage>('GET', this.#listPath(1));
      if (generation === this.#generation) this.#showPage(page, true);
    } catch (error) {
      this.#showProblem(this.#status, error);
    }
  }

  async #loadMore(): Promise<void> {
    try {
      this.#showPage(await this.#api.call<CommentPage>('GET', this.#listPath(this.#page + 1)), false);
    } catch (error) {
      this.#showProblem(this.#status, error);
    }
  }

  /**
   * A link to a comment (`#parley_comment=<id>`, as mention mails give) opens the page on it, marked
   * and focused, when the first page holds it.
   */
  #openOnLinkedComment(): void {
    const id = /[#&]parley_comment=([^&]+)/.exec(location.hash)?.[1];
    if (id !== undefined) this.#showComment(decodeURIComponent(id));
  }

  /** Marks, scrolls to and focuses a comment shown here; false when it is not. */
  #showComment(id: string): boolean {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    this.#root.querySelector('.linked')?.classList.remove('linked');
    entry.element.classList.add('linked');
    entry.element.tabIndex = -1;
    entry.element.scrollIntoView({ block: 'center' });
    entry.element.focus({ preventScroll: true });
    return true;
  }

  #showPage(page: CommentPage, replace: boolean): void {
    if (replace) {
      this.#entries.clear();
      this.#list.replaceChildren();
    }
    this.#page = page.page;
    this.#total = page.total;
    const fragment = document.createDocumentFragment();
    // A comment posted meanwhile shifts the pages; one already shown is not drawn twice.
    for (const comment of page.comments) if (!this.#entries.has(comment.id)) fragment.append(this.#render(comment));
    this.#list.append(fragment);
    this.#updateFooter();
  }

  #updateFooter(): void {
    this.#status.className = 'msg';
    this.#status.textContent = this.#list.childElementCount === 0 ? this.#t('empty') : '';
    this.#more.hidden = this.#page * PAGE_SIZE >= this.#total;
  }

  #composer(): Node {
    const { viewer, site } = this.#settings;
    const notice = this.#notice && h('p', { class: 'notice', role: 'status', tabindex: -1, 'data-k': 'notice' }, this.#notice);
    this.#notice = null;
    if (!viewer.signed_in && !site.allow_guests) return h('div', {}, notice, this.#reader());
    return h(
      'div',
      {},
      notice,
      this.#reader(),
      this.#form({
        label: this.#t('write'),
        submit: this.#t('post'),
        guestName: !viewer.signed_in,
        notify: this.#settings.mail.enabled,
        onSubmit: async (content, name, website, notify) => {
          const comment = await this.#post(content, name, website, null, notify);
          // Its live announcement may have come first: it is shown once, here.
          this.#incoming = this.#incoming.filter((waiting) => waiting.id !== comment.id);
          this.#updateNew();
          if (this.#entries.has(comment.id)) return focusComment(this.#entries.get(comment.id)!.element);
          const element = this.#render(comment);
          this.#list.prepend(element);
          this.#total += 1;
          this.#updateFooter();
          // The reader hears their comment and goes on from it, rather than from the emptied form.
          focusComment(element);
        },
      }),
    );
  }

  /** Who is commenting, with their account and sign-out; or, for a guest, the way to sign in where the site offers one. */
  #reader(): Node | null {
    const t = this.#t;
    const { viewer, site, sign_in: signIn, notifications } = this.#settings;
    const message = h('p', { class: 'msg', role: 'alert' });
    const button = (key: string, label: string, onclick: () => void, dialog = true) =>
      h('button', { type: 'button', 'data-k': key, 'aria-haspopup': dialog ? 'dialog' : null, onclick }, label);
    const dialogButton = (key: string, label: string, open: (dialogs: DialogsModule) => void): HTMLButtonElement => {
      const opener = button(key, label, () => void this.#openDialog(opener, message, open));
      return opener;
    };
    if (viewer.signed_in) {
      const picture = viewer.avatar_url
        ? h('img', { class: 'avatar', src: viewer.avatar_url, alt: '', width: 32, height: 32, referrerpolicy: 'no-referrer' })
        : viewer.user_id && identicon(viewer.user_id, 32);
      return h(
        'div',
        { class: 'reader' },
        picture,
        viewer.name && h('p', { class: 'who' }, t('signedInAs', { name: viewer.name })),
        notifications && followToggle(t, this.#api, this.#siteId, this.#threadUrl, (error) => this.#showProblem(message, error)),
        notifications && this.#bell(notifications.unread, message),
        viewer.user_id && dialogButton('account', t('yourAccount'), (dialogs) => dialogs.openAccount(this.#dialogHost())),
        viewer.user_id && this.#keepsSession && button('sign-out', t('signOut'), () => this.#signOut(null), false),
        message,
      );
    }
    const offered = this.#keepsSession && (signIn.email || signIn.providers.length > 0);
    if (!offered) return site.allow_guests ? null : h('p', { class: 'who' }, t('signInToComment'));
    const sign = dialogButton('sign-in', t('signIn'), (dialogs) => dialogs.openSignIn(this.#dialogHost()));
    sign.className = 'primary';
    return h('div', { class: 'reader' }, h('p', { class: 'who' }, site.allow_guests ? t('signInHint') : t('signInToComment')), sign, message);
  }

  #bell(unread: number, message: HTMLElement): HTMLElement {
    let button: HTMLElement;
    ({ button, set: this.#setUnread } = bell(
      this.#t,
      unread,
      (opener) => void this.#openDialog(opener, message, (dialogs) => dialogs.openNotifications(this.#dialogHost())),
      (words) => (this.#announcer.textContent = words),
    ));
    return button;
  }

  /**
   * Opens a dialog from the dialogs' module, which is loaded the first time (most readers never open
   * one, so embed.js does not carry it). The button is busy meanwhile; a failure says so under it,
   * and the button tries again.
   */
  async #openDialog(button: HTMLButtonElement, message: HTMLElement, open: (dialogs: DialogsModule) => void): Promise<void> {
    if (button.hasAttribute('aria-busy')) return;
    button.setAttribute('aria-busy', 'true');
    message.textContent = '';
    let dialogs: DialogsModule;
    try {
      dialogs = await loadDialogs(ParleyComments.dialogsUrl);
    } catch {
      message.className = 'msg error';
      message.textContent = this.#t('dialogUnavailable');
      return;
    } finally {
      button.removeAttribute('aria-busy');
    }
    if (this.isConnected) open(dialogs);
  }

  #dialogHost(): DialogHost {
    const siteId = this.#siteId;
    return {
      kit: { h, modal, submitted, fullDate, relativeTime, translator, showProblem },
      api: this.#api,
      t: this.#t,
      messages: this.#messages,
      lang: this.#lang,
      siteId,
      settings: this.#settings,
      root: this.#frame,
      ownSession: this.#keepsSession,
      signedIn: (token) => {
        this.#focusAfterLoad = 'account';
        storeSession(siteId, token);
        ParleyComments.#sessionChanged(siteId);
      },
      signOut: (notice) => void this.#signOut(notice),
      refresh: () => this.#schedule(),
      threadUrl: this.#threadUrl,
      showComment: (id) => this.#showComment(id),
      setUnread: (unread) => this.#setUnread?.(unread),
      localesUrl: ParleyComments.localesUrl,
    };
  }

  /** Ends the session on the server; the token goes from the page whatever the server said (it may have ended it already). */
  async #signOut(notice: string | null): Promise<void> {
    const siteId = this.#siteId;
    await this.#api.call('DELETE', '/v1/sessions/current').catch(() => undefined);
    this.#notice = notice;
    this.#focusAfterLoad = notice ? 'notice' : 'sign-in';
    storeSession(siteId, null);
    ParleyComments.#sessionChanged(siteId);
  }

  /** The site's settings, and its own words for `lang` (else for its default language). */
  #widgetSettings(lang: Locale | null): Promise<WidgetSettings> {
    const query = new URLSearchParams({ site_id: this.#siteId, ...(lang && { lang }) });
    return this.#api.call<WidgetSettings>('GET', `/v1/widget?${query}`);
  }

  async #post(content: string, name: string, website: string, parentId: string | null, notify: NotifyWish): Promise<Comment> {
    const guestFields = this.#guestForm && !this.#settings.viewer.signed_in ? await this.#guestForm.fields(website) : {};
    return this.#api.call<Comment>('POST', '/v1/comments', {
      site_id: this.#siteId,
      thread_url: this.#threadUrl,
      content,
      ...(parentId && { parent_id: parentId }),
      ...(name && { author_name: name }),
      ...notify,
      ...guestFields,
    });
  }

  #form(options: FormOptions): HTMLFormElement {
    const t = this.#t;
    const id = `parley-${++uniqueId}`;
    const text = h('textarea', { id, name: 'content', required: true, maxlength: MAX_CONTENT, rows: 3, dir: 'auto' });
    text.value = options.initial ?? '';
    const editing = editor({
      field: text,
      t,
      markdown: this.#settings.site.formatting === 'markdown',
      preview: (content) => this.#api.call<{ content_html: string }>('POST', '/v1/comments/preview', { site_id: this.#siteId, content }).then((answer) => answer.content_html),
      participants: this.#participants(),
      send: () => form.requestSubmit(),
    });
    const name = options.guestName ? h('input', { id: `${id}-name`, name: 'author_name', autocomplete: 'nickname', maxlength: 100, dir: 'auto' }) : null;
    const notify = options.notify ? this.#notifyFields(id) : null;
    // The honeypot: out of sight and out of the tab order, so people leave it empty; form-filling bots fill it in.
    const website = options.guestName ? h('input', { id: `${id}-website`, name: 'website', type: 'text', tabindex: -1, autocomplete: 'off' }) : null;
    const message = h('p', { class: 'msg', role: 'status' });
    const send = async () => {
      message.textContent = '';
      await options.onSubmit(text.value, name?.value.trim() ?? '', website?.value ?? '', notify?.wish() ?? {});
      text.value = '';
      editing.reset();
    };
    const form = h(
      'form',
      { onsubmit: submitted(send, (error) => this.#showProblem(message, error)) },
      name && h('label', { for: name.id }, t('guestName')),
      name,
      website && h('div', { class: 'hp', 'aria-hidden': 'true' }, h('label', { for: website.id }, 'Website'), website),
      h('label', { for: id }, options.label),
      editing.element,
      notify?.fields,
      h('button', { type: 'submit', class: 'primary' }, options.submit),
      options.onCancel && h('button', { type: 'button', onclick: options.onCancel }, t('cancel')),
      message,
    );
    // Escape closes a reply or an edit, unless it closed the mention suggestions first.
    text.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !event.defaultPrevented && options.onCancel) options.onCancel();
    });
    return form;
  }

  /**
   * The people a composer suggests after an `@`: the thread's participants but the reader, fetched
   * once, when first asked; none when they cannot be fetched.
   */
  #participants(): () => Promise<Participant[]> {
    let fetched: Promise<Participant[]> | null = null;
    const query = new URLSearchParams({ site_id: this.#siteId, thread_url: this.#threadUrl });
    const reader = this.#settings.viewer.user_id;
    return () =>
      (fetched ??= this.#api.call<{ participants: Participant[] }>('GET', `/v1/comments/participants?${query}`).then(
        (answer) => answer.participants.filter((person) => person.user_id !== reader),
        () => [],
      ));
  }

  /**
   * The "Email me replies" box (ticked as a signed-in reader's default has it), and the address it
   * needs (required once ticked, so the browser says so before anything is sent) unless the reader's
   * site gave it in their SSO token.
   */
  #notifyFields(id: string): { fields: Node; wish: () => NotifyWish } {
    const t = this.#t;
    const { address_known: known, notify_replies: ticked } = this.#settings.mail;
    const box = h('input', { id: `${id}-notify`, type: 'checkbox', name: 'notify_replies', class: 'check', checked: ticked });
    const email = !known ? h('input', { id: `${id}-email`, type: 'email', name: 'email', autocomplete: 'email', maxlength: 254 }) : null;
    const asked = email && h('div', { hidden: !ticked }, h('label', { for: email.id }, t('notifyEmail')), email);
    if (email) email.required = ticked;
    box.addEventListener('change', () => {
      if (!email || !asked) return;
      asked.hidden = !box.checked;
      email.required = box.checked;
    });
    const fields = h('div', { class: 'notify' }, h('p', {}, box, h('label', { for: box.id }, t('notifyReplies'))), asked);
    // Unticked, a reader whose default is on says so; otherwise nothing is sent.
    return { fields, wish: () => (box.checked ? { notify_replies: true, ...(email && { email: email.value.trim() }) } : ticked ? { notify_replies: false } : {}) };
  }

  #render(comment: Comment): HTMLElement {
    const entry: Entry = {
      data: comment,
      element: h('article', { class: 'c' }),
      body: h('div', { class: 'body' }),
      replies: h('div', { class: 'replies' }),
      slot: h('div'),
      message: h('p', { class: 'msg', role: 'status' }),
      busy: false,
      moderating: false,
    };
    this.#entries.set(comment.id, entry);
    this.#fillBody(entry);
    for (const reply of comment.replies) entry.replies.append(this.#render(reply));
    entry.element.append(entry.body, entry.replies);
    const cursor = comment.next_cursor;
    if (cursor) {
      const more: HTMLButtonElement = h('button', { type: 'button', class: 'more', onclick: () => void this.#showMoreReplies(entry, more) }, this.#t('moreReplies'));
      more.dataset.after = cursor;
      entry.element.append(more);
    } else if (comment.has_more_replies) {
      const more: HTMLButtonElement = h('button', { type: 'button', class: 'more', onclick: () => void this.#showAllReplies(entry, more) }, this.#t('moreReplies'));
      entry.element.append(more);
    }
    return entry.element;
  }

  /** Redraws a comment's own part (not its replies), keeping the keyboard focus on the same control. */
  #fillBody(entry: Entry): void {
    const comment = entry.data;
    const t = this.#t;
    const focused = this.#root.activeElement as HTMLElement | null;
    const focusKey = focused && entry.body.contains(focused) ? focused.dataset.k : undefined;
    const badge = this.#badge(comment);
    entry.body.replaceChildren(
      h(
        'div',
        { class: 'meta' },
        !comment.is_deleted && h('bdi', { class: 'author' }, comment.author_name),
        ...(comment.is_deleted ? [] : comment.author_badges.map((badge) => h('span', { class: 'badge author-badge' }, this.#authorBadge(badge)))),
        // Anyone can post under any name as a guest: the marker says nobody vouches for this one.
        !comment.is_deleted && comment.author_is_guest && h('span', { class: 'badge guest' }, t('guest'), ' ', h('span', { class: 'sr' }, t('guestHint'))),
        h('time', { datetime: comment.created_at, title: fullDate(comment.created_at, this.#lang) }, relativeTime(comment.created_at, this.#lang)),
        comment.is_edited && !comment.is_deleted && h('span', { class: 'edited' }, t('edited')),
        badge && h('span', { class: 'badge' }, badge),
        comment.pinned && h('span', { class: 'badge pinned' }, t('pinned')),
      ),
      comment.is_deleted
        ? h('p', { class: 'text deleted' }, t('deleted'))
        : // A comment an instance of the previous release wrote during an upgrade has no HTML: its text, as text.
          comment.content_html === null
          ? h('div', { class: 'text content', dir: 'auto' }, comment.content ?? '')
          : showHtml(h('div', { class: 'text content', dir: 'auto' }), comment.content_html),
      ...(comment.is_deleted ? [] : this.#actions(entry)),
      entry.slot,
      entry.message,
    );
    if (focusKey) entry.body.querySelector<HTMLElement>(`[data-k="${focusKey}"]`)?.focus();
  }

  /** Parley's own badges in the reader's language; a label the site gave the author, as the site wrote it. */
  #authorBadge(badge: string): string {
    const key = `badge_${badge}`;
    return this.#t.has(key) ? this.#t(key) : badge;
  }

  /**
   * Whether the author may still edit: a site's edit window runs from the comment's creation (null:
   * no limit; 0: never). Moderators are never limited.
   */
  #editable(comment: Comment, now = Date.now()): boolean {
    const seconds = this.#settings.site.edit_window_seconds;
    if (!comment.user_is_author) return false;
    if (seconds === null || this.#settings.viewer.moderator) return true;
    return now < Date.parse(comment.created_at) + seconds * 1000;
  }

  /** Readers see their own pending comments marked; moderators see every state. A shadow ban is never shown to its author. */
  #badge(comment: Comment): string | null {
    const state = this.#settings.viewer.moderator
      ? (comment.moderation_status ?? (comment.status === 'published' ? null : comment.status))
      : comment.status === 'pending'
        ? 'pending'
        : null;
    if (state === null) return null;
    const key = `status_${state}`;
    return this.#t.has(key) ? this.#t(key) : state;
  }

  #actions(entry: Entry): HTMLElement[] {
    const comment = entry.data;
    const t = this.#t;
    const { viewer, site } = this.#settings;
    const button = (key: string, label: Node | string, onclick: () => unknown, pressed?: boolean, ...rest: Array<Node | string>) =>
      h('button', { type: 'button', 'data-k': key, 'aria-pressed': pressed === undefined ? null : String(pressed), onclick: () => void onclick() }, label, ...rest);
    const parts: HTMLElement[] = [];
    for (const [type, symbol, label, counted, count] of [
      ['up', '▲', t('upvote'), t('upvoteCount', { count: comment.upvotes }), comment.upvotes],
      ['down', '▼', t('downvote'), t('downvoteCount', { count: comment.downvotes }), comment.downvotes],
    ] as const) {
      // Seen: the arrow and the number; heard: the action and the count in words.
      const shown = [h('span', { 'aria-hidden': 'true' }, symbol), h('span', { 'aria-hidden': 'true' }, numberText(count, this.#lang)), h('span', { class: 'sr' }, counted)];
      parts.push(
        viewer.signed_in
          ? button(type, h('span', { class: 'sr' }, label), () => this.#vote(entry, type), comment.user_vote === type, h('span', { class: 'tally' }, ...shown))
          : h('span', { class: 'count tally' }, ...shown),
      );
    }
    for (const type of new Set([...site.reactions, ...Object.keys(comment.reaction_counts)])) {
      const count = comment.reaction_counts[type] ?? 0;
      const key = `reaction_${type}`;
      // A reaction Parley names, in the reader's language; a site's own, as the site wrote it. The number
      // stands apart, after a space that keeps the two words apart in the accessible name too.
      const label = [h('span', {}, t.has(key) ? t(key) : type), count > 0 && ' ', count > 0 && h('span', {}, numberText(count, this.#lang))];
      if (viewer.signed_in && site.reactions.includes(type)) {
        parts.push(button(`react-${type}`, h('span', { class: 'tally' }, ...label), () => this.#react(entry, type), comment.user_reaction === type));
      } else if (count > 0) {
        parts.push(h('span', { class: 'count tally' }, ...label));
      }
    }
    parts.push(h('span', { class: 'sep', 'aria-hidden': 'true' }));
    if (viewer.signed_in || site.allow_guests) parts.push(button('reply', t('reply'), () => this.#openReply(entry)));
    if (this.#editable(comment)) parts.push(button('edit', t('edit'), () => this.#openEdit(entry)));
    if (comment.user_is_author || viewer.moderator) parts.push(button('delete', t('delete'), () => this.#confirmDelete(entry)));
    if (!comment.user_is_author) parts.push(button('flag', t('flag'), () => this.#flag(entry)));
    if (!viewer.moderator) return [h('div', { class: 'actions' }, ...parts)];
    parts.push(button('mod', t('moderate'), () => ((entry.moderating = !entry.moderating), this.#fillBody(entry))));
    parts[parts.length - 1].setAttribute('aria-expanded', String(entry.moderating));
    if (!entry.moderating) return [h('div', { class: 'actions' }, ...parts)];
    const { status, moderation_status: hidden } = comment;
    const offered: Record<Moderation, boolean> = {
      approve: status !== 'published',
      remove: status !== 'removed',
      spam: status !== 'spam',
      shadow_ban: hidden !== 'shadow_banned',
      unhide: hidden === 'shadow_banned',
    };
    const moderation = MODERATIONS.filter((action) => offered[action]).map((action) => button(`mod-${action}`, t(`mod_${action}`), () => this.#moderate(entry, action)));
    return [h('div', { class: 'actions' }, ...parts), h('div', { class: 'actions mod', role: 'group', 'aria-label': t('moderate') }, ...moderation)];
  }

  /** Runs one call for a comment; a failure becomes the comment's inline message. */
  async #attempt<T>(entry: Entry, call: () => Promise<T>): Promise<T | null> {
    if (entry.busy) return null;
    entry.busy = true;
    entry.message.className = 'msg';
    entry.message.textContent = '';
    try {
      return await call();
    } catch (error) {
      this.#showProblem(entry.message, error);
      return null;
    } finally {
      entry.busy = false;
    }
  }

  async #vote(entry: Entry, type: 'up' | 'down'): Promise<void> {
    const path = `/v1/comments/${entry.data.id}/vote`;
    const undo = entry.data.user_vote === type;
    const result = await this.#attempt(entry, () =>
      undo ? this.#api.call<VoteResult>('DELETE', path) : this.#api.call<VoteResult>('POST', path, { vote_type: type }),
    );
    if (!result) return;
    Object.assign(entry.data, { upvotes: result.upvotes, downvotes: result.downvotes, user_vote: result.user_vote });
    this.#fillBody(entry);
  }

  async #react(entry: Entry, type: string): Promise<void> {
    const result = await this.#attempt(entry, () =>
      this.#api.call<ReactionResult>('POST', `/v1/comments/${entry.data.id}/react`, { reaction_type: type }),
    );
    if (!result) return;
    Object.assign(entry.data, result);
    this.#fillBody(entry);
  }

  async #flag(entry: Entry): Promise<void> {
    if (await this.#attempt(entry, () => this.#api.call('POST', `/v1/comments/${entry.data.id}/flag`, {}))) {
      entry.message.textContent = this.#t('flagged');
    }
  }

  async #moderate(entry: Entry, action: Moderation): Promise<void> {
    const result = await this.#attempt(entry, () =>
      this.#api.call<Pick<Comment, 'status' | 'moderation_status'>>('PATCH', `/v1/comments/${entry.data.id}/moderate`, { action }),
    );
    if (!result) return;
    // A shadow ban and its lifting change every comment of the author, so the thread is read again.
    if (action === 'shadow_ban' || action === 'unhide') {
      await this.#reloadList();
    } else {
      Object.assign(entry.data, { status: result.status, moderation_status: result.moderation_status });
      this.#fillBody(entry);
    }
    const done = this.#entries.get(entry.data.id);
    if (done) done.message.textContent = this.#t(`moderated_${action}`);
  }

  /** Opens a form (or a confirmation) under a comment; closing it gives the focus back to its button. */
  #open(entry: Entry, content: HTMLElement, returnKey: string): () => void {
    const close = () => {
      entry.slot.replaceChildren();
      entry.body.querySelector<HTMLElement>(`[data-k="${returnKey}"]`)?.focus();
    };
    entry.slot.replaceChildren(content);
    content.querySelector<HTMLElement>('textarea, [data-first]')?.focus();
    return close;
  }

  #openReply(entry: Entry): void {
    const close = this.#open(
      entry,
      this.#form({
        label: this.#t('replyTo', { name: entry.data.author_name }),
        submit: this.#t('sendReply'),
        guestName: !this.#settings.viewer.signed_in,
        notify: this.#settings.mail.enabled,
        onCancel: () => close(),
        onSubmit: async (content, name, website, notify) => {
          const reply = await this.#post(content, name, website, entry.data.id, notify);
          const early = this.#entries.get(reply.id);
          const element = this.#render(reply);
          // Its live announcement may have come first, drawn for the public: drawn again as the author's.
          if (early) early.element.replaceWith(element);
          else entry.replies.append(element);
          close();
          focusComment(element);
        },
      }),
      'reply',
    );
  }

  #openEdit(entry: Entry): void {
    const close = this.#open(
      entry,
      this.#form({
        label: this.#t('editLabel'),
        submit: this.#t('save'),
        initial: entry.data.content ?? '',
        guestName: false,
        onCancel: () => close(),
        onSubmit: async (content) => {
          const edited = await this.#api.call<Comment>('PATCH', `/v1/comments/${entry.data.id}`, { content });
          entry.data = { ...edited, replies: entry.data.replies };
          close();
          this.#fillBody(entry);
        },
      }),
      'edit',
    );
  }

  #confirmDelete(entry: Entry): void {
    const t = this.#t;
    const remove = async () => {
      // The focus goes to a neighbour (the comment before, after, or answered), not to the page's top.
      // It is chosen before the call: the stream may announce the deletion, and drop the comment, before the answer comes.
      const element = entry.element;
      const neighbour = (element.previousElementSibling ?? element.nextElementSibling ?? element.parentElement?.closest('article')) as HTMLElement | null;
      const deleted = await this.#attempt(entry, () => this.#api.call<Comment>('DELETE', `/v1/comments/${entry.data.id}`));
      if (!deleted) return;
      close();
      if (entry.replies.childElementCount > 0) {
        entry.data = { ...deleted, replies: entry.data.replies };
        this.#fillBody(entry);
        return;
      }
      if (this.#entries.get(entry.data.id) === entry) this.#drop(entry);
      if (neighbour?.isConnected && neighbour.matches('article')) focusComment(neighbour);
      else this.#status.focus();
    };
    const close = this.#open(
      entry,
      h(
        'div',
        { class: 'ask', role: 'group', 'aria-label': t('confirmDelete') },
        h('span', {}, t('confirmDelete')),
        h('button', { type: 'button', 'data-first': true, onclick: () => void remove() }, t('yesDelete')),
        h('button', { type: 'button', onclick: () => close() }, t('cancel')),
      ),
      'delete',
    );
  }

  /**
   * The next part of the replies a list left out of a top-level comment, from its cursor: each reply
   * goes under its parent (one shown meanwhile, as a live arrival, is not drawn twice); the button
   * stays while parts are left.
   */
  async #showMoreReplies(entry: Entry, button: HTMLButtonElement): Promise<void> {
    const after = encodeURIComponent(button.dataset.after!);
    const part = await this.#attempt(entry, () => this.#api.call<Comment>('GET', `/v1/comments/${entry.data.id}?limit=200&after=${after}`));
    if (!part) return;
    for (const reply of part.replies) {
      if (this.#entries.has(reply.id)) continue;
      (this.#entries.get(reply.parent_id!) ?? entry).replies.append(this.#render(reply));
    }
    if (part.next_cursor) button.dataset.after = part.next_cursor;
    else button.remove();
  }

  async #showAllReplies(entry: Entry, button: HTMLButtonElement): Promise<void> {
    const replies = await this.#attempt(entry, () => this.#wholeSubtree(entry.data.id));
    if (!replies) return;
    entry.replies.replaceChildren(...replies.map((reply) => this.#render(reply)));
    button.remove();
  }

  /**
   * A comment's replies, fetched part after part (GET /v1/comments/:id answers at most 200 at once):
   * a reply whose parent came in an earlier part is put under it.
   */
  async #wholeSubtree(id: string): Promise<Comment[]> {
    const top: Comment[] = [];
    const byId = new Map<string, Comment>();
    const keep = (reply: Comment): void => {
      byId.set(reply.id, reply);
      reply.replies.forEach(keep);
    };
    let after: string | null = null;
    do {
      const query: string = after === null ? '' : `&after=${encodeURIComponent(after)}`;
      const part: Comment & { next_cursor: string | null } = await this.#api.call('GET', `/v1/comments/${id}?limit=200${query}`);
      for (const reply of part.replies) {
        (reply.parent_id === id ? top : byId.get(reply.parent_id!)?.replies)?.push(reply);
        keep(reply);
      }
      after = part.next_cursor;
    } while (after !== null);
    // Cut between parts, a reply has all its replies now; one cut for depth (none below it here) keeps its button.
    for (const reply of byId.values()) reply.has_more_replies &&= reply.replies.length === 0;
    return top;
  }

  #showProblem(target: HTMLElement, error: unknown): void {
    showProblem(target, error, this.#t);
  }
}

/** A comment takes the focus (a screen reader reads it out) without joining the tab order. */
function focusComment(element: HTMLElement): void {
  element.tabIndex = -1;
  element.focus();
}
