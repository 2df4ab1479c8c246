import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Locale } from '../i18n/locales.ts';
import { newId } from '../ids.ts';
import { excerpt } from '../comments/excerpt.ts';
import { queueDeliveries } from '../webhooks/outbox.ts';
import type { AlertFacts } from './formats.ts';
import { alertsToQueue, eventsOf, type AlertEvent } from './repository.ts';

/**
 * Transactions that recorded a reader's first comment on the site (user.created): the comment.created
 * recorded next in the same transaction is that first comment.
 */
const firstCommentIn = new WeakSet<Transaction<Database>>();

interface EventComment {
  id: string;
  thread_url: string;
  author_name: string;
  content: string | null;
  status: string;
}

/** The alert events a recorded event may be, before any alert is read: most comments are none. */
/** What the alerts need of a recorded event (events/record.ts records them and calls queueAlerts). */
interface AlertableEvent {
  siteId: string | null;
  type: string;
  data: Record<string, unknown>;
}

function candidates(trx: Transaction<Database>, event: AlertableEvent): AlertEvent[] {
  if (event.type === 'comment.flagged') return ['comment.flagged'];
  if (event.type !== 'comment.created') return [];
  const comment = event.data.comment as EventComment;
  return [...(comment.status === 'pending' ? ['comment.held' as const] : []), ...(firstCommentIn.has(trx) ? ['comment.first' as const] : [])];
}

/** Whether the event may set off a chat alert (queueAlerts then reads the site's alerts); most comments cannot. */
export function mayAlert(trx: Transaction<Database>, event: AlertableEvent): boolean {
  return event.siteId !== null && candidates(trx, event).length > 0;
}

/** Readers who flagged the comment, dismissed flags included: each flagger counts once, ever. */
async function flaggers(trx: Transaction<Database>, commentId: string): Promise<number> {
  const row = await trx.selectFrom('flags').select((eb) => eb.fn.countAll<number>().as('n')).where('comment_id', '=', commentId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Queues the site's chat alerts an event sets off, in the transaction that records it (from
 * recordEvent): comment.held for a comment held on arrival, comment.first for a reader's first comment
 * on the site, comment.flagged when the readers who flagged a comment reach the alert's threshold (so
 * once per comment: flags are never counted twice). Each is a webhook delivery with the alert's id.
 */
export async function queueAlerts(trx: Transaction<Database>, eventId: string, event: AlertableEvent, createdAt: string): Promise<void> {
  if (event.type === 'user.created') firstCommentIn.add(trx);
  const wanted = candidates(trx, event);
  if (wanted.length === 0 || event.siteId === null) return;
  const alerts = (await alertsToQueue(trx, event.siteId)).filter((alert) => eventsOf(alert).some((name) => wanted.includes(name)));
  if (alerts.length === 0) return;
  const comment = event.data.comment as EventComment;
  const flags = wanted.includes('comment.flagged') ? await flaggers(trx, comment.id) : 0;
  const rows = alerts.flatMap((alert) =>
    wanted
      .filter((name) => eventsOf(alert).includes(name) && (name !== 'comment.flagged' || flags === alert.flag_threshold))
      .map((name) => {
        const facts: AlertFacts = {
          event: name,
          language: alert.site_language as Locale | null,
          site: { id: alert.site_id, name: alert.site_name },
          comment: { id: comment.id, thread_url: comment.thread_url, author_name: comment.author_name, excerpt: excerpt(comment.content) ?? '' },
          ...(name === 'comment.flagged' && { flags }),
        };
        return {
          id: newId('del'),
          site_id: alert.site_id,
          alert_id: alert.id,
          event_id: eventId,
          event: name,
          body: JSON.stringify(facts),
          state: 'pending',
          attempt_count: 0,
          run_attempts: 0,
          is_test: 0 as const,
          next_attempt_at: createdAt,
          lease_until: null,
          created_at: createdAt,
        };
      }),
  );
  await queueDeliveries(trx, rows);
}
