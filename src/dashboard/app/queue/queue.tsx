import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../../client/api.ts';
import { AuthorDrawer } from '../drawer.tsx';
import { t, type MessageKey } from '../i18n.ts';
import { navigate, withQuery } from '../router.ts';
import { useSession } from '../session.ts';
import { Empty, notify } from '../ui.tsx';
import { ACTION_LABELS, belongsIn, expected, restore, type Action, type QueueItem } from './actions.ts';
import { BanDialog } from './ban-dialog.tsx';
import { Card } from './card.tsx';
import { ShortcutHelp, useShortcuts } from './shortcuts.tsx';
import { parseSearch, TABS, type QueueStatus, type Tab } from './search.ts';
import { changeKind, entersTab, leavesTab, useQueueStream, type ChangeKind, type QueueChange } from './stream.ts';

type Counts = Answer<'/api/comments/counts'>;
const PAGE_SIZE = 50;
/** While the staff stream is down, the queue looks for new comments this often while it is in view. */
const REFRESH_MS = 30_000;
/** Changes in a burst (a bulk action elsewhere) bring one reload of the tab counts. */
const COUNTS_DELAY_MS = 300;
const TAB_LABELS: Record<Tab, MessageKey> = { pending: 'queue.tab.pending', flagged: 'queue.tab.flagged', spam: 'queue.tab.spam', removed: 'queue.tab.removed', all: 'queue.tab.all' };

interface Listing {
  items: QueueItem[];
  next: string | null;
  state: 'loading' | 'ready' | 'error';
  error?: string;
  /** When the first page's data arrived, to time how long drawing it takes. */
  arrivedAt?: number;
}

export function QueueView(props: { url: URL }) {
  const { sites } = useSession();
  const params = props.url.searchParams;
  const site = params.get('site') ?? '';
  const search = params.get('search') ?? '';
  const parsed = parseSearch(search);
  const status: QueueStatus = parsed.status ?? ((TABS as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as Tab) : 'pending');
  const filters = {
    ...(site && { site_id: site }),
    status,
    ...(parsed.q && { q: parsed.q }),
    ...(parsed.author && { author: parsed.author }),
    ...(parsed.thread_url && { thread_url: parsed.thread_url }),
  };
  const key = JSON.stringify(filters);

  const [listing, setListing] = useState<Listing>({ items: [], next: null, state: 'loading' });
  const [counts, setCounts] = useState<Counts | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [focus, setFocus] = useState(0);
  const [reason, setReason] = useState('');
  const [banning, setBanning] = useState<QueueItem | null>(null);
  const [help, setHelp] = useState(false);
  const [live, setLive] = useState(false);
  /** Bumped to load the tab's first page again (the "N new — show" button, a stream `reset`). */
  const [reloads, setReloads] = useState(0);
  /** Comments that joined this tab since the page was loaded, shown on the next reload. */
  const [arrived, setArrived] = useState<Set<string>>(new Set());
  /** Comments on screen that someone else moderated meanwhile, and what became of them. */
  const [handled, setHandled] = useState<Map<string, ChangeKind>>(new Map());
  const countsTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const anchor = useRef<number | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  /** Set by a decision: once its card has left, the focus goes to the card in its place rather than to the page's top. */
  const refocus = useRef(false);
  const items = listing.items;

  const loadCounts = async () => {
    try {
      setCounts(await must(api.GET('/api/comments/counts', { params: { query: site ? { site_id: site } : {} } })));
    } catch {
      setCounts(null);
    }
  };
  const firstPage = () => must(api.GET('/api/comments', { params: { query: { ...filters, limit: PAGE_SIZE } } }));

  useEffect(() => {
    let current = true;
    setListing({ items: [], next: null, state: 'loading' });
    setSelected(new Set());
    setFocus(0);
    setArrived(new Set());
    setHandled(new Map());
    firstPage().then(
      (page) => current && setListing({ items: page.comments, next: page.next_cursor, state: 'ready', arrivedAt: performance.now() }),
      (error) => current && setListing({ items: [], next: null, state: 'error', error: errorText(error) }),
    );
    void loadCounts();
    return () => void (current = false);
  }, [key, reloads]);

  // Changes made elsewhere are announced rather than inserted, so the cards never move under the pointer.
  const onChange = (change: QueueChange) => {
    clearTimeout(countsTimer.current);
    countsTimer.current = setTimeout(() => void loadCounts(), COUNTS_DELAY_MS);
    const shown = items.some((item) => item.id === change.comment_id);
    if (shown && leavesTab(status, change)) setHandled((current) => new Map(current).set(change.comment_id, changeKind(change)));
    else if (!shown && entersTab(status, change)) setArrived((current) => new Set(current).add(change.comment_id));
  };
  useQueueStream(site, { onChange, onLive: setLive, onReset: () => setReloads((n) => n + 1) });
  useEffect(() => () => clearTimeout(countsTimer.current), []);

  // Without the stream, new comments join the top of the list while it is in view (and as soon as it comes back into view).
  useEffect(() => {
    if (live) return;
    const refresh = async () => {
      if (document.visibilityState !== 'visible') return;
      void loadCounts();
      try {
        const page = await firstPage();
        setListing((current) => {
          if (current.state !== 'ready') return current;
          const known = new Set(current.items.map((item) => item.id));
          const fresh = page.comments.filter((item) => !known.has(item.id) && new Date(item.created_at) > new Date(current.items[0]?.created_at ?? 0));
          return fresh.length ? { ...current, items: [...fresh, ...current.items] } : current;
        });
      } catch {
        // The next refresh tries again; the list on screen stays as it is.
      }
    };
    const timer = setInterval(refresh, REFRESH_MS);
    document.addEventListener('visibilitychange', refresh);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', refresh);
    };
  }, [key, live]);

  // How long the first page took to draw after its data arrived (checked by the browser tests).
  useLayoutEffect(() => {
    if (listing.arrivedAt !== undefined && listRef.current) listRef.current.dataset.renderMs = (performance.now() - listing.arrivedAt).toFixed(1);
  }, [listing.arrivedAt]);

  const focusCard = (index: number) => {
    const bounded = Math.max(0, Math.min(items.length - 1, index));
    setFocus(bounded);
    listRef.current?.querySelector<HTMLElement>(`[data-index="${bounded}"]`)?.focus();
  };

  const moderate = async (ids: string[], action: Action) => {
    if (ids.length === 0) return;
    const before = items;
    const chosen = new Set(ids);
    const sentReason = reason.trim() || null;
    refocus.current = true;
    // Shown at once; whatever the server refuses comes back with a message saying why.
    setListing((current) => ({ ...current, items: current.items.map((item) => (chosen.has(item.id) ? expected(item, action) : item)).filter((item) => !chosen.has(item.id) || belongsIn(status, item)) }));
    setSelected((current) => new Set([...current].filter((id) => !chosen.has(id))));
    setReason('');
    let results: Answer<'/api/comments/moderate', 'post'>['results'];
    try {
      results = (await must(api.POST('/api/comments/moderate', { body: { ids, action, reason: sentReason } }))).results;
    } catch (error) {
      setListing((current) => ({ ...current, items: restore(current.items, before, chosen) }));
      notify(t('queue.refused', { action, error: errorText(error) }), 'error');
      return;
    }
    const refused = results.filter((result) => !result.ok);
    const done = new Map(results.flatMap((result) => (result.ok ? [[result.id, result.result] as const] : [])));
    setListing((current) => ({
      ...current,
      items: restore(current.items, before, new Set(refused.map((result) => result.id))).map((item) => {
        const result = done.get(item.id);
        return result ? { ...item, status: result.status as QueueItem['status'], moderation_status: result.moderation_status as QueueItem['moderation_status'] } : item;
      }),
    }));
    if (done.size) notify(t('queue.doneCount', { action, count: done.size }));
    for (const result of refused) if (!result.ok) notify(t('queue.refusedOne', { action, id: result.id, error: result.error.detail }), 'error');
    void loadCounts();
  };

  const toggle = (index: number, range: boolean) => {
    const id = items[index]?.id;
    if (!id) return;
    setSelected((current) => {
      const next = new Set(current);
      if (range && anchor.current !== null) {
        const [from, to] = [Math.min(anchor.current, index), Math.max(anchor.current, index)];
        for (const item of items.slice(from, to + 1)) next.add(item.id);
      } else if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
    anchor.current = index;
    setFocus(index);
  };

  const focused = items[focus];
  const onCard = () => document.activeElement?.classList.contains('card') ?? false;
  useShortcuts(!banning && !help, {
    // The first j or k goes to the card that is current (the first one, at the start), then moves.
    j: () => focusCard(onCard() ? focus + 1 : focus),
    k: () => focusCard(onCard() ? focus - 1 : focus),
    a: () => focused && moderate([focused.id], 'approve'),
    r: () => focused && moderate([focused.id], 'remove'),
    s: () => focused && moderate([focused.id], 'spam'),
    b: () => focused?.author.kind === 'user' && setBanning(focused),
    x: () => focused && toggle(focus, false),
    '/': () => searchRef.current?.focus(),
    '?': () => setHelp(true),
  });
  // After an action removes the focused card, focus stays at the same place in the list.
  useEffect(() => {
    if (focus >= items.length && items.length > 0) setFocus(items.length - 1);
    if (!refocus.current) return;
    refocus.current = false;
    // Lost with the decided card, or on a bulk button that nothing selected disables.
    const active = document.activeElement as HTMLButtonElement | null;
    if (items.length > 0 && (!active || active === document.body || active.disabled)) focusCard(focus);
  }, [items.length]);

  const drawer = params.get('author');
  const drawerSite = params.get('author_site');
  const allSelected = items.length > 0 && items.every((item) => selected.has(item.id));

  return (
    <section class="queue" aria-labelledby="queue-title">
      <div class="view-head">
        <h1 id="queue-title">{t('queue.title')}</h1>
        <button type="button" class="plain" onClick={() => setHelp(true)} aria-keyshortcuts="?">
          {t('queue.shortcuts')}
        </button>
      </div>
      <div class="toolbar">
        <label>
          {t('queue.site')}
          <select value={site} onChange={(event) => navigate(withQuery({ site: event.currentTarget.value }))}>
            <option value="">{t('queue.allSites')}</option>
            {sites.map((s) => (
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
            navigate(withQuery({ search: value.trim(), tab: parseSearch(value).status ?? params.get('tab') }));
          }}
        >
          <label for="queue-search">{t('queue.search')}</label>
          <input id="queue-search" key={search} ref={searchRef} name="search" type="search" defaultValue={search} placeholder={t('queue.search.placeholder')} aria-keyshortcuts="/" />
          <button type="submit">{t('queue.search')}</button>
        </form>
      </div>
      {parsed.problems.map((problem) => (
        <p key={problem} class="problem" role="alert">{problem}</p>
      ))}
      <div class="tabs-row">
        <nav class="tabs" aria-label={t('queue.tabs')}>
          {TABS.map((tab) => (
            <a
              key={tab}
              href={withQuery({ tab, search: search ? search.replace(/\bstatus:\S+\s*/gi, '').trim() : undefined })}
              aria-current={status === tab ? 'page' : undefined}
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
          {arrived.size > 0 ? (
            <button type="button" onClick={() => setReloads((n) => n + 1)}>
              {t('queue.newComments', { count: arrived.size })}
            </button>
          ) : (
            <span class="note">{live ? t('queue.live') : t('queue.polling', { seconds: REFRESH_MS / 1000 })}</span>
          )}
        </div>
      </div>
      <div class="bulk" aria-label={t('queue.bulk')}>
        <label class="check">
          <input
            type="checkbox"
            checked={allSelected}
            disabled={items.length === 0}
            onChange={() => setSelected(allSelected ? new Set() : new Set(items.map((item) => item.id)))}
          />
          {t('queue.selectAll')}
        </label>
        <span class="note">{t('queue.selected', { count: selected.size })}</span>
        {(['approve', 'remove', 'spam', 'shadow_ban', 'dismiss_flags'] as Action[]).map((action) => (
          <button key={action} type="button" disabled={selected.size === 0} onClick={() => moderate([...selected], action)}>
            {t(ACTION_LABELS[action])}
          </button>
        ))}
        <label class="reason">
          {t('queue.reason')}
          <input value={reason} maxLength={500} onInput={(event) => setReason(event.currentTarget.value)} />
        </label>
      </div>
      <div class="cards" ref={listRef}>
        {listing.state === 'loading' && <p class="note" role="status">{t('queue.loading')}</p>}
        {listing.state === 'error' && (
          <p class="problem" role="alert">
            {t('queue.failed', { error: listing.error ?? '' })}
          </p>
        )}
        {listing.state === 'ready' && items.length === 0 && (
          <Empty>
            <p>
              <strong>{t('queue.empty.title')}</strong> {status === 'pending' ? t('queue.empty.pending') : t('queue.empty.other')}
            </p>
            {search && (
              <p>
                <a href={withQuery({ search: undefined })} onClick={(event) => (event.preventDefault(), navigate(withQuery({ search: undefined })))}>{t('queue.clearSearch')}</a>
              </p>
            )}
          </Empty>
        )}
        {items.map((item, index) => (
          <Card
            key={item.id}
            item={item}
            index={index}
            selected={selected.has(item.id)}
            focused={index === focus}
            onSelect={toggle}
            onFocus={setFocus}
            onAction={moderate}
            onBan={setBanning}
            handled={handled.get(item.id)}
          />
        ))}
      </div>
      {listing.next && (
        <button
          type="button"
          class="more"
          onClick={async () => {
            try {
              const page = await must(api.GET('/api/comments', { params: { query: { ...filters, limit: PAGE_SIZE, cursor: listing.next! } } }));
              setListing((current) => ({ ...current, items: [...current.items, ...page.comments], next: page.next_cursor }));
            } catch (error) {
              notify(t('queue.loadMoreFailed', { error: errorText(error) }), 'error');
            }
          }}
        >
          {t('queue.loadMore')}
        </button>
      )}
      {banning && banning.author.id && (
        <BanDialog siteId={banning.site_id} userId={banning.author.id} name={banning.author_name} onClose={() => setBanning(null)} />
      )}
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
      {drawer && drawerSite && <AuthorDrawer siteId={drawerSite} userId={drawer} onClose={() => navigate(withQuery({ author: undefined, author_site: undefined }))} onChanged={() => setListing((l) => ({ ...l }))} />}
    </section>
  );
}
