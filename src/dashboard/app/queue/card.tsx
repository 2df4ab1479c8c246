import { href, withQuery } from '../router.ts';
import { EarlierVersions } from '../revisions.tsx';
import { ago, Link } from '../ui.tsx';
import { ACTION_LABELS, actionsFor, type Action, type QueueItem } from './actions.ts';

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
  handled?: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function statusText(item: { status: string; moderation_status: string | null; is_deleted: boolean }): string {
  if (item.is_deleted) return 'deleted';
  if (item.moderation_status === 'shadow_banned') return `${item.status}, shadow-banned`;
  return item.status;
}

/** A thread in words: its title when known, else its address. */
export const threadName = (item: QueueItem) => item.thread.title ?? item.thread_url.replace(/^https?:\/\//, '');

/** The author's name: a button that opens their drawer when they are a site user. */
export function AuthorName(props: { item: QueueItem }) {
  const { item } = props;
  if (item.author.kind !== 'user' || !item.author.id) return <strong class="author">{item.author_name}</strong>;
  return (
    <Link class="author" href={withQuery({ author: item.author.id, author_site: item.site_id })}>
      {item.author_name}
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
      aria-label={`Comment by ${item.author_name}, ${statusText(item)}`}
      onFocus={(event) => event.target === event.currentTarget && props.onFocus(index)}
    >
      <div class="card-head">
        <input
          type="checkbox"
          checked={props.selected}
          aria-label={`Select the comment by ${item.author_name}`}
          onClick={(event) => {
            event.preventDefault();
            props.onSelect(index, event.shiftKey);
          }}
        />
        <AuthorName item={item} />
        {item.author_is_guest && <span class="badge">Guest</span>}
        {counts && (
          <span class="counts" title="The author's comments on this site">
            {counts.published} published · {counts.pending} pending · {counts.removed} removed · {counts.spam} spam
          </span>
        )}
        <span class={`badge status-${item.status}`}>{statusText(item)}</span>
        <time dateTime={item.created_at}>{ago(item.created_at)}</time>
      </div>
      <p class="thread">
        on <Link href={`${href('thread')}?site=${item.site_id}&url=${encodeURIComponent(item.thread_url)}&comment=${item.id}`}>{threadName(item)}</Link>
        {item.thread.closed && <span class="badge">closed</span>}
      </p>
      {item.parent && (
        <blockquote class="parent">
          <span class="note">In reply to {item.parent.author_name}:</span> {item.parent.excerpt ?? '(deleted)'}
        </blockquote>
      )}
      <p class="content">{item.content ?? '(deleted)'}</p>
      {item.is_edited && !item.is_deleted && <EarlierVersions commentId={item.id} authorName={item.author_name} />}
      {item.flags.count > 0 && (
        <div class="flags">
          <strong>{plural(item.flags.count, 'flag')}</strong>
          <ul>
            {item.flags.reasons.map((flag, i) => (
              <li key={i}>{flag.reason ?? 'no reason given'}</li>
            ))}
          </ul>
        </div>
      )}
      {props.handled && <p class="handled-note">Handled by someone else: {props.handled}.</p>}
      {/* A comment someone else has dealt with offers no action on what it no longer is. */}
      {!props.handled && (
        <div class="actions">
          {actionsFor(item).map((action) => (
            <button key={action} type="button" class={`act act-${action}`} onClick={() => props.onAction([item.id], action)}>
              {ACTION_LABELS[action].verb}
            </button>
          ))}
          {item.author.kind === 'user' && (
            <button type="button" class="act" onClick={() => props.onBan(item)}>
              Ban author
            </button>
          )}
        </div>
      )}
    </article>
  );
}
