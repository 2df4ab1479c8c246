import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, must } from '../client/api.ts';
import { ACTION_LABELS, actionsFor, expected, type Action, type QueueItem } from './queue/actions.ts';
import { BanDialog } from './queue/ban-dialog.tsx';
import { AuthorName, statusText, threadName } from './queue/card.tsx';
import { SHORTCUTS, ShortcutHelp, useShortcuts } from './queue/shortcuts.tsx';
import { t, type MessageKey } from './i18n.ts';
import { EarlierVersions } from './revisions.tsx';
import { AuthorDrawer } from './drawer.tsx';
import { href, navigate, withQuery } from './router.ts';
import { ReplyForm } from './thread-reply.tsx';
import { ago, Empty, Link, Loaded, notify, useLoad } from './ui.tsx';

/** At most this many comments of a thread are drawn (500 is far beyond a thread anyone reads through). */
const MAX_PAGES = 5;

/** Pinned comments a thread holds at most (the server's rule, said before it refuses). */
const MAX_PINNED = 3;

/** The queue's keys that act on one comment work here too; `/` (search) has no place in a thread. */
const THREAD_SHORTCUTS: Array<[string, MessageKey]> = [
  ...SHORTCUTS.filter(([key]) => 'jkarsbx'.includes(key)),
  ['u', 'thread.keyBack'],
  ['?', 'shortcuts.show'],
];

/** Decisions the thread's bulk bar offers for the comments selected with `x`. */
const BULK: Action[] = ['approve', 'remove', 'spam'];

async function wholeThread(siteId: string, url: string): Promise<{ items: QueueItem[]; cut: boolean }> {
  const items: QueueItem[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await must(api.GET('/api/comments', { params: { query: { site_id: siteId, thread_url: url, status: 'all', sort: 'oldest', limit: 100, ...(cursor && { cursor }) } } }));
    items.push(...answer.comments);
    if (!answer.next_cursor) return { items, cut: false };
    cursor = answer.next_cursor;
  }
  return { items, cut: true };
}

/** Where "back to the queue" leads: the queue as the moderator left it (its tab and search), and never off the dashboard. */
export function queueAddress(from: string | null, siteId: string): string {
  const queue = href('queue');
  if (from && (from === queue || from.startsWith(`${queue}?`))) return from;
  return `${queue}?site=${encodeURIComponent(siteId)}`;
}

/** Replies under their parents, each level oldest first; a reply whose parent is not listed (beyond what was read) at the top. */
function treeOf(items: QueueItem[]) {
  const children = new Map<string | null, QueueItem[]>();
  const ids = new Set(items.map((item) => item.id));
  for (const item of items) {
    const parent = item.parent_id && ids.has(item.parent_id) ? item.parent_id : null;
    children.set(parent, [...(children.get(parent) ?? []), item]);
  }
  const order: QueueItem[] = [];
  const walk = (parent: string | null) => {
    for (const item of children.get(parent) ?? []) {
      order.push(item);
      walk(item.id);
    }
  };
  walk(null);
  return { children, order };
}

/**
 * A comment in its thread: the whole conversation around it, every comment moderated in place with
 * the queue's keys, the comment the moderator came from marked, and replies written as staff.
 */
export function ThreadView(props: { url: URL }) {
  const siteId = props.url.searchParams.get('site') ?? '';
  const threadUrl = props.url.searchParams.get('url') ?? '';
  const origin = props.url.searchParams.get('comment');
  const back = queueAddress(props.url.searchParams.get('from'), siteId);
  const drawer = props.url.searchParams.get('author');
  const drawerSite = props.url.searchParams.get('author_site');
  const [load, reload, update] = useLoad(() => wholeThread(siteId, threadUrl), [siteId, threadUrl]);
  const [closing, setClosing] = useState(false);
  const [current, setCurrent] = useState<string | null>(origin);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [replying, setReplying] = useState<string | null>(null);
  const [banning, setBanning] = useState<QueueItem | null>(null);
  const [help, setHelp] = useState(false);
  /** A comment to give the focus to once it is drawn (a reply just posted). */
  const focusWhenDrawn = useRef<string | null>(null);

  const items = load.state === 'ready' ? load.data.items : [];
  const { children, order } = treeOf(items);
  const at = order.findIndex((item) => item.id === current);
  const focused = at >= 0 ? order[at] : undefined;

  const focusComment = (id: string) => {
    setCurrent(id);
    const element = document.getElementById(`c-${id}`);
    element?.scrollIntoView({ block: 'nearest' });
    element?.focus({ preventScroll: true });
  };
  const move = (index: number) => {
    const next = order[Math.max(0, Math.min(order.length - 1, index))];
    if (next) focusComment(next.id);
  };

  // The comment the moderator came from: in view, and holding the focus, so the keys start there.
  useEffect(() => {
    if (load.state !== 'ready' || !origin) return;
    const element = document.getElementById(`c-${origin}`);
    element?.scrollIntoView({ block: 'center' });
    element?.focus({ preventScroll: true });
  }, [load.state, origin]);

  useEffect(() => {
    const id = focusWhenDrawn.current;
    if (id && document.getElementById(`c-${id}`)) {
      focusWhenDrawn.current = null;
      focusComment(id);
    }
  });

  const replace = (changed: (item: QueueItem) => QueueItem | undefined) =>
    update((data) => ({ ...data, items: data.items.map((item) => changed(item) ?? item) }));

  const moderate = async (chosen: QueueItem[], action: Action) => {
    const before = new Map(chosen.map((item) => [item.id, item]));
    replace((item) => (before.has(item.id) ? expected(item, action) : undefined));
    setSelected(new Set());
    try {
      const { results } = await must(api.POST('/api/comments/moderate', { body: { ids: [...before.keys()], action } }));
      const done = results.filter((result) => result.ok);
      if (done.length === 1) notify(t('queue.done', { action, name: before.get(done[0].id)!.author_name }));
      else if (done.length > 1) notify(t('queue.doneCount', { action, count: done.length }));
      for (const result of results) {
        if (result.ok) continue;
        replace((item) => (item.id === result.id ? before.get(item.id) : undefined));
        notify(t('queue.refusedOne', { action, id: result.id, error: result.error.detail }), 'error');
      }
    } catch (error) {
      replace((item) => before.get(item.id));
      notify(t('queue.actionFailed', { action, error: errorText(error) }), 'error');
    }
  };

  /** A decision by key: on the comment in focus, which keeps its place, and the focus goes on to the next one. */
  const decide = (action: Action) => {
    if (!focused || !actionsFor(focused).includes(action)) return;
    void moderate([focused], action);
    if (at + 1 < order.length) move(at + 1);
  };

  const toggle = (id: string) =>
    setSelected((chosen) => {
      const next = new Set(chosen);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  const onComment = () => document.activeElement?.classList.contains('tree-comment') ?? false;
  useShortcuts(!banning && !help && !drawer, {
    // The first j or k goes to the comment that is current (the one come from, else the first), then moves.
    j: () => move(onComment() ? at + 1 : Math.max(at, 0)),
    k: () => move(onComment() ? at - 1 : Math.max(at, 0)),
    a: () => decide('approve'),
    r: () => decide('remove'),
    s: () => decide('spam'),
    b: () => focused?.author.kind === 'user' && setBanning(focused),
    x: () => focused && toggle(focused.id),
    u: () => navigate(back),
    Escape: () => navigate(back),
    '?': () => setHelp(true),
  });

  const setPinned = async (item: QueueItem, pinned: boolean) => {
    const path = { params: { path: { id: item.id } } };
    try {
      const comment = await must(pinned ? api.POST('/api/comments/{id}/pin', path) : api.DELETE('/api/comments/{id}/pin', path));
      replace((c) => (c.id === item.id ? { ...c, pinned: comment.pinned } : undefined));
      notify(t(pinned ? 'thread.pinnedDone' : 'thread.unpinnedDone', { name: item.author_name }));
    } catch (error) {
      notify(t('thread.pinFailed', { pin: pinned ? 'yes' : 'no', error: errorText(error) }), 'error');
    }
  };

  const posted = (to: QueueItem, reply: QueueItem | null) => {
    setReplying(null);
    notify(t('thread.replied', { name: to.author_name }));
    if (!reply) return void reload();
    update((data) => ({ ...data, items: [...data.items, reply] }));
    focusWhenDrawn.current = reply.id;
  };

  if (!siteId || !threadUrl) return <Empty>{t('thread.noThread')}</Empty>;

  return (
    <section class="thread" aria-labelledby="thread-title">
      <Loaded load={load} retry={reload} loading="thread.loading" failed="thread.loadFailed">
        {({ cut }) => {
          const first = items[0];
          const pinsFull = items.filter((item) => item.pinned).length >= MAX_PINNED;
          const branch = (parent: string | null, depth: number) => (
            <ol class={depth === 0 ? 'tree' : 'replies'}>
              {(children.get(parent) ?? []).map((item) => (
                <li key={item.id}>
                  <article
                    id={`c-${item.id}`}
                    class={`tree-comment${item.id === current ? ' focused' : ''}${item.id === origin ? ' origin' : ''}${selected.has(item.id) ? ' selected' : ''}`}
                    tabIndex={item.id === (focused ?? order[0])?.id ? 0 : -1}
                    aria-label={t('queue.cardLabel', { name: item.author_name, status: statusText(item) })}
                    aria-current={item.id === origin ? 'location' : undefined}
                    onFocus={(event) => event.target === event.currentTarget && setCurrent(item.id)}
                  >
                    {item.id === origin && <p class="origin-mark">{t('thread.origin')}</p>}
                    <div class="card-head">
                      <input type="checkbox" checked={selected.has(item.id)} aria-label={t('queue.select', { name: item.author_name })} onChange={() => toggle(item.id)} />
                      <AuthorName item={item} />
                      {item.author_badges.map((badge) => (
                        <span key={badge} class={`badge author-badge${badge === 'staff' ? ' staff' : ''}`}><bdi>{badge === 'staff' ? t('thread.staff') : badge}</bdi></span>
                      ))}
                      {item.pinned && <span class="badge pinned">{t('thread.pinned')}</span>}
                      <span class={`badge status-${item.status}`}>{statusText(item)}</span>
                      <time dateTime={item.created_at}>{ago(item.created_at)}</time>
                      {item.flags.count > 0 && <span class="badge flagged">{t('queue.flags', { count: item.flags.count })}</span>}
                    </div>
                    <p class="content" dir="auto">{item.content ?? t('queue.deletedContent')}</p>
                    {item.is_edited && !item.is_deleted && <EarlierVersions commentId={item.id} authorName={item.author_name} />}
                    <div class="actions">
                      {actionsFor(item).map((action) => (
                        <button key={action} type="button" class="act" onClick={() => moderate([item], action)}>
                          {t(ACTION_LABELS[action])}
                        </button>
                      ))}
                      {item.author.kind === 'user' && (
                        <button type="button" class="act" onClick={() => setBanning(item)}>
                          {t('queue.banAuthor')}
                        </button>
                      )}
                      {!item.is_deleted && !item.thread.closed && (
                        <button type="button" class="act" aria-expanded={replying === item.id} onClick={() => setReplying(replying === item.id ? null : item.id)}>
                          {t('thread.reply')}
                        </button>
                      )}
                      {item.parent_id === null && (item.pinned || !item.is_deleted) && (
                        <button
                          type="button"
                          class="act"
                          aria-label={t('thread.pinLabel', { pinned: item.pinned ? 'yes' : 'no', name: item.author_name })}
                          aria-describedby={!item.pinned && pinsFull ? 'pins-full' : undefined}
                          disabled={!item.pinned && pinsFull}
                          onClick={() => setPinned(item, !item.pinned)}
                        >
                          {item.pinned ? t('thread.unpin') : t('thread.pin')}
                        </button>
                      )}
                    </div>
                  </article>
                  {replying === item.id && <ReplyForm to={item} onPosted={(reply) => posted(item, reply)} onCancel={() => (setReplying(null), focusComment(item.id))} />}
                  {children.has(item.id) && branch(item.id, depth + 1)}
                </li>
              ))}
            </ol>
          );
          return (
            <>
              <div class="view-head">
                <h1 id="thread-title">{first ? <bdi>{threadName(first)}</bdi> : t('thread.title')}</h1>
                <button type="button" class="plain" onClick={() => setHelp(true)} aria-keyshortcuts="?">
                  {t('queue.shortcuts')}
                </button>
              </div>
              <p class="note">
                <Link href={back}>{t('thread.back')}</Link>
                {' · '}
                <a href={threadUrl} rel="noopener noreferrer" target="_blank" dir="ltr">{threadUrl}</a>
                {first && ' · '}
                {first && (first.thread.closed ? t('thread.closedState') : t('thread.open'))}
              </p>
              {first && (
                <button
                  type="button"
                  disabled={closing}
                  onClick={async () => {
                    setClosing(true);
                    try {
                      const thread = await must(api.PATCH('/api/sites/{id}/threads/{thread_id}', { params: { path: { id: siteId, thread_id: first.thread.id } }, body: { closed: !first.thread.closed } }));
                      update((data) => ({ ...data, items: data.items.map((c) => ({ ...c, thread: { ...c.thread, closed: thread.closed } })) }));
                      notify(thread.closed ? t('thread.closed') : t('thread.reopened'));
                    } catch (error) {
                      notify(errorText(error), 'error');
                    } finally {
                      setClosing(false);
                    }
                  }}
                >
                  {first.thread.closed ? t('thread.reopen') : t('thread.close')}
                </button>
              )}
              {pinsFull && (
                <p id="pins-full" class="note">
                  {t('thread.pinsFull', { max: MAX_PINNED })}
                </p>
              )}
              {selected.size > 0 && (
                <div class="bulk" role="group" aria-label={t('queue.bulk')}>
                  <span class="note">{t('queue.selected', { count: selected.size })}</span>
                  {BULK.map((action) => (
                    <button key={action} type="button" onClick={() => moderate(items.filter((item) => selected.has(item.id)), action)}>
                      {t(ACTION_LABELS[action])}
                    </button>
                  ))}
                </div>
              )}
              {items.length === 0 ? <Empty>{t('thread.empty')}</Empty> : branch(null, 0)}
              {cut && <p class="note">{t('thread.cut', { count: items.length })}</p>}
            </>
          );
        }}
      </Loaded>
      {banning?.author.id && <BanDialog siteId={banning.site_id} userId={banning.author.id} name={banning.author_name} onClose={() => setBanning(null)} />}
      {drawer && drawerSite && (
        <AuthorDrawer siteId={drawerSite} userId={drawer} onClose={() => navigate(withQuery({ author: undefined, author_site: undefined }))} onChanged={() => void reload()} />
      )}
      {help && <ShortcutHelp keys={THREAD_SHORTCUTS} onClose={() => setHelp(false)} />}
    </section>
  );
}
