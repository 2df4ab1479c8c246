import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../../client/api.ts';
import { AuthorDrawer } from '../drawer.tsx';
import { t } from '../i18n.ts';
import { navigate, withQuery } from '../router.ts';
import { useSession } from '../session.ts';
import { Empty, notify } from '../ui.tsx';
import { bansOpen, belongsIn, expected, restore, type Action, type QueueItem } from './actions.ts';
import { BanDialog } from './ban-dialog.tsx';
import { BulkBar, type BulkHandlers } from './bulk.tsx';
import { Card, threadHref, type CardHandlers } from './card.tsx';
import { useListing, useNearEnd } from './listing.ts';
import { QueueHead, sortsOf, TAB_KEYS, tabHref } from './head.tsx';
import { ShortcutHelp, useShortcuts } from './shortcuts.tsx';
import { parseSearch, TABS, type QueueStatus, type Tab } from './search.ts';
import { changeKind, entersTab, leavesTab, useQueueStream, type ChangeKind, type QueueChange } from './stream.ts';

type Counts = Answer<'/api/comments/counts'>;
/** While the staff stream is down, the queue looks for new comments this often while it is in view. */
const REFRESH_MS = 30_000;
/** Changes in a burst (a bulk action elsewhere) bring one reload of the tab counts. */
const COUNTS_DELAY_MS = 300;
/** How long the server lets a moderator undo a decision (POST /api/comments/moderate/undo). */
const UNDO_MS = 60_000;
/** Fewer cards than this left on the page: the next page is loaded without waiting to scroll. */
const FEW_LEFT = 10;

/** A decision that can still be undone: the comments it changed and the list as it was before it. */
interface Decision {
  ids: string[];
  before: QueueItem[];
  at: number;
}

export function QueueView(props: { url: URL }) {
  const { sites } = useSession();
  const params = props.url.searchParams;
  const site = params.get('site') ?? '';
  const search = params.get('search') ?? '';
  const parsed = useMemo(() => parseSearch(search), [search]);
  const status: QueueStatus = parsed.status ?? ((TABS as readonly string[]).includes(params.get('tab') ?? '') ? (params.get('tab') as Tab) : 'pending');
  const sorts = useMemo(() => sortsOf(status, Boolean(parsed.q)), [status, parsed.q]);
  const sort = sorts.find((s) => s === params.get('sort')) ?? sorts[0];
  const filters = {
    ...(site && { site_id: site }),
    status,
    sort,
    ...(parsed.q && { q: parsed.q }),
    ...(parsed.author && { author: parsed.author }),
    ...(parsed.thread && { thread: parsed.thread }),
  };
  const key = JSON.stringify(filters);

  const [reloads, setReloads] = useState(0);
  const { listing, setListing, loadMore, firstPage } = useListing(filters, key, reloads);
  const [counts, setCounts] = useState<Counts | null>(null);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  /** The card that is current (the first one until the moderator moves). */
  const [focusId, setFocusId] = useState<string | null>(null);
  const [reason, setReason] = useState('');
  const [banning, setBanning] = useState<QueueItem | null>(null);
  const [help, setHelp] = useState(false);
  const [live, setLive] = useState(false);
  /** Comments that joined this tab since the page was loaded, shown on the next reload. */
  const [arrived, setArrived] = useState<Set<string>>(new Set());
  /** Comments on screen that someone else moderated meanwhile, and what became of them. */
  const [handled, setHandled] = useState<Map<string, ChangeKind>>(new Map());
  const countsTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const anchor = useRef<string | null>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  /** Set by a decision or an undo: once drawn, the document's focus goes to the current card. */
  const refocus = useRef<'always' | 'if-lost' | null>(null);
  /** The card element the queue last gave the focus to. */
  const focusedCard = useRef<HTMLElement | null>(null);
  /** When the last action began, to time how long drawing its outcome takes. */
  const actionAt = useRef<number | null>(null);
  const decisions = useRef<Decision[]>([]);
  const items = listing.items;
  const focused = items.find((item) => item.id === focusId) ?? items[0];
  const siteById = useMemo(() => new Map(sites.map((s) => [s.id, s])), [sites]);
  const severalSites = !site && sites.length > 1;

  const loadCounts = async () => {
    try {
      setCounts(await must(api.GET('/api/comments/counts', { params: { query: site ? { site_id: site } : {} } })));
    } catch {
      setCounts(null);
    }
  };

  useEffect(() => {
    setSelected(new Set());
    setFocusId(null);
    setArrived(new Set());
    setHandled(new Map());
    void loadCounts();
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

  // Without the stream, new comments join the list while it is in view (and as soon as it comes back into view):
  // at the top when the newest come first, at the end once the oldest-first list is complete.
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
          const fresh = page.comments.filter((item) => !known.has(item.id));
          if (sort === 'newest') {
            const newer = fresh.filter((item) => new Date(item.created_at) > new Date(current.items[0]?.created_at ?? 0));
            return newer.length ? { ...current, items: [...newer, ...current.items] } : current;
          }
          return fresh.length && !current.next && sort === 'oldest' ? { ...current, items: [...current.items, ...fresh] } : current;
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

  // How long the first page took to draw after its data arrived, and an action after it began (checked by the browser tests).
  useLayoutEffect(() => {
    if (listing.arrivedAt !== undefined && listRef.current) listRef.current.dataset.renderMs = (performance.now() - listing.arrivedAt).toFixed(1);
  }, [listing.arrivedAt]);
  useLayoutEffect(() => {
    if (actionAt.current === null || !listRef.current) return;
    listRef.current.dataset.actionMs = (performance.now() - actionAt.current).toFixed(1);
    actionAt.current = null;
  }, [items]);

  // A decision's focus: on the card now current, when asked to or when the focus went with a card (or onto a disabled button).
  // A card drawn anew (a list answered after the decision) takes the focus with it to the page: given back too.
  useEffect(() => {
    const how = refocus.current;
    if (!focused) return;
    const active = document.activeElement as HTMLButtonElement | null;
    const lost = !active || active === document.body || active.disabled || !active.isConnected;
    const cardGone = lost && focusedCard.current !== null && !focusedCard.current.isConnected;
    if (!how && !cardGone) return;
    refocus.current = null;
    if (how === 'always' || lost) {
      const card = listRef.current?.querySelector<HTMLElement>(`[data-id="${focused.id}"]`);
      card?.focus();
      focusedCard.current = card ?? null;
    }
  }, [items, focused?.id]);

  // Whatever was decided, the page keeps cards to work on: the next page comes once few are left.
  const endRef = useRef<HTMLDivElement>(null);
  const observing = useNearEnd(() => void loadMore(), listRef, endRef, [listing.next, items.length]);
  useEffect(() => {
    if (listing.state === 'ready' && listing.next && listing.more === 'idle' && items.length < FEW_LEFT) void loadMore();
  }, [items.length, listing.next, listing.more, listing.state]);

  const focusAt = (index: number) => {
    const item = items[Math.max(0, Math.min(items.length - 1, index))];
    if (!item) return;
    setFocusId(item.id);
    const card = listRef.current?.querySelector<HTMLElement>(`[data-id="${item.id}"]`);
    card?.focus();
    focusedCard.current = card ?? null;
  };

  /** The card to be current after a decision on `ids`: the next one that stays after the decided (or current) one, else the one before. */
  const focusAfter = (ids: Set<string>, action: Action): string | undefined => {
    const from = ids.size === 1 ? [...ids][0] : focused?.id;
    const at = items.findIndex((item) => item.id === from);
    if (at < 0) return focused?.id;
    const stays = (item: QueueItem) => !ids.has(item.id) || belongsIn(status, expected(item, action));
    const after = items.slice(at + 1).find(stays);
    if (after && (ids.size === 1 || !stays(items[at]))) return after.id;
    if (stays(items[at])) return items[at].id;
    return items.slice(0, at).reverse().find(stays)?.id;
  };

  const moderate = async (ids: string[], action: Action) => {
    if (ids.length === 0) return;
    actionAt.current = performance.now();
    const before = items;
    const chosen = new Set(ids);
    const sentReason = reason.trim() || null;
    const single = ids.length === 1;
    setFocusId(focusAfter(chosen, action) ?? null);
    refocus.current = single ? 'always' : 'if-lost';
    // Shown at once; whatever the server refuses comes back with a message saying why.
    setListing((current) => ({ ...current, items: current.items.map((item) => (chosen.has(item.id) ? expected(item, action) : item)).filter((item) => !chosen.has(item.id) || belongsIn(status, item)) }));
    if (selected.size) setSelected((current) => new Set([...current].filter((id) => !chosen.has(id))));
    if (reason) setReason('');
    let results: Answer<'/api/comments/moderate', 'post'>['results'];
    try {
      // The cards move first (the draw is queued before this), then the request goes.
      await null;
      results = (await must(api.POST('/api/comments/moderate', { body: { ids, action, reason: sentReason } }))).results;
    } catch (error) {
      setListing((current) => ({ ...current, items: restore(current.items, before, chosen) }));
      notify(t('queue.refused', { action, error: errorText(error) }), 'error');
      return;
    }
    const refused = results.flatMap((result) => (result.ok ? [] : [result]));
    const done = new Map(results.flatMap((result) => (result.ok ? [[result.id, result.result] as const] : [])));
    setListing((current) => ({
      ...current,
      items: restore(current.items, before, new Set(refused.map((result) => result.id))).map((item) => {
        const result = done.get(item.id);
        return result && (item.status !== result.status || item.moderation_status !== result.moderation_status)
          ? { ...item, status: result.status as QueueItem['status'], moderation_status: result.moderation_status as QueueItem['moderation_status'] }
          : item;
      }),
    }));
    if (done.size) {
      decisions.current = [...decisions.current.filter((decision) => Date.now() - decision.at < UNDO_MS), { ids: [...done.keys()], before, at: Date.now() }];
    }
    if (refused.length === 1) notify(t('queue.refusedOne', { action, id: refused[0].id, error: refused[0].error.detail }), 'error');
    else if (refused.length > 1) notify(t('queue.refusedSome', { count: refused.length, error: refused[0].error.detail }), 'error');
    else if (done.size) notify(t('queue.doneCount', { action, count: done.size }), 'info', { label: t('queue.undo'), run: () => void undo(), for: UNDO_MS });
    void loadCounts();
  };

  /** Undoes the last decision still within the server's time: its cards come back where they were, the focus onto the first. */
  const undo = async () => {
    decisions.current = decisions.current.filter((decision) => Date.now() - decision.at < UNDO_MS);
    const decision = decisions.current.pop();
    if (!decision) return notify(t('queue.undoNone'));
    actionAt.current = performance.now();
    let results: Answer<'/api/comments/moderate/undo', 'post'>['results'];
    try {
      results = (await must(api.POST('/api/comments/moderate/undo', { body: { ids: decision.ids } }))).results;
    } catch (error) {
      return notify(t('queue.undoFailed', { error: errorText(error) }), 'error');
    }
    const undone = new Set(results.flatMap((result) => (result.ok ? [result.id] : [])));
    if (undone.size) {
      const first = decision.before.find((item) => undone.has(item.id));
      setListing((current) => ({ ...current, items: restore(current.items, decision.before, undone) }));
      setFocusId(first?.id ?? null);
      refocus.current = 'always';
      notify(t('queue.undone', { count: undone.size }));
    }
    const refused = results.flatMap((result) => (result.ok ? [] : [result]));
    if (refused.length) notify(t('queue.undoFailed', { error: refused[0].error.detail }), 'error');
    void loadCounts();
  };

  /** After a ban, a shadow ban or its lifting (the drawer, the ban dialog): the author's cards as the server has them now. */
  const refreshAuthor = async (siteId: string, userId: string) => {
    try {
      const page = await must(api.GET('/api/comments', { params: { query: { site_id: siteId, author: userId, status: 'all', limit: 100 } } }));
      const fresh = new Map(page.comments.map((item) => [item.id, item]));
      const author = page.comments[0]?.author;
      setListing((current) => ({
        ...current,
        items: current.items
          .map((item) => fresh.get(item.id) ?? (author && item.site_id === siteId && item.author.id === userId ? { ...item, author } : item))
          .filter((item) => !fresh.has(item.id) || belongsIn(status, item)),
      }));
      void loadCounts();
    } catch (error) {
      notify(t('queue.failed', { error: errorText(error) }), 'error');
    }
  };

  const toggle = (id: string, range: boolean) => {
    const index = items.findIndex((item) => item.id === id);
    if (index < 0) return;
    setSelected((current) => {
      const next = new Set(current);
      const from = range && anchor.current !== null ? items.findIndex((item) => item.id === anchor.current) : -1;
      if (from >= 0) for (const item of items.slice(Math.min(from, index), Math.max(from, index) + 1)) next.add(item.id);
      else if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
    anchor.current = id;
    setFocusId(id);
  };

  // The cards' and the bulk bar's handlers, made once: they call the latest of the view's functions.
  const toggleAll = () => setSelected(items.length > 0 && items.every((item) => selected.has(item.id)) ? new Set() : new Set(items.map((item) => item.id)));
  const latest = useRef({ toggle, moderate, setBanning, toggleAll, selected });
  latest.current = { toggle, moderate, setBanning, toggleAll, selected };
  const bulkHandlers = useMemo<BulkHandlers>(
    () => ({
      toggleAll: () => latest.current.toggleAll(),
      act: (action) => void latest.current.moderate([...latest.current.selected], action),
      setReason,
    }),
    [],
  );
  const handlers = useMemo<CardHandlers>(
    () => ({
      select: (id, range) => latest.current.toggle(id, range),
      focus: (id) => setFocusId(id),
      act: (ids, action) => void latest.current.moderate(ids, action),
      ban: (item) => latest.current.setBanning(item),
    }),
    [],
  );

  const index = focused ? items.indexOf(focused) : 0;
  const onCard = () => document.activeElement?.classList.contains('card') ?? false;
  const onFocused = (action: Action) => () => focused && moderate([focused.id], action);
  const onSelected = (action: Action) => () => selected.size > 0 && moderate([...selected], action);
  useShortcuts(!banning && !help, {
    // The first j or k goes to the card that is current (the first one, at the start), then moves.
    j: () => focusAt(onCard() ? index + 1 : index),
    k: () => focusAt(onCard() ? index - 1 : index),
    a: onFocused('approve'),
    r: onFocused('remove'),
    s: onFocused('spam'),
    A: onSelected('approve'),
    R: onSelected('remove'),
    S: onSelected('spam'),
    b: () => focused && bansOpen(focused).includes('ban') && setBanning(focused),
    t: () => focused && navigate(threadHref(focused)),
    x: () => focused && toggle(focused.id, false),
    X: () => focused && toggle(focused.id, true),
    z: () => void undo(),
    ...Object.fromEntries(Object.entries(TAB_KEYS).map(([key, tab]) => [key, () => navigate(tabHref(tab, search))])),
    '/': () => searchRef.current?.focus(),
    '?': () => setHelp(true),
  });

  const showArrived = useMemo(() => () => setReloads((n) => n + 1), []);
  const drawer = params.get('author');
  const drawerSite = params.get('author_site');
  const allSelected = items.length > 0 && items.every((item) => selected.has(item.id));
  const waiting = status === 'all' || status === 'published' || status === 'deleted' ? null : (counts?.[status] ?? null);
  const clearSearch = withQuery({ search: undefined });

  return (
    <section class="queue" aria-labelledby="queue-title">
      <div class="view-head">
        <h1 id="queue-title">{t('queue.title')}</h1>
        <button type="button" class="plain" onClick={() => setHelp(true)} aria-keyshortcuts="?">
          {t('queue.shortcuts')}
        </button>
      </div>
      <QueueHead
        sites={sites}
        site={site}
        search={search}
        searchRef={searchRef}
        problems={parsed.problems}
        status={status}
        sorts={sorts}
        sort={sort}
        counts={counts}
        arrived={arrived.size}
        onShowArrived={showArrived}
        live={live}
        refreshSeconds={REFRESH_MS / 1000}
      />
      <BulkBar empty={items.length === 0} allSelected={allSelected} selected={selected.size} reason={reason} handlers={bulkHandlers} />
      <div class="cards" ref={listRef}>
        {listing.state === 'loading' && <p class="note" role="status">{t('queue.loading')}</p>}
        {listing.state === 'error' && (
          <p class="problem" role="alert">
            {t('queue.failed', { error: listing.error ?? '' })}
          </p>
        )}
        {listing.state === 'ready' && items.length === 0 && !listing.next && (
          // Empty only when nothing is left: a page whose cards were all decided, with more waiting, says so.
          <Empty>
            {search ? (
              <p>
                <strong>{t('queue.empty.search', { search })}</strong>
              </p>
            ) : waiting ? (
              <p>
                <strong>{t('queue.remaining', { count: waiting })}</strong>{' '}
                <button type="button" onClick={() => setReloads((n) => n + 1)}>{t('queue.showRemaining')}</button>
              </p>
            ) : (
              <p>
                <strong>{t('queue.empty.title')}</strong> {status === 'pending' ? t('queue.empty.pending') : t('queue.empty.other')}
              </p>
            )}
            {search && (
              <p>
                <a href={clearSearch} onClick={(event) => (event.preventDefault(), navigate(clearSearch))}>{t('queue.clearSearch')}</a>
              </p>
            )}
          </Empty>
        )}
        {items.map((item) => (
          <Card
            key={item.id}
            item={item}
            selected={selected.has(item.id)}
            focused={item === focused}
            handlers={handlers}
            site={siteById.get(item.site_id)}
            showSite={severalSites}
            handled={handled.get(item.id)}
          />
        ))}
      </div>
      {listing.next && (
        <div class="more" ref={endRef}>
          {listing.more === 'loading' ? (
            <p class="note" role="status">{t('queue.loadingMore')}</p>
          ) : (
            (!observing || listing.more === 'failed') && (
              <>
                {listing.more === 'failed' && <p class="problem" role="alert">{t('queue.loadMoreFailed', { error: listing.moreError ?? '' })}</p>}
                <button type="button" onClick={() => void loadMore()}>{t('queue.loadMore')}</button>
              </>
            )
          )}
        </div>
      )}
      {banning && banning.author.id && (
        <BanDialog
          siteId={banning.site_id}
          userId={banning.author.id}
          name={banning.author_name}
          types={bansOpen(banning)}
          onClose={() => setBanning(null)}
          onBanned={() => void refreshAuthor(banning.site_id, banning.author.id!)}
        />
      )}
      {help && <ShortcutHelp onClose={() => setHelp(false)} />}
      {drawer && drawerSite && (
        <AuthorDrawer siteId={drawerSite} userId={drawer} onClose={() => navigate(withQuery({ author: undefined, author_site: undefined }))} onChanged={() => void refreshAuthor(drawerSite, drawer)} />
      )}
    </section>
  );
}
