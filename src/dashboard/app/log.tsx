import { api, errorText, must, type Answer, type paths } from '../client/api.ts';
import { t, type MessageKey } from './i18n.ts';
import { navigate, withQuery } from './router.ts';
import { useSession, type Site } from './session.ts';
import { Empty, Link, Loaded, notify, Table, useLoad, when } from './ui.tsx';

type LogPage = Answer<'/api/moderation-log'>;
type Entry = LogPage['entries'][number];
type Action = NonNullable<NonNullable<paths['/api/moderation-log']['get']['parameters']['query']>['action']>;

/**
 * The actions the filter offers: every one the server's filter takes (the type makes the list
 * complete). An entry may still carry an action newer than this dashboard: `log.action` words it by
 * its name.
 */
const ACTIONS: Record<Action, true> = { approve: true, remove: true, spam: true, shadow_ban: true, unhide: true, dismiss_flags: true, pin: true, unpin: true, undo: true, classifier_hold: true, classifier_agreed: true, classifier_disagreed: true };

/** A date input's day (YYYY-MM-DD) as the instant it starts in the moderator's time zone; `days` later for an end. */
function dayStart(day: string | null, days = 0): string | undefined {
  if (!day) return undefined;
  const [year, month, date] = day.split('-').map(Number);
  const start = new Date(year, month - 1, date + days);
  return Number.isNaN(start.getTime()) ? undefined : start.toISOString();
}

interface Filters {
  site?: string;
  moderator?: string;
  action?: Action;
  since?: string;
  until?: string;
}

function filtersOf(url: URL): Filters {
  const param = (name: string) => url.searchParams.get(name) || undefined;
  const action = param('action');
  return {
    site: param('site'),
    moderator: param('who'),
    action: action && Object.hasOwn(ACTIONS, action) ? (action as Action) : undefined,
    since: dayStart(url.searchParams.get('from')),
    // The "to" day is included: the log is read until the next day starts.
    until: dayStart(url.searchParams.get('to'), 1),
  };
}

const fetchPage = (filters: Filters, cursor?: string) =>
  must(api.GET('/api/moderation-log', { params: { query: { site_id: filters.site, moderator: filters.moderator, action: filters.action, since: filters.since, until: filters.until, limit: 25, cursor } } }));

/** Who the moderator filter offers: anyone, oneself, everyone seen in the entries so far, and the one chosen. */
function moderatorsOf(entries: Entry[], myId: string, chosen: string | undefined): Array<{ id: string; name: string }> {
  const seen = new Map<string, string>();
  for (const entry of entries) if (entry.moderator.id && entry.moderator.id !== myId) seen.set(entry.moderator.id, entry.moderator.name ?? entry.moderator.id);
  if (chosen && chosen !== myId && !seen.has(chosen)) seen.set(chosen, chosen);
  return [...seen].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
}

function LogFilters(props: { url: URL; sites: Site[]; entries: Entry[] }) {
  const { me } = useSession();
  const params = props.url.searchParams;
  const set = (name: string) => (event: Event) => navigate(withQuery({ [name]: (event.currentTarget as HTMLInputElement | HTMLSelectElement).value }, props.url));
  const filtered = ['site', 'who', 'action', 'from', 'to'].some((name) => params.get(name));
  return (
    <form class="log-filters" role="search" aria-label={t('log.filters')} onSubmit={(event) => event.preventDefault()}>
      {props.sites.length > 1 && (
        <label>
          {t('sitePicker.site')}
          <select value={params.get('site') ?? ''} onChange={set('site')}>
            <option value="">{t('team.invite.everySite')}</option>
            {props.sites.map((site) => (
              <option key={site.id} value={site.id}>{site.name}</option>
            ))}
          </select>
        </label>
      )}
      <label>
        {t('log.column.who')}
        <select value={params.get('who') ?? ''} onChange={set('who')}>
          <option value="">{t('log.filter.anyone')}</option>
          <option value={me.staff.id}>{t('log.filter.me')}</option>
          {moderatorsOf(props.entries, me.staff.id, params.get('who') ?? undefined).map((moderator) => (
            <option key={moderator.id} value={moderator.id}>{moderator.name}</option>
          ))}
        </select>
      </label>
      <label>
        {t('log.filter.action')}
        <select value={params.get('action') ?? ''} onChange={set('action')}>
          <option value="">{t('log.filter.anyAction')}</option>
          {Object.keys(ACTIONS).map((action) => (
            <option key={action} value={action}>{t('log.action', { action })}</option>
          ))}
        </select>
      </label>
      <label>
        {t('log.filter.from')}
        <input type="date" value={params.get('from') ?? ''} max={params.get('to') ?? undefined} onChange={set('from')} />
      </label>
      <label>
        {t('log.filter.to')}
        <input type="date" value={params.get('to') ?? ''} min={params.get('from') ?? undefined} onChange={set('to')} />
      </label>
      {filtered && <Link href={withQuery({ site: null, who: null, action: null, from: null, to: null }, props.url)}>{t('log.filter.clear')}</Link>}
    </form>
  );
}

function Entries(props: { page: LogPage; sites: Site[]; showSite: boolean; more: () => void }) {
  const siteName = (id: string) => props.sites.find((site) => site.id === id)?.name ?? id;
  const columns: Array<[MessageKey, boolean]> = [
    ['log.column.when', true],
    ['sitePicker.site', props.showSite],
    ['log.column.who', true],
    ['log.column.did', true],
    ['log.column.comment', true],
    ['log.column.why', true],
  ];
  return (
    <>
      <Table columns={columns.filter(([, shown]) => shown).map(([key]) => t(key))}>
        {props.page.entries.map((entry) => (
          <tr key={entry.id}>
            <td>{when(entry.created_at)}</td>
            {props.showSite && <td>{siteName(entry.site_id)}</td>}
            <td>
              {entry.moderator.kind === 'system' ? (
                t('log.spamModel')
              ) : entry.moderator.id ? (
                <button type="button" class="plain log-who" title={t('log.onlyWho', { who: entry.moderator.name ?? t('log.unknown') })} onClick={() => navigate(withQuery({ who: entry.moderator.id }))}>
                  <bdi>{entry.moderator.name ?? t('log.unknown')}</bdi>
                </button>
              ) : (
                <bdi>{t('log.unknown')}</bdi>
              )}
              {entry.moderator.kind !== 'system' && <span class="note"> {t('log.kind', { kind: entry.moderator.kind })}</span>}
            </td>
            <td>{t('log.action', { action: entry.action })}</td>
            <td>{entry.comment.excerpt === null ? t('log.deletedComment', { author: entry.comment.author_name }) : t('log.comment', { author: entry.comment.author_name, excerpt: entry.comment.excerpt })}</td>
            <td>{entry.reason ?? ''}</td>
          </tr>
        ))}
      </Table>
      {props.page.next_cursor && (
        <button type="button" onClick={props.more}>
          {t('log.older')}
        </button>
      )}
    </>
  );
}

/** Who moderated what, on every site the person moderates or one, filtered by who, action and days. */
export function LogView(props: { url: URL }) {
  const { sites } = useSession();
  const filters = filtersOf(props.url);
  const key = JSON.stringify(filters);
  const [load, reload, update] = useLoad(() => fetchPage(filters), [key]);
  const more = async (page: LogPage) => {
    try {
      const next = await fetchPage(filters, page.next_cursor!);
      update((current) => ({ entries: [...current.entries, ...next.entries], next_cursor: next.next_cursor }));
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };
  const filtered = Object.values(filters).some((value) => value !== undefined);
  return (
    <section aria-labelledby="log-title">
      <h1 id="log-title">{t('log.title')}</h1>
      <LogFilters url={props.url} sites={sites} entries={load.state === 'ready' ? load.data.entries : []} />
      <Loaded load={load} retry={reload} loading="log.loading" failed="log.loadFailed">
        {(page) =>
          page.entries.length === 0 ? (
            <Empty>{t(filtered ? 'log.noneFiltered' : 'log.empty')}</Empty>
          ) : (
            <Entries page={page} sites={sites} showSite={!filters.site && sites.length > 1} more={() => more(page)} />
          )
        }
      </Loaded>
    </section>
  );
}
