import type { FastifyBaseLogger } from 'fastify';
import { readerActor } from '../../audit/audit.ts';
import type { Caller } from '../../auth/caller.ts';
import { nowIso } from '../../clock.ts';
import { eraseUser } from '../../commenters/erase.ts';
import type { Db } from '../../db/connect.ts';
import { endSessions } from '../../sessions/service.ts';
import { findSite } from '../../sites/repository.ts';
import { readerOf, requireOwn } from './reader.ts';

/** Due accounts erased per statement that picks them. */
const SWEEP_BATCH = 100;
const SWEEP_INTERVAL_MS = 60_000;

/**
 * A reader deletes their own account. With a grace period, it is erased once the period has passed
 * (eraseDueAccounts) unless they sign in again before (openSession cancels it); their sessions end
 * now, so they are signed out everywhere. Without one, it is erased at once. A site's SSO or backend
 * users are the site's to delete.
 */
export async function deleteMyAccount(db: Db, graceMs: number, caller: Caller): Promise<{ erased: boolean; erase_after: string | null }> {
  const { site, user } = await readerOf(db, caller);
  requireOwn(user, "This account is the site's: ask the site to delete it");
  if (graceMs === 0) {
    await eraseUser(db, readerActor(user.id), site, user.id);
    return { erased: true, erase_after: null };
  }
  const eraseAfter = new Date(Date.now() + graceMs).toISOString();
  await db.kysely.transaction().execute(async (trx) => {
    await trx.updateTable('site_users').set({ erase_after: eraseAfter }).where('id', '=', user.id).where('erased_at', 'is', null).execute();
    await endSessions(trx, { siteId: site.id, userId: user.id });
  });
  return { erased: false, erase_after: eraseAfter };
}

/**
 * Erases up to SWEEP_BATCH accounts whose grace period has passed; answers how many. Safe on several
 * instances at once: each erasure claims its user in its transaction (eraseUser), only while still
 * due, so an account signed into meanwhile is kept and none is erased twice.
 */
export async function eraseDueAccounts(db: Db): Promise<number> {
  const now = nowIso();
  const due = await db.kysely
    .selectFrom('site_users')
    .select(['id', 'site_id'])
    .where('erase_after', '<=', now)
    .where('erased_at', 'is', null)
    .orderBy('erase_after')
    .limit(SWEEP_BATCH)
    .execute();
  let erased = 0;
  for (const user of due) {
    const site = await findSite(db.kysely, user.site_id);
    if (site && (await eraseUser(db, readerActor(user.id), site, user.id, { dueBy: now }))) erased += 1;
  }
  return erased;
}

export interface ErasureSweeper {
  stop(): Promise<void>;
}

/** Erases due accounts at start and every minute, a batch after another while batches come back full. */
export function startErasureSweeper(db: Db, log: FastifyBaseLogger): ErasureSweeper {
  let running: Promise<void> | null = null;
  const sweep = () => {
    running ??= (async () => {
      try {
        while ((await eraseDueAccounts(db)) === SWEEP_BATCH);
      } catch (err) {
        log.warn({ err }, 'erasing accounts their readers deleted failed; tried again in a minute');
      } finally {
        running = null;
      }
    })();
  };
  sweep();
  const timer = setInterval(sweep, SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
