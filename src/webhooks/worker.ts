import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connect.ts';
import { claim, dueCandidates, type Candidate, type DeliveryRow } from './repository.ts';
import { attemptDelivery, leaseMs, type DeliveryPolicy } from './service.ts';

/** Attempts in flight in one process, overall and towards one receiver host. */
export const MAX_IN_FLIGHT = 32;
export const MAX_IN_FLIGHT_PER_HOST = 4;
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

/**
 * Polls for due deliveries and attempts them. A host with MAX_IN_FLIGHT_PER_HOST attempts under way
 * takes no more, and its sites are left out of the next polls, so a hanging receiver delays only
 * its own deliveries. Claims are leases in the database, so several instances can run this at once.
 */
export function startDeliveryWorker(db: Db, policy: DeliveryPolicy, log: FastifyBaseLogger): DeliveryWorker {
  const inFlight = new Map<string, Promise<void>>();
  const perHost = new Map<string, number>();
  /** Sites seen pointing at a host that is full, kept out of the poll until the host has room. */
  const waitingSites = new Map<string, Set<string>>();
  let stopping = false;
  let ticking: Promise<void> | null = null;
  let timer: NodeJS.Timeout | undefined;

  const isFull = (host: string) => (perHost.get(host) ?? 0) >= MAX_IN_FLIGHT_PER_HOST;

  function start(delivery: DeliveryRow, candidate: Candidate): void {
    const host = hostOf(candidate.url);
    perHost.set(host, (perHost.get(host) ?? 0) + 1);
    const run = attemptDelivery(db.kysely, delivery, candidate, policy)
      .then(
        (attempt) => log.debug({ delivery: delivery.id, ...attempt }, 'webhook attempt'),
        (error) => log.error({ err: error, delivery: delivery.id }, 'webhook attempt could not be recorded'),
      )
      .finally(() => {
        inFlight.delete(delivery.id);
        const left = (perHost.get(host) ?? 1) - 1;
        if (left === 0) perHost.delete(host);
        else perHost.set(host, left);
        if (!isFull(host)) waitingSites.delete(host);
        kick();
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
      const limit = free * 4;
      const candidates = await dueCandidates(db.kysely, now.toISOString(), excluded, limit);
      const picked: Candidate[] = [];
      const pickedPerHost = new Map<string, number>();
      let learned = false;
      for (const candidate of candidates) {
        if (picked.length === free) break;
        const host = hostOf(candidate.url);
        const load = (perHost.get(host) ?? 0) + (pickedPerHost.get(host) ?? 0);
        if (load >= MAX_IN_FLIGHT_PER_HOST) {
          const sites = waitingSites.get(host) ?? new Set<string>();
          waitingSites.set(host, sites.add(candidate.siteId));
          learned = true;
          continue;
        }
        picked.push(candidate);
        pickedPerHost.set(host, (pickedPerHost.get(host) ?? 0) + 1);
      }
      const leaseUntil = new Date(now.getTime() + leaseMs(policy)).toISOString();
      const claimed = await claim(db, picked.map((c) => c.id), now.toISOString(), leaseUntil);
      const byId = new Map(picked.map((c) => [c.id, c]));
      for (const delivery of claimed) start(delivery, byId.get(delivery.id)!);
      if (!learned || candidates.length < limit) return;
    }
  }

  function kick(): void {
    if (stopping || ticking) return;
    ticking = fill()
      .catch((error) => log.error({ err: error }, 'webhook worker could not poll'))
      .finally(() => {
        ticking = null;
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
