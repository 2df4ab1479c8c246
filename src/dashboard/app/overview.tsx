import { api, must, type Answer } from '../client/api.ts';
import { t } from './i18n.ts';
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
  const summary =
    busiest && total(busiest) > 0
      ? t('overview.chart.summaryBusiest', { total: sum, days: props.days.length, day: busiest.day, busiest: total(busiest) })
      : t('overview.chart.summary', { total: sum, days: props.days.length });
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-label={summary}>
        <line class="axis" x1="0" y1={height} x2={width} y2={height} />
        {props.days.map((day, i) => {
          const h = (total(day) / top) * (height - 10);
          return (
            <rect key={day.day} class="bar" x={i * step + 1} y={height - h} width={Math.max(1, step - 2)} height={h}>
              <title>{t('overview.chart.day', { day: day.day, total: total(day), published: day.published, pending: day.pending, removed: day.removed, spam: day.spam })}</title>
            </rect>
          );
        })}
        {props.days.length > 0 && (
          <>
            <text x="0" y={height + 15}>{props.days[0].day}</text>
            <text x={width} y={height + 15} text-anchor="end">{props.days[props.days.length - 1].day}</text>
            <text x="0" y="10">{t('overview.chart.scale', { top })}</text>
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
    const [stats, counts, classifier] = await Promise.all([
      must(api.GET('/api/sites/{id}/stats', path)),
      must(api.GET('/api/comments/counts', { params: { query: { site_id: site.id } } })),
      must(api.GET('/api/sites/{id}/classifier', path)),
    ]);
    return { stats, counts, classifier };
  }, [site?.id]);
  if (!site) {
    return (
      <Empty>
        {t('overview.noSite')} {sites.length === 0 && <Link href={href('sites')}>{t('overview.createSite')}</Link>}
      </Empty>
    );
  }
  return (
    <section aria-labelledby="overview-title">
      <div class="view-head">
        <h1 id="overview-title">{t('overview.title', { site: site.name })}</h1>
        <SitePicker sites={sites} current={site} />
      </div>
      <Loaded load={load} retry={reload} loading="overview.loading" failed="overview.loadFailed">
        {(data) =>
          data && (
            <>
              <div class="grid">
                <div class="panel">
                  <h2>{t('overview.pending')}</h2>
                  <p class="stat">{t('overview.count', { count: data.counts.pending })}</p>
                  <Link href={`${href('queue')}?site=${site.id}&tab=pending`}>{t('overview.review')}</Link>
                </div>
                <div class="panel">
                  <h2>{t('overview.flagged')}</h2>
                  <p class="stat">{t('overview.count', { count: data.counts.flagged })}</p>
                  <Link href={`${href('queue')}?site=${site.id}&tab=flagged`}>{t('overview.review')}</Link>
                </div>
                <div class="panel">
                  <h2>{t('overview.webhooks.title')}</h2>
                  <p class="stat">{data.stats.webhooks.success_rate === null ? t('overview.webhooks.noRate') : t('overview.webhooks.rate', { rate: data.stats.webhooks.success_rate })}</p>
                  <p class="note">
                    {data.stats.webhooks.deliveries === 0
                      ? t('overview.webhooks.none')
                      : t('overview.webhooks.deliveries', { succeeded: data.stats.webhooks.succeeded, deliveries: data.stats.webhooks.deliveries, failed: data.stats.webhooks.failed })}
                  </p>
                </div>
                <div class="panel">
                  <h2>{t('overview.classifier.title')}</h2>
                  <p class="stat">{data.classifier.agreement_rate === null ? t('overview.webhooks.noRate') : t('overview.classifier.rate', { rate: data.classifier.agreement_rate })}</p>
                  <p class="note">{t('overview.classifier.holds', { holds: data.classifier.holds, agreed: data.classifier.agreed, disagreed: data.classifier.disagreed })}</p>
                </div>
              </div>
              <div class="panel">
                <h2>{t('overview.chart.title')}</h2>
                <DailyChart days={data.stats.days} />
              </div>
              <div class="panel">
                <h2>{t('overview.topThreads.title')}</h2>
                {data.stats.top_threads.length === 0 ? (
                  <p class="note">{t('overview.topThreads.empty')}</p>
                ) : (
                  <ol>
                    {data.stats.top_threads.map((thread) => (
                      <li key={thread.id}>
                        <Link href={`${href('thread')}?site=${site.id}&url=${encodeURIComponent(thread.url)}`}>{thread.title ?? thread.url}</Link> · {t('overview.topThreads.comments', { count: thread.top_level_comments })}
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
