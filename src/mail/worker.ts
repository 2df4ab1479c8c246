import type { FastifyBaseLogger } from 'fastify';
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { createTransport } from 'nodemailer';
import { nowIso } from '../clock.ts';
import { LOG_TRANSPORT, type MailConfig } from '../config.ts';
import type { Db } from '../db/connect.ts';
import { exclusiveTransaction, skipLocked } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { startPoller } from '../outbox/poller.ts';
import { retryAt } from '../outbox/retry.ts';
import { compose, type Composed, type MailRow } from './compose.ts';
import { SECRET_KINDS, type MailKind } from './outbox.ts';
import { MODERATION_MAIL_INTERVAL_MS, type ModerationMailData } from './moderators.ts';
import { mailedPerEvent, REPLY_MAIL_INTERVAL_MS } from './readers.ts';
import { MENTION_MAIL_INTERVAL_MS, stillMentioned } from './mentions.ts';
import { FOLLOWED_MAIL_INTERVAL_MS, stillNotified } from './notification-mails.ts';
import { queueDueDigests } from './digests.ts';

const POLL_MS = 1_000;

export interface MailWorker {
  stop(): Promise<void>;
}

/** A claim holds past the longest handover (its time-out) and the writing of its outcome: only a dead worker's claim is taken over. */
function leaseMs(mail: MailConfig): number {
  return 2 * mail.timeoutMs + 5_000;
}

function claimable(now: string) {
  return (eb: ExpressionBuilder<Database, 'mail_outbox'>) =>
    eb.and([
      eb(sql<string>`${sql.ref('mail_outbox.state')} || ''`, '=', 'pending'),
      eb('mail_outbox.next_attempt_at', '<=', now),
      eb.or([eb('mail_outbox.lease_until', 'is', null), eb('mail_outbox.lease_until', '<', now)]),
    ]);
}

/**
 * Takes a lease on the oldest due mail no one holds; what comes back is this worker's alone. One at
 * a time, each with a lease of its own: a batch sent one after another behind a slow server would
 * outlive its leases, and another instance would send the rest again. The id is compared with `=`:
 * PostgreSQL evaluates that subquery once, where `in` let it run again per row and lease two.
 */
async function claimDue(db: Db, now: string, leaseUntil: string): Promise<MailRow | undefined> {
  const due = db.kysely.selectFrom('mail_outbox').select('id').where('state', '=', 'pending').where(claimable(now)).orderBy('next_attempt_at').limit(1);
  return db.kysely
    .updateTable('mail_outbox')
    .set({ lease_until: leaseUntil })
    .where('id', '=', skipLocked(db.dialect, due))
    .where(claimable(now))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Mails that roll into one: a recipient's reply mails of one thread, their mention mails of one
 * thread, their mails about a followed thread, and a staff member's moderation mails of one site. At most one mail of a group goes per
 * interval; those queued meanwhile go together in the next.
 */
interface MailGroup {
  kind: 'reply' | 'mention' | 'moderation' | 'followed';
  recipient: string;
  by: 'thread_id' | 'site_id';
  key: string;
  intervalMs: number;
}

function groupOf(row: MailRow): MailGroup | null {
  if (row.kind === 'reply' && row.thread_id !== null) return { kind: 'reply', recipient: row.recipient, by: 'thread_id', key: row.thread_id, intervalMs: REPLY_MAIL_INTERVAL_MS };
  if (row.kind === 'mention' && row.thread_id !== null) return { kind: 'mention', recipient: row.recipient, by: 'thread_id', key: row.thread_id, intervalMs: MENTION_MAIL_INTERVAL_MS };
  if (row.kind === 'followed' && row.thread_id !== null) return { kind: 'followed', recipient: row.recipient, by: 'thread_id', key: row.thread_id, intervalMs: FOLLOWED_MAIL_INTERVAL_MS };
  if (row.kind === 'moderation' && row.site_id !== null) return { kind: 'moderation', recipient: row.recipient, by: 'site_id', key: row.site_id, intervalMs: MODERATION_MAIL_INTERVAL_MS };
  return null;
}

/** The group's rows, through mail_outbox_thread or mail_outbox_site. */
function inGroup(group: MailGroup) {
  return (eb: ExpressionBuilder<Database, 'mail_outbox'>) =>
    eb.and([eb('mail_outbox.recipient', '=', group.recipient), eb(`mail_outbox.${group.by}`, '=', group.key), eb('mail_outbox.kind', '=', group.kind)]);
}

function later(a: string, b: string): string {
  return a > b ? a : b;
}

/**
 * Whether a claimed mail goes now, and with which others of its group. Decided under a lock of the
 * group, as the mails of a group fall due together and each instance's worker may claim one: the
 * first to decide takes the group, the others then see it taken and wait.
 * - The group's last mail went less than the interval ago: the claimed one waits for its end.
 * - Another of the group is due later than now: it is being sent (the worker that takes a group
 *   makes its mails due when its lease ends, should it die), or the SMTP server refused the group and
 *   it waits for its retry. The claimed one waits for it, and then goes with it or after it.
 * - Else the worker takes every pending mail of the group that no one else holds, due or not.
 * Null when the claimed mail waits.
 */
async function takeGroup(db: Db, claimed: MailRow, now: string, leaseUntil: string): Promise<MailRow[] | null> {
  const group = groupOf(claimed);
  if (group === null) return [claimed];
  return exclusiveTransaction(db.kysely, db.dialect, `mail:${group.kind}:${group.key}:${group.recipient}`, async (trx) => {
    // One statement: on PostgreSQL its subqueries read one snapshot, so a group that another worker
    // records as sent in between is seen either pending and due later, or sent.
    const times = await trx
      .selectNoFrom((eb) => [
        eb.selectFrom('mail_outbox').select((sub) => sub.fn.max('sent_at').as('last')).where(inGroup(group)).where('state', '=', 'sent').as('last_sent'),
        eb
          .selectFrom('mail_outbox')
          .select('next_attempt_at')
          .where(inGroup(group))
          .where('state', '=', 'pending')
          .where('sent_at', 'is', null)
          .where('next_attempt_at', '>', now)
          .orderBy('sent_at')
          .orderBy('next_attempt_at')
          .limit(1)
          .as('next_due'),
      ])
      .executeTakeFirstOrThrow();
    const intervalEnd = times.last_sent ? new Date(Date.parse(times.last_sent as string) + group.intervalMs).toISOString() : now;
    const earliest = later(intervalEnd, times.next_due ?? now);
    if (earliest > now) {
      await trx.updateTable('mail_outbox').set({ next_attempt_at: earliest, lease_until: null }).where('id', '=', claimed.id).execute();
      return null;
    }
    const rows = await trx
      .updateTable('mail_outbox')
      .set({ lease_until: leaseUntil, next_attempt_at: leaseUntil })
      .where(inGroup(group))
      .where('state', '=', 'pending')
      .where((eb) => eb.or([eb('id', '=', claimed.id), eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
      .returningAll()
      .execute();
    return rows.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  });
}

/**
 * Statements that name a group's mails by id take them in slices: a spam wave's ten minutes roll
 * thousands into one mail, more than a statement takes as parameters (32,766 on SQLite).
 */
const IDS_PER_STATEMENT = 1_000;

function slices<T>(items: T[]): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += IDS_PER_STATEMENT) result.push(items.slice(start, start + IDS_PER_STATEMENT));
  return result;
}

/** Reply mails whose subscription was stopped since (or whose address was), or is not confirmed, or whose reader chose digests since, are dropped, not sent. */
async function subscribed(db: Kysely<Database>, rows: MailRow[]): Promise<MailRow[]> {
  const commentIds = rows.map((row) => (JSON.parse(row.data) as { comment_id: string }).comment_id);
  const on = new Set<string>();
  for (const slice of slices([...new Set(commentIds)])) {
    const active = await db
      .selectFrom('mail_subscriptions as s')
      .innerJoin('mail_addresses as a', 'a.id', 's.address_id')
      .innerJoin('comments as p', 'p.id', 's.comment_id')
      .where('s.comment_id', 'in', slice)
      .where('s.unsubscribed_at', 'is', null)
      .where('s.confirmed_at', 'is not', null)
      .where('a.unsubscribed_at', 'is', null)
      .where(mailedPerEvent)
      .select('s.comment_id')
      .execute();
    for (const row of active) on.add(row.comment_id);
  }
  return rows.filter((_, i) => on.has(commentIds[i]));
}

/**
 * Moderation mails whose comment no longer waits are dropped: approved, removed or deleted since it
 * was held; its flags dismissed, or it was removed, since it was flagged (the queue's tabs, as
 * moderation/queue.ts filters them).
 */
async function stillWaiting(db: Kysely<Database>, rows: MailRow[]): Promise<MailRow[]> {
  const data = rows.map((row) => JSON.parse(row.data) as ModerationMailData);
  const waiting = new Set<string>();
  for (const slice of slices([...new Set(data.map((d) => d.comment_id))])) {
    const comments = await db.selectFrom('comments').select(['id', 'status', 'is_deleted', 'flag_count']).where('id', 'in', slice).execute();
    for (const c of comments) {
      if (c.is_deleted) continue;
      if (c.status === 'pending') waiting.add(`pending:${c.id}`);
      if (c.status === 'published' && Number(c.flag_count) > 0) waiting.add(`flagged:${c.id}`);
    }
  }
  return rows.filter((_, i) => waiting.has(`${data[i].why}:${data[i].comment_id}`));
}

async function stillWanted(db: Kysely<Database>, rows: MailRow[]): Promise<{ wanted: MailRow[]; unwanted: MailRow[] }> {
  const kind = rows[0].kind as MailKind;
  const check: Partial<Record<MailKind, (db: Kysely<Database>, rows: MailRow[]) => Promise<MailRow[]>>> = {
    reply: subscribed,
    mention: stillMentioned,
    moderation: stillWaiting,
    followed: stillNotified,
    notice: stillNotified,
  };
  const wanted = (await check[kind]?.(db, rows)) ?? rows;
  const kept = new Set(wanted);
  return { wanted, unwanted: rows.filter((row) => !kept.has(row)) };
}

function ids(rows: MailRow[]): string[] {
  return rows.map((row) => row.id);
}

async function settle(db: Kysely<Database>, rows: MailRow[], state: 'sent' | 'dropped', attempted: boolean): Promise<void> {
  if (rows.length === 0) return;
  const wipe = SECRET_KINDS.includes(rows[0].kind as MailKind) ? { data: '{}' } : {};
  const sentAt = state === 'sent' ? nowIso() : null;
  await db.transaction().execute(async (trx) => {
    for (const slice of slices(ids(rows))) {
      await trx
        .updateTable('mail_outbox')
        .set((eb) => ({
          state,
          sent_at: sentAt,
          lease_until: null,
          last_error: null,
          attempt_count: attempted ? eb('attempt_count', '+', 1) : eb.ref('attempt_count'),
          ...wipe,
        }))
        .where('id', 'in', slice)
        .execute();
    }
  });
}

/**
 * After a refusal, a mail's next try follows the schedule (counted by its own attempts); past its
 * end it has failed. Mails rolled into one are tried again as one, when the schedule of the one tried
 * most says: one that joined its group later is not tried sooner than the group, and has tries left
 * when the first ones have used theirs up.
 */
async function recordFailure(db: Kysely<Database>, rows: MailRow[], mail: MailConfig, attempt: { at: string; duration_ms: number }, error: string): Promise<void> {
  const retries = rows.map((row) => retryAt(attempt, row.attempt_count, mail.retryDelaysMs));
  const next = retries.reduce<string | null>((latest, at) => (at === null ? latest : latest === null ? at : later(latest, at)), null);
  const outcomes = [
    { state: 'failed', nextAttemptAt: null, rows: rows.filter((_, i) => retries[i] === null) },
    { state: 'pending', nextAttemptAt: next, rows: rows.filter((_, i) => retries[i] !== null) },
  ];
  await db.transaction().execute(async (trx) => {
    for (const outcome of outcomes) {
      for (const slice of slices(ids(outcome.rows))) {
        await trx
          .updateTable('mail_outbox')
          .set((eb) => ({ state: outcome.state, next_attempt_at: outcome.nextAttemptAt, lease_until: null, last_error: error, attempt_count: eb('attempt_count', '+', 1) }))
          .where('id', 'in', slice)
          .execute();
      }
    }
  });
}

/** Stable, short: the SMTP client's code and the server's answer, for the log and the row. */
function describe(error: unknown): string {
  const e = error as { code?: string; responseCode?: number; response?: string; message?: string };
  return [e.code ?? 'ERROR', e.responseCode, (e.response ?? e.message ?? '').slice(0, 200)].filter((part) => part !== undefined && part !== '').join(' ');
}

/**
 * Polls the mail outbox, claims due mails with a lease and hands them to the SMTP server, one after
 * another; retries a refused one on the schedule. Claims are leases in the database, so several
 * instances can run this at once, and a mail whose worker died is sent by the next one. A mail's
 * Message-ID is made from its idempotency key: the one mail a crash after the server took it but
 * before it was recorded could send twice carries the same id both times.
 */
export function startMailWorker(db: Db, mail: MailConfig, log: FastifyBaseLogger): MailWorker {
  const toLog = mail.smtpUrl === LOG_TRANSPORT;
  // Loaded only when mail is on: loading nodemailer costs a process about 16 MB of RSS.
  const transport: Promise<ReturnType<typeof createTransport>> = import('nodemailer').then((nodemailer) =>
    toLog
      ? nodemailer.createTransport({ jsonTransport: true })
      : nodemailer.createTransport({ url: mail.smtpUrl, connectionTimeout: mail.timeoutMs, greetingTimeout: mail.timeoutMs, socketTimeout: mail.timeoutMs }),
  );
  const host = new URL(mail.publicUrl).hostname;
  if (toLog) {
    log.warn(
      `PARLEY_SMTP_URL=${LOG_TRANSPORT} mails are written to this log and not delivered, for development only: ` +
        'each one, with its recipient and its links (confirmation, unsubscribe, password reset), is logged at info level',
    );
  }

  async function handOver(rows: MailRow[], composed: Composed): Promise<void> {
    const row = rows[0];
    const handed = await (await transport).sendMail({
      from: { name: composed.senderName, address: mail.from },
      to: row.recipient,
      subject: composed.subject,
      text: composed.text,
      html: composed.html,
      messageId: `<${row.idempotency_key.replace(':', '.')}@${host}>`,
      headers: composed.unsubscribe ? { 'List-Unsubscribe': `<${composed.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {},
    });
    if (toLog) logMessage(row, handed.message as string);
  }

  /** What nodemailer's JSON transport built, as a reader would read it (the HTML body says the same). */
  function logMessage(row: MailRow, json: string): void {
    const message = JSON.parse(json) as { subject: string; text: string; from: { name: string; address: string }; to: Array<{ address: string }> };
    const sent = { mail_from: message.from, mail_to: message.to.map((to) => to.address).join(', '), mail_subject: message.subject, mail_text: message.text };
    log.info({ mail: row.id, kind: row.kind, ...sent }, `mail written to the log, not delivered (PARLEY_SMTP_URL=${LOG_TRANSPORT})`);
  }

  async function send(claimed: MailRow, now: string, leaseUntil: string): Promise<void> {
    const group = await takeGroup(db, claimed, now, leaseUntil);
    if (group === null) return;
    const { wanted, unwanted } = await stillWanted(db.kysely, group);
    await settle(db.kysely, unwanted, 'dropped', false);
    if (wanted.length === 0) return;
    const composed = await compose(db.kysely, mail, wanted);
    if (composed === null) return settle(db.kysely, wanted, 'dropped', false);
    const at = nowIso();
    const started = Date.now();
    try {
      await handOver(wanted, composed);
    } catch (error) {
      const reason = describe(error);
      log.warn({ mail: claimed.id, kind: claimed.kind, attempt: claimed.attempt_count + 1, error: reason }, 'the SMTP server did not take a mail; it is tried again later');
      return recordFailure(db.kysely, wanted, mail, { at, duration_ms: Date.now() - started }, reason);
    }
    await settle(db.kysely, wanted, 'sent', true);
    log.info({ mail: claimed.id, kind: claimed.kind, rolled: wanted.length }, 'mail sent');
  }

  let stopping = false;

  /** Queues the digests due, then sends due mails one after another until none is left; on shutdown, the one under way is finished. */
  async function poll(): Promise<void> {
    await queueDueDigests(db.kysely, nowIso());
    while (!stopping) {
      const now = nowIso();
      const leaseUntil = new Date(Date.parse(now) + leaseMs(mail)).toISOString();
      const row = await claimDue(db, now, leaseUntil);
      if (!row) return;
      try {
        await send(row, now, leaseUntil);
      } catch (error) {
        log.error({ err: error, mail: row.id }, 'a mail could not be prepared or recorded; its lease runs out and it is tried again');
      }
    }
  }

  const poller = startPoller(poll, POLL_MS, (error) => log.error({ err: error }, 'mail worker could not poll'));
  db.changes.onMailsQueued(() => poller.kick());
  return {
    async stop() {
      stopping = true;
      await poller.stop();
      (await transport).close();
    },
  };
}
