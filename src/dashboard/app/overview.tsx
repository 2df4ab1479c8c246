import { api, must, type Answer } from '../client/api.ts';
import { href } from './router.ts';
import { chosenSite, useSession } from './session.ts';
import { SitePicker } from './site-picker.tsx';
import { Empty, Link, Loaded, useLoad } from './ui.tsx';

type Day = Answer<'/api/sites/{id}/stats'>['days'][number];
const total = (day: Day) => day.published + day.pending + day.removed + day.spam;

/** Comments per day as bars, drawn here as SVG: no chart service, nothing from elsewhere. */
export function DailyChart(props: { days: Day[] }) {
  const width = 720;
  const height = 180;
  const top = Math.max(1, ...props.days.map(total));
  const step = width / Math.max(1, props.days.length);
  const sum = props.days.reduce((n, day) => n + total(day), 0);
  const busiest = props.days.reduce<Day | null>((best, day) => (best === null || total(day) > total(best) ? day : best), null);
  const summary = `${sum} comments in the last ${props.days.length} days${busiest && total(busiest) > 0 ? `, the most on ${busiest.day} (${total(busiest)})` : ''}`;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-label={summary}>
        <line class="axis" x1="0" y1={height} x2={width} y2={height} />
        {props.days.map((day, i) => {
          const h = (total(day) / top) * (height - 10);
          return (
            <rect key={day.day} class="bar" x={i * step + 1} y={height - h} width={Math.max(1, step - 2)} height={h}>
              <title>{`${day.day}: ${total(day)} (${day.published} published, ${day.pending} pending, ${day.removed} removed, ${day.spam} spam)`}</title>
            </rect>
          );
        })}
        {props.days.length > 0 && (
          <>
            <text x="0" y={height + 15}>{props.days[0].day}</text>
            <text x={width} y={height + 15} text-anchor="end">{props.days[props.days.length - 1].day}</text>
            <text x="0" y="10">{top} a day</text>
          </>
        )}
      </svg>
      <figcaption class="note">{summary}</figcaption>
    </figure>
  );
}

export function OverviewView(props: { url: URL }) {
  const { sites } = useSession();
  const site = chosenSite(sites, props.url);
  const [load, reload] = useLoad(async () => {
    if (!site) return null;
    const path = { params: { path: { id: site.id } } };
    const [stats, counts] = await Promise.all([must(api.GET('/api/sites/{id}/stats', path)), must(api.GET('/api/comments/counts', { params: { query: { site_id: site.id } } }))]);
    return { stats, counts };
  }, [site?.id]);
  if (!site) return <Empty>You have no site yet. {sites.length === 0 && <Link href={href('sites')}>Create one</Link>}</Empty>;
  return (
    <section aria-labelledby="overview-title">
      <div class="view-head">
        <h1 id="overview-title">Overview of {site.name}</h1>
        <SitePicker sites={sites} current={site} />
      </div>
      <Loaded load={load} retry={reload} what="the figures">
        {(data) =>
          data && (
            <>
              <div class="grid">
                <div class="panel">
                  <h2>Pending</h2>
                  <p class="stat">{data.counts.pending}</p>
                  <Link href={`${href('queue')}?site=${site.id}&tab=pending`}>Review them</Link>
                </div>
                <div class="panel">
                  <h2>Flagged</h2>
                  <p class="stat">{data.counts.flagged}</p>
                  <Link href={`${href('queue')}?site=${site.id}&tab=flagged`}>Review them</Link>
                </div>
                <div class="panel">
                  <h2>Webhook success</h2>
                  <p class="stat">{data.stats.webhooks.success_rate === null ? '–' : `${Math.round(data.stats.webhooks.success_rate * 100)}%`}</p>
                  <p class="note">
                    {data.stats.webhooks.deliveries === 0 ? 'No delivery yet' : `${data.stats.webhooks.succeeded} of ${data.stats.webhooks.deliveries} deliveries succeeded, ${data.stats.webhooks.failed} failed`}
                  </p>
                </div>
              </div>
              <div class="panel">
                <h2>Comments per day</h2>
                <DailyChart days={data.stats.days} />
              </div>
              <div class="panel">
                <h2>Top threads</h2>
                {data.stats.top_threads.length === 0 ? (
                  <p class="note">No thread has comments yet: add the embed snippet to a page (Sites) and the first comments show here.</p>
                ) : (
                  <ol>
                    {data.stats.top_threads.map((thread) => (
                      <li key={thread.id}>
                        <Link href={`${href('thread')}?site=${site.id}&url=${encodeURIComponent(thread.url)}`}>{thread.title ?? thread.url}</Link> · {thread.top_level_comments} comments
                      </li>
                    ))}
                  </ol>
                )}
              </div>
            </>
          )
        }
      </Loaded>
    </section>
  );
}
