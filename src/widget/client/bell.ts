import type { Api } from './api.ts';
import { h } from './dom.ts';
import type { Translate } from './strings.ts';

/**
 * The signed-in reader's bell: "Notifications" and the number of unread ones, which its name says
 * in words; a change that arrives while the page is open is also told to `say` (a polite live region).
 */
export function bell(t: Translate, unread: number, open: (button: HTMLButtonElement) => void, say: (words: string) => void): { button: HTMLButtonElement; set: (unread: number) => void } {
  // Seen: the word and the number; heard: both in one phrase (its first word the one seen, so voice control finds it).
  const count = h('span', { class: 'badge unread' });
  const name = h('span', { class: 'sr' });
  const button = h('button', { type: 'button', 'data-k': 'bell', 'aria-haspopup': 'dialog', onclick: () => open(button) }, h('span', { 'aria-hidden': 'true' }, t('bell.title'), count), name);
  const set = (value: number) => {
    const words = t('bell.button', { count: value });
    if (value !== unread) say(words);
    unread = value;
    count.textContent = String(value || '');
    name.textContent = words;
  };
  set(unread);
  return { button, set };
}

/**
 * The Follow toggle of the thread: pressed while the reader follows it. Its state is read once the
 * widget is drawn; a failure to read it leaves the toggle out, a failure to change it is said in `message`.
 */
export function followToggle(t: Translate, api: Api, siteId: string, threadUrl: string, message: (error: unknown) => void): HTMLButtonElement {
  let id: string | null = null;
  let busy = false;
  const show = (following: { id: string } | undefined) => {
    id = following?.id ?? null;
    button.setAttribute('aria-pressed', String(id !== null));
    button.textContent = t(id === null ? 'follow.follow' : 'follow.following');
    button.hidden = false;
  };
  const toggle = async () => {
    if (busy) return;
    busy = true;
    try {
      show(id === null ? await api.call<{ id: string }>('POST', '/v1/follows', { site_id: siteId, thread_url: threadUrl }) : void (await api.call('DELETE', `/v1/follows/${id}`)));
    } catch (error) {
      message(error);
    }
    busy = false;
  };
  const button = h('button', { type: 'button', 'data-k': 'follow', hidden: true, onclick: () => void toggle() });
  api.call<{ follows: Array<{ id: string }> }>('GET', `/v1/follows?${new URLSearchParams({ site_id: siteId, thread_url: threadUrl })}`).then(
    (answer) => show(answer.follows[0]),
    () => undefined,
  );
  return button;
}
