import type { OpenDialogHost } from './api.ts';

/** GET /v1/notifications (src/notifications). */
interface Notification {
  id: string;
  kind: 'reply' | 'mention' | 'followed_thread' | 'moderation';
  comment_id: string;
  thread_url: string;
  thread_title: string | null;
  created_at: string;
  read: boolean;
  author_name: string;
  /** The comment's first words; empty when the public cannot see it. */
  excerpt: string;
  action?: 'held' | 'approved' | 'removed' | 'spam' | 'contest_upheld';
  reason?: string | null;
}

interface NotificationPage {
  notifications: Notification[];
  next_cursor: string | null;
  unread: number;
}

const PAGE = 20;
/** The panel's own looks, which embed.js need not carry (its dialog's come from the widget's styles). */
const STYLES = `
.tools{margin:0 0 8px}
.notes{list-style:none;margin:0;padding:0}
.notes li{border-top:1px solid var(--parley-border);padding:8px 0;padding-inline-start:12px}
.notes .fresh{border-inline-start:3px solid var(--parley-accent)}
.notes p{margin:0 0 4px}
.notes .what{font-weight:600}
.notes blockquote{margin:0 0 4px;padding-inline-start:8px;border-inline-start:3px solid var(--parley-border);color:var(--parley-muted);overflow-wrap:anywhere}
.contest form{margin:6px 0 0}
`;
/** Decisions a reader may ask a moderator to look at again (POST /v1/comments/:id/contest). */
const CONTESTABLE = new Set(['held', 'removed', 'spam']);
let fieldIds = 0;

/**
 * The bell's panel: the reader's notifications, newest first, each saying what happened, by whom,
 * on which page (when another), and when. One that points to a comment opens it and counts as read;
 * a moderator's decision is read in full here, so it counts as read once shown, and says how to
 * contest it. On the widget's own page a comment opens without loading the page again.
 */
export function openNotifications(host: OpenDialogHost): void {
  const { h, modal, submitted, fullDate, relativeTime, showProblem } = host.kit;
  const t = host.t;
  const status = h('p', { class: 'msg', role: 'status' });
  const list = h('ul', { class: 'notes' });
  const more = h('button', { type: 'button', hidden: true, onclick: () => void load() }, t('more'));
  const markAll = h('button', { type: 'button', onclick: () => void read({ all: true }) }, t('bell.markAll'));
  const dialog = modal(host.root, t('bell.title'), t('close'), h('style', {}, STYLES), h('div', { class: 'tools' }, markAll), status, list, more);
  dialog.setAttribute('aria-busy', 'true');
  const items = new Map<string, { note: Notification; element: HTMLElement }>();
  let cursor: string | null = null;

  /** Marks notifications read on the server, then here: their marks go and the bell shows the new count. */
  const read = async (which: { ids: string[] } | { all: true }) => {
    try {
      const { unread } = await host.api.call<{ unread: number }>('POST', '/v1/notifications/read', { site_id: host.siteId, ...which });
      for (const { note, element } of items.values()) {
        if ('all' in which || which.ids.includes(note.id)) {
          note.read = true;
          element.classList.remove('fresh');
          element.querySelector('.sr.mark')?.remove();
        }
      }
      host.setUnread(unread);
    } catch (error) {
      showProblem(status, error, t);
    }
  };

  /** Opens a notification's comment: here if the widget shows it, else at its page, which opens on it. */
  const open = async (event: MouseEvent, note: Notification, href: string) => {
    const unread = !note.read && read({ ids: [note.id] });
    // A new tab or window is the browser's to open.
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    await unread;
    if (note.thread_url !== host.threadUrl) return location.assign(href);
    // Shown once the dialog has given the focus back to the bell, so the comment keeps it.
    dialog.addEventListener('close', () => host.showComment(note.comment_id) || (location.assign(href), location.reload()));
    dialog.close();
  };

  const item = (note: Notification) => {
    const href = `${note.thread_url}#parley_comment=${encodeURIComponent(note.comment_id)}`;
    const decision = note.kind === 'moderation' ? (note.action ?? 'removed') : null;
    const what = note.kind === 'moderation' ? t(`bell.${decision!}`) : t(`bell.${note.kind}`, { name: note.author_name });
    // A comment the reader can see is a link: everyone's, and their own while held or once approved.
    const linked = decision === null || decision === 'held' || decision === 'approved';
    const element = h(
      'li',
      { class: note.read ? '' : 'fresh' },
      !note.read && h('span', { class: 'sr mark' }, t('bell.unread')),
      h('p', { class: 'what' }, linked ? h('a', { href, onclick: (event) => void open(event as MouseEvent, note, href) }, what) : what),
      note.reason && h('p', { dir: 'auto' }, t('bell.reason', { reason: note.reason })),
      note.excerpt && h('blockquote', { dir: 'auto' }, note.excerpt),
      h(
        'p',
        { class: 'when' },
        note.thread_url !== host.threadUrl && h('span', { dir: 'auto' }, t('bell.onPage', { page: note.thread_title || note.thread_url.replace(/^https?:\/\//, '') }), ' · '),
        h('time', { datetime: note.created_at, title: fullDate(note.created_at, host.lang) }, relativeTime(note.created_at, host.lang)),
      ),
      decision && CONTESTABLE.has(decision) && contest(note),
      decision && decision !== 'approved' && contactLink(),
    );
    items.set(note.id, { note, element });
    return element;
  };

  /** "Contest this decision", opening a short form for the reader's message to the moderators. */
  const contest = (note: Notification) => {
    const id = `parley-contest-${++fieldIds}`;
    const text = h('textarea', { id, required: true, maxlength: 2000, rows: 3, dir: 'auto' });
    const said = h('p', { class: 'msg', role: 'status', tabindex: -1 });
    const send = async () => {
      await host.api.call('POST', `/v1/comments/${encodeURIComponent(note.comment_id)}/contest`, { message: text.value.trim() });
      form.remove();
      ask.remove();
      said.className = 'msg';
      said.textContent = t('bell.contested');
      said.focus();
    };
    const refused = (error: unknown) => showProblem(said, error, t, (problem) => (problem.code === 'conflict' ? t('bell.contestOpen') : null));
    const form = h(
      'form',
      { hidden: true, onsubmit: submitted(send, refused) },
      h('label', { for: id }, t('bell.contestLabel')),
      text,
      h('button', { type: 'submit', class: 'primary' }, t('bell.contestSend')),
    );
    const ask = h('button', { type: 'button', 'aria-expanded': 'false', onclick: () => toggle() }, t('bell.contest'));
    const toggle = () => {
      form.hidden = !form.hidden;
      ask.setAttribute('aria-expanded', String(!form.hidden));
      if (!form.hidden) text.focus();
    };
    return h('div', { class: 'contest' }, ask, form, said);
  };

  /** The site's contact, where it gave one: an https page (opened beside this one) or a mailto: link, as the server keeps it. */
  const contactLink = () => {
    const href = host.settings.site.contact;
    return href && h('p', {}, h('a', { href, ...(href.startsWith('https:') && { target: '_blank', rel: 'noopener' }) }, t('bell.contact')));
  };

  /** The first page, then the next from "More", whose first notification takes the focus (the button may go). */
  const load = async () => {
    try {
      const query = new URLSearchParams({ site_id: host.siteId, limit: String(PAGE), ...(cursor && { cursor }) });
      const page = await host.api.call<NotificationPage>('GET', `/v1/notifications?${query}`);
      const first = list.childElementCount;
      list.append(...page.notifications.map(item));
      if (first > 0) focusIn(list.children[first] as HTMLElement | undefined);
      if (first === 0 && page.notifications.length === 0) status.textContent = t('bell.empty');
      cursor = page.next_cursor;
      more.hidden = cursor === null;
      host.setUnread(page.unread);
      const notices = page.notifications.filter((note) => note.kind === 'moderation' && !note.read).map((note) => note.id);
      if (notices.length > 0) {
        const { unread } = await host.api.call<{ unread: number }>('POST', '/v1/notifications/read', { site_id: host.siteId, ids: notices });
        host.setUnread(unread);
      }
    } catch (error) {
      showProblem(status, error, t);
    }
    dialog.removeAttribute('aria-busy');
  };
  void load();
}

/** A notification's link, or the notification itself, takes the focus. */
function focusIn(element: HTMLElement | undefined): void {
  const target = element?.querySelector<HTMLElement>('a, button') ?? element;
  if (target && !target.matches('a, button')) target.tabIndex = -1;
  target?.focus();
}
