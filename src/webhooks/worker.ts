import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connect.ts';
import { claim, dueCandidates, type Candidate, type DeliveryRow } from './repository.ts';
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
const CANDIDATE_PASSES = 3;

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
 * attempts at once, or MAX_IN_FLIGHT_PER_FAST_HOST while it answers quickly; a full host's sites
 * are left out of the next polls, so a hanging receiver delays only its own deliveries (and a fast
 * host that starts hanging drops back to the small cap as soon as an attempt has run SLOW_MS). The
 * worker polls again when the attempts of its last batch are half done, or every POLL_MS. Claims are
 * leases in the database, so several instances can run this at once.
 */
export function startDeliveryWorker(db: Db, policy: DeliveryPolicy, log: FastifyBaseLogger): DeliveryWorker {
  const inFlight = new Map<string, Promise<void>>();
  const hosts = new Map<string, HostLoad>();
  /** Sites seen pointing at a host that is full, kept out of the poll until the host has room. */
  const waitingSites = new Map<string, Set<string>>();
  /** Attempts in flight at or below which the worker polls for more before the timer would. */
  let refillAt = 0;
  let stopping = false;
  let ticking: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;

  function capOf(host: string, now: number): number {
    const load = hosts.get(host);
    if (!load || load.lastTookMs >= SLOW_MS) return MAX_IN_FLIGHT_PER_HOST;
    const oldest = load.started[0];
    return oldest !== undefined && now - oldest >= SLOW_MS ? MAX_IN_FLIGHT_PER_HOST : MAX_IN_FLIGHT_PER_FAST_HOST;
  }

  const isFull = (host: string) => (hosts.get(host)?.inFlight ?? 0) >= capOf(host, Date.now());

  function start(delivery: DeliveryRow, candidate: Candidate): void {
    const host = hostOf(candidate.url);
    const load = hosts.get(host) ?? { inFlight: 0, started: [], lastTookMs: SLOW_MS };
    hosts.set(host, load);
    const startedAt = Date.now();
    load.inFlight += 1;
    load.started.push(startedAt);
    const run = attemptDelivery(db.kysely, delivery, candidate, policy)
      .then(
        (attempt) => log.debug({ delivery: delivery.id, ...attempt }, 'webhook attempt'),
        (error) => log.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        inFlight.delete(delivery.id);
        load.inFlight -= 1;
        load.started.splice(load.started.indexOf(startedAt), 1);
        load.lastTookMs = Date.now() - startedAt;
        if (!isFull(host)) waitingSites.delete(host);
        if (inFlight.size <= refillAt) kick();
      });
    inFlight.set(delivery.id, run);
  }

  /** Picks candidates within the limits, claims them and starts them. */
  async function fill(): Promise<void> {
    for (let pass = 0; pass < CANDIDATE_PASSES; pass += 1) {
      const free = MAX_IN_FLIGHT - inFlight.size;
      if (stopping || free <= 0) return;
      const now = new Date();
      const excluded = [...waitingSites.values()].flatMap((sites) => [...sites]);
      const limit = free * 2;
      const candidates = await dueCandidates(db.kysely, now.toISOString(), excluded, limit);
      const picked: Candidate[] = [];
      const pickedPerHost = new Map<string, number>();
      const leftOut: Candidate[] = [];
      for (const candidate of candidates) {
        if (picked.length === free) break;
        const host = hostOf(candidate.url);
        const load = (hosts.get(host)?.inFlight ?? 0) + (pickedPerHost.get(host) ?? 0);
        if (load >= capOf(host, now.getTime())) {
          leftOut.push(candidate);
          continue;
        }
        picked.push(candidate);
        pickedPerHost.set(host, (pickedPerHost.get(host) ?? 0) + 1);
      }
      const leaseUntil = new Date(now.getTime() + leaseMs(policy)).toISOString();
      const claimed = await claim(db, picked.map((c) => c.id), now.toISOString(), leaseUntil);
      const byId = new Map(picked.map((c) => [c.id, c]));
      for (const delivery of claimed) start(delivery, byId.get(delivery.id)!);
      refillAt = Math.floor(inFlight.size / 2);
      // A site waits only for a host that is full with this worker's own attempts, whose ends clear
      // the wait. Picks another instance claimed first leave the host with room: the next poll
      // tries again (waiting then would starve this worker of that site for good).
      let learned = false;
      for (const candidate of leftOut) {
        const host = hostOf(candidate.url);
        if (!isFull(host)) continue;
        waitingSites.set(host, (waitingSites.get(host) ?? new Set<string>()).add(candidate.siteId));
        learned = true;
      }
      if (!learned || candidates.length < limit) return;
    }
  }
  /** A kick while a poll runs is remembered: the attempts that ended meanwhile asked for one more. */
  let kickedWhileTicking = false;
  function kick(): void {
    if (stopping) return;
    if (ticking) {
      kickedWhileTicking = true;
      return;
    }
    kickedWhileTicking = false;
    ticking = fill()
      .catch((error) => log.error({ err: error }, 'webhook worker could not poll'))
      .finally(() => {
        ticking = null;
        if (kickedWhileTicking) kick();
      });
  }

  function loop(): void {
    kick();
    if (!stopping) timer = setTimeout(loop, POLL_MS);
  }
  loop();

  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await ticking;
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
