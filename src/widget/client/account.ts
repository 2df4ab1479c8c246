import type { Comment, OpenDialogHost } from './api.ts';

/** GET /v1/me (src/readers). */
interface Me {
  user: { id: string; name: string; avatar_url: string | null; own_account: boolean };
  sign_in_methods: Way[];
  /** `mention_mail`: whether mentions are mailed (PATCH /v1/me {mention_mail}); absent from a server that does not mail them. */
  mail: { notify_replies: boolean; mention_mail?: boolean };
  claimable_guest_comments: number;
}

interface Way {
  id: string;
  type: string;
  provider_name: string | null;
  email: string | null;
  last_used_at: string | null;
}

const COMMENTS_PAGE = 10;
let fieldIds = 0;

/**
 * "Your account": the reader's name, how they sign in, their comments here, their mail default,
 * their guest comments to claim, their data to download, signing out and deleting the account.
 * What changes the thread (a new name, claimed comments) draws the widget again once it closes.
 */
export function openAccount(host: OpenDialogHost): void {
  const { h, modal, submitted, fullDate, relativeTime, showProblem } = host.kit;
  const t = host.t;
  const status = h('p', { class: 'msg', role: 'status' });
  const body = h('div', { class: 'account' }, status);
  let changed = false;
  const dialog = modal(host.root, t('yourAccount'), t('close'), body);
  dialog.addEventListener('close', () => changed && host.refresh());
  dialog.setAttribute('aria-busy', 'true');
  const section = (title: string, ...content: Array<Node | false | null>) => h('section', {}, h('h4', {}, title), ...content);

  const nameSection = (me: Me) => {
    if (!me.user.own_account) return section(t('yourName'), h('p', { dir: 'auto' }, me.user.name));
    const id = `parley-account-${++fieldIds}`;
    const input = h('input', { id, name: 'name', autocomplete: 'nickname', required: true, maxlength: 100 });
    input.value = me.user.name;
    const saved = h('p', { class: 'msg', role: 'status' });
    const save = async () => {
      await host.api.call('PATCH', '/v1/me', { name: input.value.trim() });
      changed = true;
      saved.className = 'msg';
      saved.textContent = t('nameSaved');
    };
    return h(
      'section',
      {},
      h('form', { class: 'inline', onsubmit: submitted(save, (error) => showProblem(saved, error, t)) }, h('label', { for: id }, t('yourName')), input, h('button', { type: 'submit' }, t('save'))),
      saved,
    );
  };

  const waysSection = (me: Me) => {
    const list = h('ul', { class: 'ways' });
    const message = h('p', { class: 'msg', role: 'status' });
    const draw = (ways: Way[]) =>
      list.replaceChildren(
        ...ways.map((way) => {
          const name = way.type === 'email' ? t('wayEmail', { email: way.email ?? '' }) : way.email ? t('wayProviderEmail', { provider: way.provider_name ?? way.type, email: way.email }) : (way.provider_name ?? way.type);
          const remove = async () => {
            try {
              draw((await host.api.call<Me>('DELETE', `/v1/me/sign-in-methods/${encodeURIComponent(way.id)}`)).sign_in_methods);
              list.querySelector('button')?.focus();
            } catch (error) {
              showProblem(message, error, t);
            }
          };
          return h(
            'li',
            {},
            h('span', {}, name),
            way.last_used_at && h('span', { class: 'when' }, t('lastUsed', { date: relativeTime(way.last_used_at, host.lang) })),
            // The last way in stays: without it the reader could never sign in again.
            ways.length > 1 && h('button', { type: 'button', 'aria-label': t('removeWay', { way: name }), onclick: () => void remove() }, t('remove')),
          );
        }),
      );
    draw(me.sign_in_methods);
    return section(t('waysIn'), list, message);
  };

  const mailSection = (me: Me) => {
    const message = h('p', { class: 'msg', role: 'status' });
    /** A box saved as soon as it changes; a refusal puts it back. */
    const setting = (label: string, checked: boolean, save: (checked: boolean) => Promise<unknown>) => {
      const id = `parley-account-${++fieldIds}`;
      const box = h('input', { id, type: 'checkbox', class: 'check', checked });
      box.addEventListener('change', async () => {
        message.textContent = '';
        try {
          await save(box.checked);
        } catch (error) {
          box.checked = !box.checked;
          showProblem(message, error, t);
        }
      });
      return h('p', {}, box, h('label', { for: id }, label));
    };
    return h(
      'section',
      {},
      setting(t('mailDefault'), me.mail.notify_replies, (checked) => host.api.call('PUT', '/v1/sessions/current/mail', { notify_replies: checked })),
      me.mail.mention_mail !== undefined && setting(t('mentionMail'), me.mail.mention_mail, (checked) => host.api.call('PATCH', '/v1/me', { mention_mail: checked })),
      message,
    );
  };

  const claimSection = (count: number) => {
    const message = h('p', { class: 'msg', role: 'status' });
    const claim = async () => {
      try {
        const { claimed } = await host.api.call<{ claimed: number }>('POST', '/v1/me/guest-comments/claim', {});
        changed = true;
        button.remove();
        message.textContent = t('claimed', { count: claimed });
      } catch (error) {
        showProblem(message, error, t);
      }
    };
    const button = h('button', { type: 'button', onclick: () => void claim() }, t('claim', { count }));
    return h('section', {}, h('p', {}, t('claimHint')), button, message);
  };

  const commentsSection = () => {
    const list = h('ol', { class: 'mine' });
    const message = h('p', { class: 'msg', role: 'status' });
    const more = h('button', { type: 'button', hidden: true, onclick: () => void load() }, t('more'));
    let cursor: string | null = null;
    /** The first page, then the next from "More", whose first comment takes the focus (the button may go). */
    const load = async () => {
      try {
        const query = new URLSearchParams({ limit: String(COMMENTS_PAGE), ...(cursor && { cursor }) });
        const page = await host.api.call<{ comments: Array<Comment & { thread_title: string | null }>; next_cursor: string | null }>('GET', `/v1/me/comments?${query}`);
        const first = list.childElementCount;
        list.append(...page.comments.map((comment) => mine(comment)));
        if (first > 0) (list.children[first]?.querySelector('a') as HTMLElement | null)?.focus();
        if (first === 0 && page.comments.length === 0) message.textContent = t('noComments');
        cursor = page.next_cursor;
        more.hidden = cursor === null;
      } catch (error) {
        showProblem(message, error, t);
      }
    };
    const mine = (comment: Comment & { thread_title: string | null }) =>
      h(
        'li',
        {},
        h('a', { href: comment.thread_url, dir: 'auto' }, comment.is_deleted ? t('deleted') : excerpt(comment.content ?? '')),
        comment.thread_title && h('span', { class: 'when', dir: 'auto' }, comment.thread_title),
        h('span', { class: 'when' }, h('time', { datetime: comment.created_at, title: fullDate(comment.created_at, host.lang) }, relativeTime(comment.created_at, host.lang))),
        comment.status === 'pending' && h('span', { class: 'badge' }, t('status_pending')),
      );
    void load();
    return section(t('yourComments'), list, message, more);
  };

  const dataSection = () => {
    const message = h('p', { class: 'msg', role: 'status' });
    const download = async () => {
      try {
        const file = await (await host.api.fetch('GET', '/v1/me/export')).blob();
        const link = h('a', { href: URL.createObjectURL(file), download: `parley-${host.siteId}-my-data.json`, hidden: true });
        body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      } catch (error) {
        showProblem(message, error, t);
      }
    };
    return section(t('yourData'), h('p', {}, t('downloadHint')), h('button', { type: 'button', onclick: () => void download() }, t('download')), message);
  };

  const leaveSection = (me: Me) => {
    const message = h('p', { class: 'msg', role: 'status' });
    const confirmation = h('div', { class: 'confirm', hidden: true, role: 'group', 'aria-label': t('deleteAccount') });
    const remove = async () => {
      try {
        const answer = await host.api.call<{ erased: boolean; erase_after: string | null }>('DELETE', '/v1/me');
        dialog.close();
        host.signOut(answer.erase_after ? t('deletionPending', { date: fullDate(answer.erase_after, host.lang) }) : t('deletedNow'));
      } catch (error) {
        showProblem(message, error, t);
      }
    };
    const ask = h('button', { type: 'button', class: 'danger', 'aria-expanded': 'false', onclick: () => toggle(true) }, t('deleteAccount'));
    const toggle = (open: boolean) => {
      confirmation.hidden = !open;
      ask.setAttribute('aria-expanded', String(open));
      (open ? (confirmation.querySelector('button') as HTMLElement) : ask).focus();
    };
    const grace = host.settings.sign_in.erase_grace_seconds;
    confirmation.append(
      h('p', {}, t('deleteWarning')),
      h('p', {}, grace > 0 ? t('deleteGrace', { when: inTime(grace, host.lang) }) : t('deleteAtOnce')),
      h('button', { type: 'button', class: 'danger', onclick: () => void remove() }, t('yesDeleteAccount')),
      h('button', { type: 'button', onclick: () => toggle(false) }, t('cancel')),
    );
    return h(
      'section',
      { class: 'leave' },
      h('div', { class: 'actions' }, host.ownSession && h('button', { type: 'button', onclick: () => (dialog.close(), host.signOut(null)) }, t('signOut')), me.user.own_account && ask),
      confirmation,
      message,
    );
  };

  host.api.call<Me>('GET', '/v1/me').then(
    (me) => {
      const sections = [
        nameSection(me),
        waysSection(me),
        host.settings.mail.enabled && mailSection(me),
        me.claimable_guest_comments > 0 && claimSection(me.claimable_guest_comments),
        commentsSection(),
        dataSection(),
        leaveSection(me),
      ];
      body.replaceChildren(...sections.filter((part) => part !== false));
      dialog.removeAttribute('aria-busy');
    },
    (error) => showProblem(status, error, t),
  );
}

/** "in 7 days", "in 12 hours": the grace period as it is set, not rounded to weeks as relative times are. */
function inTime(seconds: number, lang: string): string {
  const [value, unit]: [number, Intl.RelativeTimeFormatUnit] = seconds >= 86_400 ? [Math.round(seconds / 86_400), 'day'] : seconds >= 3_600 ? [Math.round(seconds / 3_600), 'hour'] : [Math.ceil(seconds / 60), 'minute'];
  return new Intl.RelativeTimeFormat(lang, { numeric: 'always' }).format(value, unit);
}

/** A comment's first words, for the list of the reader's comments. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
