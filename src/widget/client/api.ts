import type { CommentView } from '../../comments/view.ts';
import type { fullDate, h, modal, relativeTime, submitted } from './dom.ts';
import type { GuestFormSettings } from './guest-form.ts';
import type { Locale } from '../../i18n/locales.ts';
import type { Values } from '../../i18n/runtime.ts';
import { problemMessage, retryAfterSeconds, type DialogKey, type Messages, type ProblemLike, type Translate, type translator, type WidgetKey } from './strings.ts';

/**
 * The API's comment, as the server defines it (a type only: nothing of the server is bundled). A
 * list's top-level comment also says where the replies its list left out continue (`next_cursor`).
 */
export type Comment = CommentView & { next_cursor?: string | null };

export interface CommentPage {
  comments: Comment[];
  total: number;
  page: number;
}

export interface WidgetSettings {
  site: {
    id: string;
    name: string;
    allow_guests: boolean;
    reactions: string[];
    live_updates: boolean;
    formatting: 'markdown' | 'plain';
    edit_window_seconds: number | null;
    /** The site's language, where neither the element nor the page names one. */
    language: string | null;
    /** Where a reader contests a moderator's decision (an https URL, a mailto: or an address). */
    contact?: string | null;
  };
  viewer: { signed_in: boolean; name: string | null; moderator: boolean; user_id: string | null; avatar_url: string | null; own_account: boolean };
  sign_in: { email: boolean; providers: Array<{ id: string; name: string; type: string }>; erase_grace_seconds: number };
  mail: { enabled: boolean; address_known: boolean; notify_replies: boolean };
  /** What a guest's comment is sent with; null for a signed-in reader. */
  form: GuestFormSettings | null;
  /** The site's own words for the language asked (else its own), compiled. */
  strings: Messages;
  /** A signed-in reader's bell: the unread count and the key that adds it to the thread's stream; null for guests. */
  notifications?: { unread: number; stream_key: string } | null;
}

export class ApiProblem extends Error implements ProblemLike {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfter: number | null,
    readonly errors?: Array<{ path: string; message: string }>,
  ) {
    super(detail);
  }
}

/** A failed call as the reader reads it, in `target`; `words` picks other words for some problems. */
export function showProblem(target: HTMLElement, error: unknown, t: (key: WidgetKey, values?: Values) => string, words: (problem: ApiProblem) => string | null = () => null): void {
  const problem = error instanceof ApiProblem ? error : new ApiProblem(0, 'network', String(error), null);
  target.className = 'msg error';
  target.textContent = words(problem) ?? problemMessage(problem, t);
}

/**
 * The widget's only channel to Parley: bearer token in a header, never cookies. Every call says the
 * reader's language (Accept-Language, which needs no CORS preflight), once the widget knows it.
 */
export class Api {
  constructor(
    readonly base: string,
    private readonly token: string | null,
    private readonly language: string | null = null,
  ) {}

  /** The same session, speaking `language`. */
  speaking(language: string): Api {
    return new Api(this.base, this.token, language);
  }

  /** The answer itself, for a call whose body is not JSON to read (a download); fails as `call` does. */
  async fetch(method: string, path: string, body?: unknown): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (this.language) headers['accept-language'] = this.language;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiProblem(0, 'network', '', null);
    }
    if (response.ok) return response;
    const data = await response.json().catch(() => null);
    throw new ApiProblem(response.status, data?.code ?? 'error', data?.detail ?? '', retryAfterSeconds(response.headers.get('retry-after')), data?.errors);
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.fetch(method, path, body);
    return (await response.json().catch(() => null)) as T;
  }
}

/**
 * The widget's helpers, lent to the dialogs' module (loaded on demand, src/widget/bundle.ts) so it
 * carries no copy of them: a copy's ApiProblem would not be the class the widget's Api throws.
 */
export interface DialogKit {
  h: typeof h;
  modal: typeof modal;
  submitted: typeof submitted;
  fullDate: typeof fullDate;
  relativeTime: typeof relativeTime;
  translator: typeof translator;
  showProblem: typeof showProblem;
}

/** What the sign-in and account dialogs need of the widget that opened them. */
export interface DialogHost {
  kit: DialogKit;
  api: Api;
  t: Translate;
  /** The widget's messages in the reader's language, the dialogs' among them (English is the module's). */
  messages: Messages;
  /** The reader's locale, for dates and times. */
  lang: Locale;
  siteId: string;
  settings: WidgetSettings;
  /** The widget's root element, which carries its `lang` and `dir`: dialogs open in it. */
  root: HTMLElement;
  /** The session is the one the widget keeps (not one the page gave it), so the reader can sign out. */
  ownSession: boolean;
  /** The reader signed in: the widgets of the site keep the session and draw themselves again. */
  signedIn(token: string): void;
  /** Ends the reader's session, here and on the server; `notice` is said once the widget is drawn again. */
  signOut(notice: string | null): void;
  /** Draws the widget again (the reader's name or comments changed). */
  refresh(): void;
  /** The widget's thread: a notification about it opens here, without loading the page again. */
  threadUrl: string;
  /** Marks, scrolls to and focuses a comment of the thread when the widget shows it; false when it does not. */
  showComment(id: string): boolean;
  /** The bell shows this count of unread notifications. */
  setUnread(unread: number): void;
  /** The folder of the locale files, where the bell's panel finds its words (`de.bell.json`). */
  localesUrl: string;
}

/** The host as a dialog sees it: with every word it shows (the site's, over the English ones of the dialogs' module). */
export type OpenDialogHost = Omit<DialogHost, 't'> & { t: Translate<WidgetKey | DialogKey> };
