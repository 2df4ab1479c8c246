import type { Kysely } from 'kysely';
import { hashSecret } from '../auth/secrets.ts';
import { nowIso } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { newId } from '../ids.ts';

export const MAIL_KINDS = ['confirm', 'reply', 'moderation', 'reset'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** Kinds whose data holds a link's secret: it is wiped once the mail is sent. */
export const SECRET_KINDS: readonly MailKind[] = ['confirm', 'reset'];

export interface QueuedMail {
  kind: MailKind;
  /** What caused it, unique per kind (a reply's id, a link's id...); with the recipient, the idempotency key. */
  cause: string;
  recipient: string;
  siteId: string | null;
  threadId?: string | null;
  data: Record<string, unknown>;
  /** Not before then (the reply roll-up); now when absent. */
  dueAt?: string;
}

/** Transactions that queued a mail, so whoever commits them can wake the worker (see withEvents). */
const queuedIn = new WeakSet<Kysely<Database>>();

export function queuedMail(trx: Kysely<Database>): boolean {
  return queuedIn.has(trx);
}

/** The idempotency key of a mail: its kind, its cause and its recipient, hashed so no address shows in it. */
export function idempotencyKey(kind: MailKind, cause: string, recipient: string): string {
  return `${kind}:${hashSecret(`${cause}\n${recipient}`).slice(0, 40)}`;
}

/**
 * Queues a mail in the transaction of its cause: it exists if and only if that change committed.
 * The same cause queued again for the same recipient (a retried request, a second approval) adds nothing.
 */
export async function queueMail(trx: Kysely<Database>, mail: QueuedMail): Promise<void> {
  const now = nowIso();
  await trx
    .insertInto('mail_outbox')
    .values({
      id: newId('mail'),
      idempotency_key: idempotencyKey(mail.kind, mail.cause, mail.recipient),
      kind: mail.kind,
      recipient: mail.recipient,
      site_id: mail.siteId,
      thread_id: mail.threadId ?? null,
      data: JSON.stringify(mail.data),
      state: 'pending',
      attempt_count: 0,
      next_attempt_at: mail.dueAt && mail.dueAt > now ? mail.dueAt : now,
      lease_until: null,
      last_error: null,
      created_at: now,
      sent_at: null,
    })
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .execute();
  queuedIn.add(trx);
}

/** Mails waiting to be sent (due now or later), for /metrics. */
export async function mailQueueDepth(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll<number | string>().as('n')).where('state', '=', 'pending').executeTakeFirstOrThrow();
  return Number(row.n);
}
