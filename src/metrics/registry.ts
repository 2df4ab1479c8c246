import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db/connect.ts';
import type { Tally } from './tally.ts';
import { mailQueueDepth } from '../mail/outbox.ts';

/** What /metrics reads when scraped, besides the requests it times itself. */
export interface MetricSources {
  db: Db;
  openStreams(): number;
  responseCache(): { hits: number; misses: number };
  rateLimitRefusals: Tally;
  webhookOutcomes: Tally;
}

/** Seconds: a cached list answers in well under a millisecond, a write on PostgreSQL in a few. */
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Counts kept elsewhere (a Tally's, by label) as a Prometheus counter, read at each scrape. */
function counter(registry: Registry, name: string, help: string, label: string, counts: () => Iterable<[string, number]>): void {
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      this.reset();
      for (const [value, count] of counts()) this.inc({ [label]: value }, count);
    },
  });
}

/** A gauge whose value is read at each scrape. */
function gauge(
  registry: Registry,
  name: string,
  help: string,
  read: (set: (value: number, labels?: Record<string, string>) => void) => void | Promise<void>,
  labelNames: string[] = [],
): void {
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      await read((value, labels) => (labels ? this.set(labels, value) : this.set(value)));
    },
  });
}

/** One request's outcome: counted and timed under its route pattern (never its raw URL), method and status. */
export type RecordRequest = (method: string, route: string, status: number, seconds: number) => void;

/**
 * A registry of its own (tests run several servers in one process) holding Parley's metrics and the
 * process's (CPU, memory, event-loop lag, garbage collection). Request metrics are recorded through
 * the returned function, which keeps one child per (method, route, status): after the first request
 * of a combination, recording costs no label hashing.
 */
export function parleyMetrics(sources: MetricSources): { registry: Registry; recordRequest: RecordRequest } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'parley_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status', labelNames, registers: [registry] });
  const durations = new Histogram({
    name: 'parley_http_request_duration_seconds',
    help: 'Time from the request received to its answer sent, by route pattern, method and status',
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<(typeof labelNames)[number]> }>();
  const recordRequest: RecordRequest = (method, route, status, seconds) => {
    const key = `${method} ${status} ${route}`;
    let child = children.get(key);
    if (!child) {
      const labels = { method, route, status: String(status) };
      child = { count: requests.labels(labels), time: durations.labels(labels) };
      children.set(key, child);
    }
    child.count.inc();
    child.time.observe(seconds);
  };

  const { rateLimitRefusals, webhookOutcomes, db } = sources;
  counter(registry, 'parley_rate_limit_refusals_total', 'Requests refused with 429 by a rate limit, by limit', 'limit', () => rateLimitRefusals.entries());
  counter(registry, 'parley_webhook_attempts_total', 'Webhook delivery attempts, by outcome (delivered, error_status, no_answer)', 'outcome', () => webhookOutcomes.entries());
  counter(registry, 'parley_database_query_errors_total', 'Database statements that failed, by error code (SQLSTATE on PostgreSQL)', 'code', () => db.queryErrors.entries());
  gauge(registry, 'parley_webhook_queue_depth', 'Webhook deliveries waiting to be delivered (due now or retrying later)', async (set) => {
    set((await pendingDeliveries(sources.db)).depth);
  });
  gauge(registry, 'parley_webhook_queue_oldest_age_seconds', 'Age of the oldest webhook delivery still waiting (0 when none waits)', async (set) => {
    const { oldest } = await pendingDeliveries(sources.db);
    set(oldest === null ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000));
  });
  gauge(registry, 'parley_mail_queue_depth', 'Mails waiting to be sent (due now, retrying later, or held back to roll replies into one mail)', async (set) => {
    set(await mailQueueDepth(sources.db.kysely));
  });
  gauge(registry, 'parley_database_pool_connections', 'PostgreSQL pool connections by state (idle, busy, waiting for one, max); absent on SQLite', (set) => {
    const use = sources.db.poolUse();
    if (!use) return;
    set(use.idle, { state: 'idle' });
    set(use.open - use.idle, { state: 'busy' });
    set(use.waiting, { state: 'waiting' });
    set(use.max, { state: 'max' });
  }, ['state']);
  counter(registry, 'parley_response_cache_answers_total', 'Public answers (lists, single comments) served from the response cache (hit) or built (miss)', 'result', () => {
    const { hits, misses } = sources.responseCache();
    return [['hit', hits], ['miss', misses]];
  });
  gauge(registry, 'parley_response_cache_hit_ratio', 'Share of public answers served from the response cache since the start', (set) => {
    const { hits, misses } = sources.responseCache();
    set(hits + misses === 0 ? 0 : hits / (hits + misses));
  });
  gauge(registry, 'parley_live_streams_open', 'Live update streams (SSE) open on this instance', (set) => set(sources.openStreams()));
  return { registry, recordRequest };
}

/** Both queue gauges of one scrape read the same query's answer. */
const pending = new WeakMap<Db, { at: number; answer: Promise<{ depth: number; oldest: string | null }> }>();

function pendingDeliveries(db: Db): Promise<{ depth: number; oldest: string | null }> {
  const kept = pending.get(db);
  if (kept && Date.now() - kept.at < 1000) return kept.answer;
  const answer = db.kysely
    .selectFrom('webhook_deliveries')
    .select((eb) => [eb.fn.countAll<number | string>().as('depth'), eb.fn.min('created_at').as('oldest')])
    .where('state', '=', 'pending')
    .executeTakeFirstOrThrow()
    .then((row) => ({ depth: Number(row.depth), oldest: row.oldest }));
  pending.set(db, { at: Date.now(), answer });
  return answer;
}
