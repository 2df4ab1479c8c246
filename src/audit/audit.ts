import type { Kysely } from 'kysely';
import type { Caller } from '../auth/caller.ts';
import { actorRef } from '../auth/caller.ts';
import { nowIso } from '../clock.ts';
import { toCount } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';

/** Who made a change: a staff member, an API key, or the CLI run on the server (`cli`). */
export interface Actor {
  ref: string;
  name: string;
}

export const CLI_ACTOR: Actor = { ref: 'cli', name: 'parley CLI' };

/** A reader who deleted their own account (DELETE /v1/me): named by their user id alone, as what is left of them is. */
export function readerActor(userId: string): Actor {
  return { ref: userId, name: 'the reader themselves' };
}

export function actorOf(caller: Caller): Actor {
  if (caller.kind === 'key' || caller.kind === 'staff') return { ref: actorRef(caller)!, name: caller.name };
  throw new Error(`a ${caller.kind} caller changes nothing in an account`);
}

export interface AuditEntry {
  accountId: string;
  actor: Actor;
  /** What happened, as `<thing>.<verb>`: `member.invited`, `member.role_changed`… */
  action: string;
  target: string | null;
  data?: Record<string, unknown>;
}

/** Written in the transaction of the change it records. */
export async function recordAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId('aud'),
      account_id: entry.accountId,
      actor_ref: entry.actor.ref,
      actor_name: entry.actor.name,
      action: entry.action,
      target_ref: entry.target,
      data: JSON.stringify(entry.data ?? {}),
      created_at: nowIso(),
    })
    .execute();
}

/** An account's audit log, newest first. */
export async function auditLog(db: Kysely<Database>, accountId: string, page: number, limit: number) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .execute(),
    db.selectFrom('audit_log').select((eb) => eb.fn.countAll<string | number>().as('total')).where('account_id', '=', accountId).executeTakeFirstOrThrow(),
  ]);
  return {
    entries: rows.map((row) => ({
      id: row.id,
      actor: { id: row.actor_ref, name: row.actor_name },
      action: row.action,
      target: row.target_ref,
      data: JSON.parse(row.data) as Record<string, unknown>,
      created_at: row.created_at,
    })),
    total: toCount(count.total),
    page,
  };
}

/** Runs a management change and writes its audit entry in one new transaction. */
export async function audited<T>(db: Kysely<Database>, entry: AuditEntry, change: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const result = await change(trx);
    await recordAudit(trx, entry);
    return result;
  });
}
