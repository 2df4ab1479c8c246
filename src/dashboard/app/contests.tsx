import { useState } from 'preact/hooks';
import { api, errorText, must, type Answer } from '../client/api.ts';
import { t, tx } from './i18n.ts';
import { href, withQuery } from './router.ts';
import { useSession } from './session.ts';
import { ago, Empty, Link, Loaded, notify, useLoad, when } from './ui.tsx';

type ContestPage = Answer<'/api/contests'>;
type Contest = ContestPage['contests'][number];
type Actor = NonNullable<Contest['resolved_by']>;
type State = 'open' | 'resolved';

const fetchPage = (site: string | undefined, state: State, cursor?: string) =>
  must(api.GET('/api/contests', { params: { query: { site_id: site, state, limit: 20, cursor } } }));

/** Someone who decided, in words: the spam classifier is named as such; a name the log no longer knows is "someone". */
const actorName = (actor: Actor | null) => (actor?.kind === 'system' ? t('contests.classifier') : (actor?.name ?? t('contests.someone')));

/** The thread view at the comment, with the way back to the contests. */
const threadHref = (contest: Contest) =>
  `${href('thread')}?${new URLSearchParams({ site: contest.site_id, url: contest.comment.thread_url, comment: contest.comment.id, from: location.pathname + location.search })}`;

function Decision(props: { contest: Contest }) {
  const { decision } = props.contest;
  return (
    <div class="decision">
      <p>
        {decision.moderator === null ? t('contests.decision', { action: decision.action }) : t('contests.decisionBy', { action: decision.action, moderator: actorName(decision.moderator) })}
        {decision.decided_at && <> <time dateTime={decision.decided_at}>{ago(decision.decided_at)}</time></>}
      </p>
      <p>{decision.reason ? t('contests.reason', { reason: decision.reason }) : <span class="note">{t('contests.noReason')}</span>}</p>
    </div>
  );
}

/** A moderator's answer: reinstate the comment or uphold the decision, with a note the reader reads. */
function Answer(props: { contest: Contest; onResolved: (contest: Contest) => void }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState('');
  const resolve = async (outcome: 'reversed' | 'upheld') => {
    setBusy(true);
    try {
      const resolved = await must(api.POST('/api/contests/{id}/resolve', { params: { path: { id: props.contest.id } }, body: { outcome, note: note.trim() || null } }));
      notify(t('contests.done', { outcome, name: props.contest.comment.author_name }));
      props.onResolved(resolved);
    } catch (error) {
      notify(errorText(error), 'error');
      setBusy(false);
    }
  };
  return (
    <div class="contest-answer">
      <label>
        {t('contests.note')}
        <textarea rows={2} maxLength={500} value={note} onInput={(event) => setNote(event.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="button" class="act act-approve" disabled={busy} onClick={() => resolve('reversed')}>{t('contests.reinstate')}</button>
        <button type="button" class="act" disabled={busy} onClick={() => resolve('upheld')}>{t('contests.uphold')}</button>
      </div>
    </div>
  );
}

function ContestCard(props: { contest: Contest; showSite: boolean; siteName: string; onResolved: (contest: Contest) => void }) {
  const { contest } = props;
  const { comment } = contest;
  const titleId = `contest-${contest.id}`;
  return (
    <article class="card contest" aria-labelledby={titleId}>
      <div class="card-head">
        <strong class="author" id={titleId}><bdi>{comment.author_name}</bdi></strong>
        {props.showSite && <span class="badge site">{props.siteName}</span>}
        <span class={`badge status-${comment.status}`}>{t('queue.status', { status: comment.status })}</span>
        <span class="note">{tx('contests.contestedAt', { when: <time dateTime={contest.created_at}>{ago(contest.created_at)}</time> })}</span>
      </div>
      <p class="thread">
        {tx('queue.onThread', { thread: <Link href={threadHref(contest)}><bdi>{comment.thread_title ?? comment.thread_url.replace(/^https?:\/\//, '')}</bdi></Link> })}
      </p>
      <p class="content" dir="auto">{comment.content ?? t('queue.deletedContent')}</p>
      <Decision contest={contest} />
      <figure class="contest-message">
        <figcaption>{t('contests.message', { name: comment.author_name })}</figcaption>
        <blockquote dir="auto">{contest.message}</blockquote>
      </figure>
      {contest.state === 'open' ? (
        <Answer contest={contest} onResolved={props.onResolved} />
      ) : (
        <p class="outcome">
          {t('contests.outcome', { outcome: contest.outcome ?? 'upheld', moderator: actorName(contest.resolved_by) })} <time dateTime={contest.resolved_at ?? undefined}>{when(contest.resolved_at)}</time>
          {contest.note && <span class="outcome-note"><br />{t('contests.yourNote', { note: contest.note })}</span>}
        </p>
      )}
    </article>
  );
}

/** Readers' contests of decisions on their comments: waiting ones oldest first, answered ones latest first. */
export function ContestsView(props: { url: URL }) {
  const { sites } = useSession();
  const site = props.url.searchParams.get('site') || undefined;
  const state: State = props.url.searchParams.get('state') === 'resolved' ? 'resolved' : 'open';
  const [load, reload, update] = useLoad(() => fetchPage(site, state), [site, state]);
  const more = async (page: ContestPage) => {
    try {
      const next = await fetchPage(site, state, page.next_cursor!);
      update((current) => ({ contests: [...current.contests, ...next.contests], next_cursor: next.next_cursor }));
    } catch (error) {
      notify(errorText(error), 'error');
    }
  };
  // An answered contest leaves the waiting list; the answered list shows it on its next load.
  const resolved = (contest: Contest) => update((page) => ({ ...page, contests: page.contests.filter((item) => item.id !== contest.id) }));
  const siteName = (id: string) => sites.find((item) => item.id === id)?.name ?? id;
  return (
    <section aria-labelledby="contests-title">
      <h1 id="contests-title">{t('contests.title')}</h1>
      <p class="note">{t('contests.about')}</p>
      <nav class="tabs" aria-label={t('contests.tabs')}>
        {(['open', 'resolved'] as const).map((tab) => (
          <Link key={tab} href={withQuery({ state: tab === 'open' ? undefined : tab }, props.url)} aria-current={state === tab ? 'page' : undefined}>
            {t('contests.tab', { state: tab })}
          </Link>
        ))}
      </nav>
      <Loaded load={load} retry={reload} loading="contests.loading" failed="contests.loadFailed">
        {(page) =>
          page.contests.length === 0 ? (
            <Empty>{t('contests.empty', { state })}</Empty>
          ) : (
            <>
              <div class="cards">
                {page.contests.map((contest) => (
                  <ContestCard key={contest.id} contest={contest} showSite={!site && sites.length > 1} siteName={siteName(contest.site_id)} onResolved={resolved} />
                ))}
              </div>
              {page.next_cursor && (
                <p class="more">
                  <button type="button" onClick={() => more(page)}>{t('contests.more')}</button>
                </p>
              )}
            </>
          )
        }
      </Loaded>
    </section>
  );
}
