import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connect.ts';
import type { Tally } from '../metrics/tally.ts';
import { dueAlerts } from '../alerts/due.ts';
import { claim, dueOf, dueSites, type DeliveryRow, type Target } from './repository.ts';
import type { AttemptRecord } from './send.ts';
import { startPoller } from '../outbox/poller.ts';
import { attemptDelivery, leaseMs, type DeliveryPolicy } from './service.ts';

/** Attempts in flight in one process. */
export const MAX_IN_FLIGHT = 128;
/**
 * Attempts in flight towards one receiver host that has not shown itself fast: a new host, or one
 * whose last attempt took SLOW_MS or more, or one with an attempt under way for that long.
 */
export const MAX_IN_FLIGHT_PER_HOST = 4;
/** Attempts in flight towards a host whose attempts end within SLOW_MS. */
export const MAX_IN_FLIGHT_PER_FAST_HOST = 32;
const SLOW_MS = 1_000;
const POLL_MS = 250;

/** An attempt as /metrics counts it: delivered, answered with an error status, or not answered at all. */
function outcomeOf(attempt: AttemptRecord): 'delivered' | 'error_status' | 'no_answer' {
  if (attempt.error === null) return 'delivered';
  return attempt.status_code === null ? 'no_answer' : 'error_status';
}

export interface DeliveryWorker {
  /** Stops claiming and waits for the attempts in flight (each bounded by the time-out). */
  stop(): Promise<void>;
}

function hostOf(url: string | null): string {
  if (url === null) return '';
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

interface HostLoad {
  inFlight: number;
  /** Start times of the attempts under way, oldest first. */
  started: number[];
  lastTookMs: number;
}

/**
 * Polls for due deliveries, claims a batch and attempts them. A host takes MAX_IN_FLIGHT_PER_HOST
 * attempts at once, or MAX_IN_FLIGHT_PER_FAST_HOST while it answers quickly (a fast host that starts
 * hanging drops back to the small cap as soon as an attempt has run SLOW_MS). A poll asks which sites
 * have deliveries due, then reads only as many of each site's as its host has room for: a hanging
 * receiver's backlog is never read, so it delays only its own deliveries. The worker polls again
 * when half the attempts of its last batch are done, when this process commits a new delivery
 * (db.changes), or every POLL_MS. Claims are leases in the database, so several instances can run
 * this at once.
 */
export function startDeliveryWorker(db: Db, policy: DeliveryPolicy, log: FastifyBaseLogger, outcomes: Tally): DeliveryWorker {
  const inFlight = new Map<string, Promise<void>>();
  const hosts = new Map<string, HostLoad>();
  let stopping = false;

  function capOf(host: string, now: number): number {
    const load = hosts.get(host);
    if (!load || load.lastTookMs >= SLOW_MS) return MAX_IN_FLIGHT_PER_HOST;
    const oldest = load.started[0];
    return oldest !== undefined && now - oldest >= SLOW_MS ? MAX_IN_FLIGHT_PER_HOST : MAX_IN_FLIGHT_PER_FAST_HOST;
  }

  /**
   * `batch` counts the attempts of one poll still under way; when half of them are done the worker
   * polls again. Counted per batch, so attempts still hanging from earlier polls never hold it back.
   */
  function start(delivery: DeliveryRow, site: Target, batch: { size: number; left: number }): void {
    const host = hostOf(site.url);
    const load = hosts.get(host) ?? { inFlight: 0, started: [], lastTookMs: SLOW_MS };
    hosts.set(host, load);
    const startedAt = Date.now();
    load.inFlight += 1;
    load.started.push(startedAt);
    const run = attemptDelivery(db.kysely, delivery, site, policy)
      .then(
        (attempt) => {
          outcomes.add(outcomeOf(attempt));
          log.debug({ delivery: delivery.id, ...attempt }, 'webhook attempt');
        },
        (error) => log.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        inFlight.delete(delivery.id);
        load.inFlight -= 1;
        load.started.splice(load.started.indexOf(startedAt), 1);
        load.lastTookMs = Date.now() - startedAt;
        batch.left -= 1;
        if (batch.left === Math.floor(batch.size / 2)) kick();
      });
    inFlight.set(delivery.id, run);
  }

  /** Shares the free slots among the due sites, oldest first, as far as each one's host has room. */
  function allot(sites: Target[], free: number, now: number): { site: Target; count: number }[] {
    const room = new Map<string, number>();
    const shares: { site: Target; count: number }[] = [];
    for (const site of sites) {
      if (free === 0) break;
      const host = hostOf(site.url);
      const left = room.get(host) ?? capOf(host, now) - (hosts.get(host)?.inFlight ?? 0);
      const count = Math.min(left, free);
      if (count <= 0) continue;
      room.set(host, left - count);
      free -= count;
      shares.push({ site, count });
    }
    return shares;
  }

  /** Picks due deliveries within the limits, claims them and starts them. */
  async function fill(): Promise<void> {
    const free = MAX_IN_FLIGHT - inFlight.size;
    if (stopping || free <= 0) return;
    const now = new Date();
    const at = now.toISOString();
    const [alerts, sites] = await Promise.all([dueAlerts(db.kysely, at, policy.publicUrl), dueSites(db.kysely, at)]);
    const shares = allot([...alerts, ...sites], free, now.getTime());
    const picked = await Promise.all(shares.map(({ site, count }) => dueOf(db.kysely, site, at, count)));
    const siteOf = new Map(shares.flatMap(({ site }, i) => picked[i]!.map((id) => [id, site] as const)));
    const leaseUntil = new Date(now.getTime() + leaseMs(policy)).toISOString();
    const claimed = await claim(db, [...siteOf.keys()], at, leaseUntil);
    const batch = { size: claimed.length, left: claimed.length };
    for (const delivery of claimed) start(delivery, siteOf.get(delivery.id)!, batch);
  }
  const poller = startPoller(fill, POLL_MS, (error) => log.error({ err: error }, 'webhook worker could not poll'));
  const kick = () => poller.kick();
  db.changes.onDeliveriesQueued(kick);

  return {
    async stop() {
      stopping = true;
      await poller.stop();
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
