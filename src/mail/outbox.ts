import type { Insertable, Kysely } from 'kysely';
import { hashSecret } from '../auth/secrets.ts';
import { nowIso } from '../clock.ts';
import { preparedQuery } from '../db/prepared.ts';
import type { Database, MailOutboxTable } from '../db/schema.ts';
import { newId } from '../ids.ts';

export const MAIL_KINDS = ['confirm', 'reply', 'mention', 'moderation', 'reset', 'verify', 'sign_in', 'followed', 'notice', 'digest', 'moderation_digest'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** Kinds whose data holds a link's secret (or a reader's sign-in code): it is wiped once the mail is sent. */
export const SECRET_KINDS: readonly MailKind[] = ['confirm', 'reset', 'verify', 'sign_in'];

export interface QueuedMail {
  kind: MailKind;
  /** What caused it, unique per kind (a reply's id, a link's id...); with the recipient, the idempotency key. */
  cause: string;
  recipient: string;
  /** Whom the mail is once for, when that is not its address: a mention is mailed once per comment and reader, whichever address they have then. */
  reader?: string;
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

/** The columns a queued mail is written with (the others start null), in the order of the prepared insert's values. */
const QUEUED_COLUMNS = ['id', 'idempotency_key', 'kind', 'recipient', 'site_id', 'thread_id', 'data', 'state', 'attempt_count', 'next_attempt_at', 'created_at'] as const;

/** An insert of `count` mails, each ignored if its idempotency key is queued already: compiled once per count. */
const insertMails = preparedQuery((db, count: number, ...values: unknown[]) =>
  db
    .insertInto('mail_outbox')
    .values(
      Array.from({ length: count }, (_, row) =>
        Object.fromEntries(QUEUED_COLUMNS.map((column, index) => [column, values[row * QUEUED_COLUMNS.length + index]])) as Insertable<MailOutboxTable>,
      ),
    )
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .compile(),
);

/**
 * Queues mails in the transaction of their cause: they exist if and only if that change committed.
 * The same cause queued again for the same recipient (a retried request, a second approval) adds
 * nothing. One statement for them all.
 */
export async function queueMails(trx: Kysely<Database>, mails: QueuedMail[]): Promise<void> {
  if (mails.length === 0) return;
  const now = nowIso();
  const values: unknown[] = [];
  for (const mail of mails) {
    const row: Record<(typeof QUEUED_COLUMNS)[number], unknown> = {
      id: newId('mail'),
      idempotency_key: idempotencyKey(mail.kind, mail.cause, mail.reader ?? mail.recipient),
      kind: mail.kind,
      recipient: mail.recipient,
      site_id: mail.siteId,
      thread_id: mail.threadId ?? null,
      data: JSON.stringify(mail.data),
      state: 'pending',
      attempt_count: 0,
      next_attempt_at: mail.dueAt && mail.dueAt > now ? mail.dueAt : now,
      created_at: now,
    };
    for (const column of QUEUED_COLUMNS) values.push(row[column]);
  }
  await insertMails(trx, mails.length, ...values);
  queuedIn.add(trx);
}

export function queueMail(trx: Kysely<Database>, mail: QueuedMail): Promise<void> {
  return queueMails(trx, [mail]);
}

/** Mails waiting to be sent (due now or later), for /metrics. */
export async function mailQueueDepth(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('mail_outbox').select((eb) => eb.fn.countAll<number | string>().as('n')).where('state', '=', 'pending').executeTakeFirstOrThrow();
  return Number(row.n);
}
