import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';

/** How often an instance writes the keys it saw used: at most one write per key per interval. */
const FLUSH_EVERY_MS = 60_000;

/**
 * When each API key was last used, without a write per request: a request notes its key in memory
 * (a Map entry), and every minute each key noted is written once, off the request path. Several
 * instances each write theirs; the column keeps the latest. Lists read in this instance add what
 * it has noted and not written yet.
 */
export class KeyUse {
  #noted = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  note(keyId: string): void {
    this.#noted.set(keyId, Date.now());
  }

  /** The later of the stored time and one noted here. */
  lastUsedAt(keyId: string, stored: string | null): string | null {
    const noted = this.#noted.get(keyId);
    if (noted === undefined) return stored;
    const iso = new Date(noted).toISOString();
    return stored !== null && stored > iso ? stored : iso;
  }

  async flush(db: Kysely<Database>): Promise<void> {
    const noted = [...this.#noted];
    this.#noted.clear();
    for (const [keyId, at] of noted) {
      const iso = new Date(at).toISOString();
      await db
        .updateTable('api_keys')
        .set({ last_used_at: iso })
        .where('id', '=', keyId)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', iso)]))
        .execute();
    }
  }

  start(db: Kysely<Database>, onError: (error: unknown) => void): void {
    this.#timer = setInterval(() => {
      this.#flushing ??= this.flush(db)
        .catch(onError)
        .finally(() => (this.#flushing = null));
    }, FLUSH_EVERY_MS);
    this.#timer.unref();
  }

  /** Stops the timer and writes what is noted, before the database closes. */
  async stop(db: Kysely<Database>): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    await this.#flushing;
    await this.flush(db);
  }
}
