import { t, tx } from '../i18n.ts';
import { href, withQuery } from '../router.ts';
import { EarlierVersions } from '../revisions.tsx';
import type { Site } from '../session.ts';
import { ago, Link, pure } from '../ui.tsx';
import { ACTION_LABELS, actionsFor, bansOpen, type Action, type QueueItem } from './actions.ts';
import { Standing, WhyHere } from './reasons.tsx';
import type { ChangeKind } from './stream.ts';

/** What a card asks of its queue: one object for every card, made once, so a decision redraws only the cards it changes. */
export interface CardHandlers {
  select: (id: string, range: boolean) => void;
  focus: (id: string) => void;
  act: (ids: string[], action: Action) => void;
  ban: (item: QueueItem) => void;
}

export interface CardProps {
  item: QueueItem;
  selected: boolean;
  focused: boolean;
  handlers: CardHandlers;
  /** The comment's site (one object per site, for the whole list). */
  site?: Site;
  /** The queue shows several sites: each card names its own. */
  showSite: boolean;
  /** What someone else made of the comment since it was loaded: it leaves on the next reload. */
  handled?: ChangeKind;
}

/**
 * The thread view at the comment, with the way back to the queue as it is now (the thread view
 * offers to return there).
 */
export const threadHref = (item: QueueItem) =>
  `${href('thread')}?${new URLSearchParams({ site: item.site_id, url: item.thread_url, comment: item.id, from: location.pathname + location.search })}`;

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

/** A card draws again only when one of its props changed: with hundreds on the page, a decision costs the cards it touches. */
export const Card = pure(function Card(props: CardProps) {
  const { item, handlers } = props;
  const counts = item.author.comments;
  return (
    <article
      class={`card${props.selected ? ' selected' : ''}${props.focused ? ' focused' : ''}${props.handled ? ' handled' : ''}`}
      data-id={item.id}
      tabIndex={props.focused ? 0 : -1}
      aria-label={t('queue.cardLabel', { name: item.author_name, status: statusText(item) })}
      onFocus={(event) => event.target === event.currentTarget && handlers.focus(item.id)}
    >
      <div class="card-head">
        <input
          type="checkbox"
          checked={props.selected}
          aria-label={t('queue.select', { name: item.author_name })}
          onClick={(event) => {
            event.preventDefault();
            handlers.select(item.id, event.shiftKey);
          }}
        />
        <AuthorName item={item} />
        {item.author_is_guest && <span class="badge">{t('queue.guest')}</span>}
        <Standing item={item} site={props.site} showSite={props.showSite} />
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
          thread: <Link href={threadHref(item)}><bdi>{threadName(item)}</bdi></Link>,
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
      <WhyHere item={item} site={props.site} />
      {props.handled && <p class="handled-note">{t('queue.changed', { change: props.handled })}</p>}
      {/* A comment someone else has dealt with offers no action on what it no longer is. */}
      {!props.handled && (
        <div class="actions">
          {actionsFor(item).map((action) => (
            <button key={action} type="button" class={`act act-${action}`} onClick={() => handlers.act([item.id], action)}>
              {t(ACTION_LABELS[action])}
            </button>
          ))}
          {bansOpen(item).includes('ban') && (
            <button type="button" class="act" onClick={() => handlers.ban(item)}>
              {t('queue.banAuthor')}
            </button>
          )}
        </div>
      )}
    </article>
  );
});
