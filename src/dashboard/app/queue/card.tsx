import { t, tx } from '../i18n.ts';
import { href, withQuery } from '../router.ts';
import { EarlierVersions } from '../revisions.tsx';
import { ago, Link } from '../ui.tsx';
import { ACTION_LABELS, actionsFor, type Action, type QueueItem } from './actions.ts';
import type { ChangeKind } from './stream.ts';

export interface CardProps {
  item: QueueItem;
  index: number;
  selected: boolean;
  focused: boolean;
  onSelect: (index: number, range: boolean) => void;
  onFocus: (index: number) => void;
  onAction: (ids: string[], action: Action) => void;
  onBan: (item: QueueItem) => void;
  /** What someone else made of the comment since it was loaded: it leaves on the next reload. */
  handled?: ChangeKind;
}

export function statusText(item: { status: string; moderation_status: string | null; is_deleted: boolean }): string {
  if (item.is_deleted) return t('queue.status', { status: 'deleted' });
  return t(item.moderation_status === 'shadow_banned' ? 'queue.status.shadowBanned' : 'queue.status', { status: item.status });
}

/** A thread in words: its title when known, else its address. */
export const threadName = (item: QueueItem) => item.thread.title ?? item.thread_url.replace(/^https?:\/\//, '');

/** The author's name: a button that opens their drawer when they are a site user. */
export function AuthorName(props: { item: QueueItem }) {
  const { item } = props;
  if (item.author.kind !== 'user' || !item.author.id) return <strong class="author"><bdi>{item.author_name}</bdi></strong>;
  return (
    <Link class="author" href={withQuery({ author: item.author.id, author_site: item.site_id })}>
      <bdi>{item.author_name}</bdi>
    </Link>
  );
}

export function Card(props: CardProps) {
  const { item, index } = props;
  const counts = item.author.comments;
  return (
    <article
      class={`card${props.selected ? ' selected' : ''}${props.focused ? ' focused' : ''}${props.handled ? ' handled' : ''}`}
      data-index={index}
      data-id={item.id}
      tabIndex={props.focused ? 0 : -1}
      aria-label={t('queue.cardLabel', { name: item.author_name, status: statusText(item) })}
      onFocus={(event) => event.target === event.currentTarget && props.onFocus(index)}
    >
      <div class="card-head">
        <input
          type="checkbox"
          checked={props.selected}
          aria-label={t('queue.select', { name: item.author_name })}
          onClick={(event) => {
            event.preventDefault();
            props.onSelect(index, event.shiftKey);
          }}
        />
        <AuthorName item={item} />
        {item.author_is_guest && <span class="badge">{t('queue.guest')}</span>}
        {counts && (
          <span class="counts" title={t('queue.countsTitle')}>
            {t('queue.counts', counts)}
          </span>
        )}
        <span class={`badge status-${item.status}`}>{statusText(item)}</span>
        <time dateTime={item.created_at}>{ago(item.created_at)}</time>
      </div>
      <p class="thread">
        {tx('queue.onThread', {
          thread: <Link href={`${href('thread')}?site=${item.site_id}&url=${encodeURIComponent(item.thread_url)}&comment=${item.id}`}><bdi>{threadName(item)}</bdi></Link>,
        })}
        {item.thread.closed && <span class="badge">{t('queue.closed')}</span>}
      </p>
      {item.parent && (
        <blockquote class="parent">
          <span class="note">{t('queue.inReplyTo', { name: item.parent.author_name })}</span> <bdi>{item.parent.excerpt ?? t('queue.deletedContent')}</bdi>
        </blockquote>
      )}
      <p class="content" dir="auto">{item.content ?? t('queue.deletedContent')}</p>
      {item.is_edited && !item.is_deleted && <EarlierVersions commentId={item.id} authorName={item.author_name} />}
      {item.flags.count > 0 && (
        <div class="flags">
          <strong>{t('queue.flags', { count: item.flags.count })}</strong>
          <ul>
            {item.flags.reasons.map((flag, i) => (
              <li key={i} dir="auto">{flag.reason ?? t('queue.noReason')}</li>
            ))}
          </ul>
        </div>
      )}
      {props.handled && <p class="handled-note">{t('queue.changed', { change: props.handled })}</p>}
      {/* A comment someone else has dealt with offers no action on what it no longer is. */}
      {!props.handled && (
        <div class="actions">
          {actionsFor(item).map((action) => (
            <button key={action} type="button" class={`act act-${action}`} onClick={() => props.onAction([item.id], action)}>
              {t(ACTION_LABELS[action])}
            </button>
          ))}
          {item.author.kind === 'user' && (
            <button type="button" class="act" onClick={() => props.onBan(item)}>
              {t('queue.banAuthor')}
            </button>
          )}
        </div>
      )}
    </article>
  );
}
