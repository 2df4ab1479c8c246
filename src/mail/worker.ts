import type { FastifyBaseLogger } from 'fastify';
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import { createTransport } from 'nodemailer';
import { nowIso } from '../clock.ts';
import type { MailConfig } from '../config.ts';
import type { Db } from '../db/connect.ts';
import { skipLocked } from '../db/dialect.ts';
import type { Database } from '../db/schema.ts';
import { startPoller } from '../outbox/poller.ts';
import { retryAt } from '../outbox/retry.ts';
import { compose, type Composed, type MailRow } from './compose.ts';
import { SECRET_KINDS, type MailKind } from './outbox.ts';
import { lastReplyMailAt, REPLY_MAIL_INTERVAL_MS } from './readers.ts';

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
 * The other pending reply mails of the same thread to the same person roll into this one: they are
 * leased too, whether due yet or not (those another worker holds stay theirs).
 */
async function rollUp(db: Db, row: MailRow, now: string, leaseUntil: string): Promise<MailRow[]> {
  if (row.kind !== 'reply' || row.thread_id === null) return [row];
  const others = await db.kysely
    .updateTable('mail_outbox')
    .set({ lease_until: leaseUntil })
    .where('recipient', '=', row.recipient)
    .where('thread_id', '=', row.thread_id)
    .where('state', '=', 'pending')
    .where('kind', '=', 'reply')
    .where('id', '!=', row.id)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returningAll()
    .execute();
  return [row, ...others.sort((a, b) => a.created_at.localeCompare(b.created_at))];
}

/** Reply mails whose subscription was stopped since (or whose address was) are dropped, not sent. */
async function stillWanted(db: Kysely<Database>, rows: MailRow[]): Promise<{ wanted: MailRow[]; unwanted: MailRow[] }> {
  if (rows[0].kind !== 'reply') return { wanted: rows, unwanted: [] };
  const commentIds = rows.map((row) => (JSON.parse(row.data) as { comment_id: string }).comment_id);
  const active = await db
    .selectFrom('mail_subscriptions as s')
    .innerJoin('mail_addresses as a', 'a.id', 's.address_id')
    .select('s.comment_id')
    .where('s.comment_id', 'in', commentIds)
    .where('s.unsubscribed_at', 'is', null)
    .where('a.unsubscribed_at', 'is', null)
    .where('a.confirmed_at', 'is not', null)
    .execute();
  const on = new Set(active.map((a) => a.comment_id));
  const wanted = rows.filter((_, i) => on.has(commentIds[i]));
  return { wanted, unwanted: rows.filter((row) => !wanted.includes(row)) };
}

function ids(rows: MailRow[]): string[] {
  return rows.map((row) => row.id);
}

async function settle(db: Kysely<Database>, rows: MailRow[], state: 'sent' | 'dropped', attempted: boolean): Promise<void> {
  if (rows.length === 0) return;
  const wipe = SECRET_KINDS.includes(rows[0].kind as MailKind) ? { data: '{}' } : {};
  await db
    .updateTable('mail_outbox')
    .set((eb) => ({
      state,
      sent_at: state === 'sent' ? nowIso() : null,
      lease_until: null,
      last_error: null,
      attempt_count: attempted ? eb('attempt_count', '+', 1) : eb.ref('attempt_count'),
      ...wipe,
    }))
    .where('id', 'in', ids(rows))
    .execute();
}

/** After a refusal, each mail's next try follows the schedule (counted by its own attempts); past its end it has failed. */
async function recordFailure(db: Kysely<Database>, rows: MailRow[], mail: MailConfig, attempt: { at: string; duration_ms: number }, error: string): Promise<void> {
  for (const row of rows) {
    const next = retryAt(attempt, row.attempt_count, mail.retryDelaysMs);
    await db
      .updateTable('mail_outbox')
      .set({ state: next === null ? 'failed' : 'pending', next_attempt_at: next, lease_until: null, last_error: error, attempt_count: row.attempt_count + 1 })
      .where('id', '=', row.id)
      .execute();
  }
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
  const transport = createTransport({ url: mail.smtpUrl, connectionTimeout: mail.timeoutMs, greetingTimeout: mail.timeoutMs, socketTimeout: mail.timeoutMs });
  const host = new URL(mail.publicUrl).hostname;

  async function handOver(rows: MailRow[], composed: Composed): Promise<void> {
    const row = rows[0];
    await transport.sendMail({
      from: { name: composed.senderName, address: mail.from },
      to: row.recipient,
      subject: composed.subject,
      text: composed.text,
      html: composed.html,
      messageId: `<${row.idempotency_key.replace(':', '.')}@${host}>`,
      headers: composed.unsubscribe ? { 'List-Unsubscribe': `<${composed.unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : {},
    });
  }

  async function send(claimed: MailRow, now: string, leaseUntil: string): Promise<void> {
    const group = await rollUp(db, claimed, now, leaseUntil);
    if (claimed.kind === 'reply' && claimed.thread_id !== null) {
      const last = await lastReplyMailAt(db.kysely, claimed.recipient, claimed.thread_id);
      const earliest = last === null ? now : new Date(Date.parse(last) + REPLY_MAIL_INTERVAL_MS).toISOString();
      if (earliest > now) {
        await db.kysely.updateTable('mail_outbox').set({ next_attempt_at: earliest, lease_until: null }).where('id', 'in', ids(group)).execute();
        return;
      }
    }
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

  /** Sends due mails one after another until none is left; on shutdown, the one under way is finished. */
  async function poll(): Promise<void> {
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
      transport.close();
    },
  };
}
