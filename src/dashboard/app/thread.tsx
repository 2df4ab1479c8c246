import { useEffect, useState } from 'preact/hooks';
import { api, errorText, must } from '../client/api.ts';
import { ACTION_LABELS, actionsFor, expected, type Action, type QueueItem } from './queue/actions.ts';
import { AuthorName, statusText, threadName } from './queue/card.tsx';
import { t } from './i18n.ts';
import { EarlierVersions } from './revisions.tsx';
import { href } from './router.ts';
import { ago, Empty, Link, Loaded, notify, useLoad } from './ui.tsx';

/** At most this many comments of a thread are drawn (500 is far beyond a thread anyone reads through). */
const MAX_PAGES = 5;

/** Pinned comments a thread holds at most (the server's rule, said before it refuses). */
const MAX_PINNED = 3;

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

/** A comment in its thread: the whole conversation around it, every comment moderated in place. */
export function ThreadView(props: { url: URL }) {
  const siteId = props.url.searchParams.get('site') ?? '';
  const threadUrl = props.url.searchParams.get('url') ?? '';
  const focusId = props.url.searchParams.get('comment');
  const [load, reload, update] = useLoad(() => wholeThread(siteId, threadUrl), [siteId, threadUrl]);
  const [closing, setClosing] = useState(false);

  useEffect(() => {
    if (load.state === 'ready' && focusId) document.getElementById(`c-${focusId}`)?.scrollIntoView({ block: 'center' });
  }, [load.state, focusId]);

  if (!siteId || !threadUrl) return <Empty>{t('thread.noThread')}</Empty>;

  const moderate = async (item: QueueItem, action: Action) => {
    update((data) => ({ ...data, items: data.items.map((c) => (c.id === item.id ? expected(c, action) : c)) }));
    try {
      const [result] = (await must(api.POST('/api/comments/moderate', { body: { ids: [item.id], action } }))).results;
      if (!result.ok) throw new Error(result.error.detail);
      notify(t('queue.done', { action, name: item.author_name }));
    } catch (error) {
      update((data) => ({ ...data, items: data.items.map((c) => (c.id === item.id ? item : c)) }));
      notify(t('queue.actionFailed', { action, error: errorText(error) }), 'error');
    }
  };

  const setPinned = async (item: QueueItem, pinned: boolean) => {
    const path = { params: { path: { id: item.id } } };
    try {
      const comment = await must(pinned ? api.POST('/api/comments/{id}/pin', path) : api.DELETE('/api/comments/{id}/pin', path));
      update((data) => ({ ...data, items: data.items.map((c) => (c.id === item.id ? { ...c, pinned: comment.pinned } : c)) }));
      notify(t(pinned ? 'thread.pinnedDone' : 'thread.unpinnedDone', { name: item.author_name }));
    } catch (error) {
      notify(t('thread.pinFailed', { pin: pinned ? 'yes' : 'no', error: errorText(error) }), 'error');
    }
  };

  return (
    <section aria-labelledby="thread-title">
      <Loaded load={load} retry={reload} loading="thread.loading" failed="thread.loadFailed">
        {({ items, cut }) => {
          const first = items[0];
          const pinsFull = items.filter((item) => item.pinned).length >= MAX_PINNED;
          const children = new Map<string | null, QueueItem[]>();
          const ids = new Set(items.map((item) => item.id));
          for (const item of items) {
            // A reply whose parent is not listed (beyond what was read) is drawn at the top level.
            const parent = item.parent_id && ids.has(item.parent_id) ? item.parent_id : null;
            children.set(parent, [...(children.get(parent) ?? []), item]);
          }
          const branch = (parent: string | null, depth: number) => (
            <ol class={depth === 0 ? 'tree' : 'replies'}>
              {(children.get(parent) ?? []).map((item) => (
                <li key={item.id}>
                  <article id={`c-${item.id}`} class={`tree-comment${item.id === focusId ? ' focused' : ''}`} tabIndex={-1} aria-current={item.id === focusId ? 'true' : undefined}>
                    <div class="card-head">
                      <AuthorName item={item} />
                      {item.author_badges.map((badge) => (
                        <span key={badge} class="badge author-badge"><bdi>{badge}</bdi></span>
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
                        <button key={action} type="button" class="act" onClick={() => moderate(item, action)}>
                          {t(ACTION_LABELS[action])}
                        </button>
                      ))}
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
                  {children.has(item.id) && branch(item.id, depth + 1)}
                </li>
              ))}
            </ol>
          );
          return (
            <>
              <div class="view-head">
                <h1 id="thread-title">{first ? <bdi>{threadName(first)}</bdi> : t('thread.title')}</h1>
                <Link href={`${href('queue')}?site=${siteId}`}>{t('thread.back')}</Link>
              </div>
              <p class="note">
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
              {items.length === 0 ? <Empty>{t('thread.empty')}</Empty> : branch(null, 0)}
              {cut && <p class="note">{t('thread.cut', { count: items.length })}</p>}
            </>
          );
        }}
      </Loaded>
    </section>
  );
}
