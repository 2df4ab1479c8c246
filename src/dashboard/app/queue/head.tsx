import type { Ref } from 'preact';
import type { Answer } from '../../client/api.ts';
import { t, type MessageKey } from '../i18n.ts';
import { navigate, withQuery } from '../router.ts';
import type { Site } from '../session.ts';
import { pure } from '../ui.tsx';
import { parseSearch, TABS, type QueueStatus, type Tab } from './search.ts';

export type Sort = 'newest' | 'oldest' | 'most_flagged';
const TAB_LABELS: Record<Tab, MessageKey> = { pending: 'queue.tab.pending', flagged: 'queue.tab.flagged', spam: 'queue.tab.spam', removed: 'queue.tab.removed', all: 'queue.tab.all' };
/** The tabs keys 1 to 4 open. */
export const TAB_KEYS: Record<string, Tab> = { 1: 'pending', 2: 'flagged', 3: 'spam', 4: 'removed' };

/** The orders a tab offers: the oldest first is the default where comments wait (pending), the newest elsewhere. */
export function sortsOf(status: QueueStatus, searching: boolean): Sort[] {
  if (status === 'pending') return ['oldest', 'newest'];
  return status === 'flagged' && !searching ? ['newest', 'oldest', 'most_flagged'] : ['newest', 'oldest'];
}

/** A tab's address, keeping the search but not a status: operator, which would override the tab. */
export const tabHref = (tab: Tab, search: string) => withQuery({ tab, sort: undefined, search: search ? search.replace(/\bstatus:\S+\s*/gi, '').trim() : undefined });

export interface QueueHeadProps {
  sites: Site[];
  site: string;
  search: string;
  searchRef: Ref<HTMLInputElement>;
  problems: string[];
  status: QueueStatus;
  sorts: Sort[];
  sort: Sort;
  counts: Answer<'/api/comments/counts'> | null;
  /** Comments that joined the tab since it was loaded, and how to show them. */
  arrived: number;
  onShowArrived: () => void;
  live: boolean;
  refreshSeconds: number;
}

/** The queue's choices above the cards: site, search, order, tabs with their counts, and whether new comments arrive live. */
export const QueueHead = pure(function QueueHead(props: QueueHeadProps) {
  const { site, search, status, counts, live } = props;
  return (
    <>
      <div class="toolbar">
        <label>
          {t('queue.site')}
          <select value={site} onChange={(event) => navigate(withQuery({ site: event.currentTarget.value }))}>
            <option value="">{t('queue.allSites')}</option>
            {props.sites.map((s) => (
              <option key={s.id} value={s.id}>{s.name}</option>
            ))}
          </select>
        </label>
        <form
          class="search"
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            const value = String(new FormData(event.currentTarget).get('search') ?? '');
            navigate(withQuery({ search: value.trim(), tab: parseSearch(value).status ?? new URL(location.href).searchParams.get('tab') }));
          }}
        >
          <label for="queue-search">{t('queue.search')}</label>
          <input id="queue-search" key={search} ref={props.searchRef} name="search" type="search" defaultValue={search} placeholder={t('queue.search.placeholder')} aria-keyshortcuts="/" />
          <button type="submit">{t('queue.search')}</button>
        </form>
        <label>
          {t('queue.sort')}
          <select value={props.sort} onChange={(event) => navigate(withQuery({ sort: event.currentTarget.value }))}>
            {props.sorts.map((option) => (
              <option key={option} value={option}>{t('queue.sort.option', { sort: option })}</option>
            ))}
          </select>
        </label>
      </div>
      {props.problems.map((problem) => (
        <p key={problem} class="problem" role="alert">{problem}</p>
      ))}
      <div class="tabs-row">
        <nav class="tabs" aria-label={t('queue.tabs')}>
          {TABS.map((tab) => (
            <a
              key={tab}
              href={tabHref(tab, search)}
              aria-current={status === tab ? 'page' : undefined}
              aria-keyshortcuts={Object.keys(TAB_KEYS).find((key) => TAB_KEYS[key] === tab)}
              onClick={(event) => {
                event.preventDefault();
                navigate(event.currentTarget.getAttribute('href')!);
              }}
            >
              {t(TAB_LABELS[tab])}
              {tab !== 'all' && counts && <span class="count"> {counts[tab]}</span>}
            </a>
          ))}
        </nav>
        <div class="freshness" role="status">
          {props.arrived > 0 ? (
            <button type="button" onClick={props.onShowArrived}>
              {t('queue.newComments', { count: props.arrived })}
            </button>
          ) : (
            <span class="note">{live ? t('queue.live') : t('queue.polling', { seconds: props.refreshSeconds })}</span>
          )}
        </div>
      </div>
    </>
  );
});
