import type { FastifyBaseLogger } from 'fastify';
import type { ExpressionBuilder, Selectable } from 'kysely';
import { nowIso } from '../clock.ts';
import type { Db } from '../db/connect.ts';
import { skipLocked } from '../db/dialect.ts';
import type { Database, NotificationJobTable } from '../db/schema.ts';
import { withEvents } from '../events/record.ts';
import { newId } from '../ids.ts';
import { queueNotificationMails } from '../mail/notification-mails.ts';
import { startPoller } from '../outbox/poller.ts';
import { FOLLOWERS_PER_BATCH, followersAfter, namedRecipients, publicComment, type Recipient } from './recipients.ts';

type JobRow = Selectable<NotificationJobTable>;

const POLL_MS = 1_000;
/** A claim outlives a batch many times over; each batch's commit renews it. Only a dead worker's claim is taken over. */
const LEASE_MS = 30_000;
/** A job that failed waits this long, doubled per failure up to an hour. */
const FIRST_RETRY_MS = 5_000;
const LAST_RETRY_MS = 3600_000;

export interface NotificationWorker {
  stop(): Promise<void>;
}

/** Another worker took the job over (this one's lease ran out): what this one was writing is rolled back. */
class LeaseLost extends Error {}

function leaseFrom(now: string): string {
  return new Date(Date.parse(now) + LEASE_MS).toISOString();
}

function claimable(now: string) {
  return (eb: ExpressionBuilder<Database, 'notification_jobs'>) =>
    eb.and([eb('state', '=', 'pending'), eb('next_attempt_at', '<=', now), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)])]);
}

/** Takes a lease on the oldest due job no one holds (compared with `=`, as mail/worker.ts claimDue explains). */
async function claimDue(db: Db, now: string): Promise<JobRow | undefined> {
  const due = db.kysely.selectFrom('notification_jobs').select('id').where(claimable(now)).orderBy('next_attempt_at').limit(1);
  return db.kysely
    .updateTable('notification_jobs')
    .set({ lease_until: leaseFrom(now) })
    .where('id', '=', skipLocked(db.dialect, due))
    .where(claimable(now))
    .returningAll()
    .executeTakeFirst();
}

/** Who a step tells, of what thread, with what (a moderation notice's action and reason). */
interface Telling {
  threadId: string;
  recipients: Recipient[];
  data?: Record<string, unknown>;
}

const NO_ONE: Telling = { threadId: '', recipients: [] };

/**
 * One step of a job, in one transaction: the notifications of the recipients (none twice: a reader's
 * notifications are unique by cause, so a step done again after a crash adds nothing), their mails,
 * and the job moved on to `cursor` (or done). Only while this worker's lease holds, which the step
 * renews. Returns the job as it now stands.
 */
async function step(db: Db, job: JobRow, telling: Telling, cursor: string | null, done: boolean): Promise<JobRow> {
  const now = nowIso();
  const lease = done ? null : leaseFrom(now);
  const told = await withEvents(db, async (trx) => {
    const moved = await trx
      .updateTable('notification_jobs')
      .set({ cursor, state: done ? 'done' : 'pending', lease_until: lease })
      .where('id', '=', job.id)
      .where('lease_until', '=', job.lease_until)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) throw new LeaseLost();
    if (telling.recipients.length === 0) return [];
    const made = await trx
      .insertInto('notifications')
      .values(
        telling.recipients.map((recipient) => ({
          id: newId('ntf'),
          site_id: job.site_id,
          user_id: recipient.userId,
          kind: recipient.kind,
          comment_id: job.comment_id,
          thread_id: telling.threadId,
          cause: causeOf(job),
          data: JSON.stringify(telling.data ?? {}),
          created_at: now,
          read_at: null,
          mailed_at: null,
        })),
      )
      .onConflict((oc) => oc.columns(['user_id', 'cause']).doNothing())
      .returningAll()
      .execute();
    await queueNotificationMails(trx, db.mail, made);
    return made.map((row) => row.user_id);
  });
  if (told.length > 0) db.changes.readersNotified(job.site_id, told);
  return { ...job, cursor, lease_until: lease };
}

/**
 * What a notification is unique by for its reader: a comment tells a reader of it once, whichever
 * way (a reply that also mentions them, a mention added by an edit after their followed thread told
 * them); a decision once per moderation log entry.
 */
function causeOf(job: JobRow): string {
  return job.kind === 'decision' ? `moderation:${(JSON.parse(job.data) as { log_id: string }).log_id}` : `comment:${job.comment_id}`;
}

/**
 * A `published` job: first the readers the comment names, then the thread's followers a batch at a
 * time in user order, the cursor after each batch, so one cut short resumes where it stopped.
 * Followers the comment named, or who wrote it, are skipped: they are told once, as named.
 */
async function fanOut(db: Db, claimed: JobRow): Promise<void> {
  const comment = await publicComment(db.kysely, claimed.comment_id);
  if (!comment) {
    await step(db, claimed, NO_ONE, claimed.cursor, true);
    return;
  }
  const threadId = comment.thread_id;
  const named = await namedRecipients(db.kysely, comment);
  let job = claimed;
  if (job.cursor === null) job = await step(db, job, { threadId, recipients: named }, '', false);
  const skipped = new Set([comment.author_ref, ...named.map((recipient) => recipient.userId)]);
  for (;;) {
    const followers = await followersAfter(db.kysely, comment.thread_id, job.cursor!);
    const last = followers.length === FOLLOWERS_PER_BATCH ? followers[followers.length - 1] : null;
    const recipients = followers.filter((userId) => !skipped.has(userId)).map((userId): Recipient => ({ userId, kind: 'followed_thread' }));
    job = await step(db, job, { threadId, recipients }, last ?? job.cursor, last === null);
    if (last === null) return;
  }
}

/** A `decision` job: one moderation notice to the comment's author, if they are a reader of the site and not erased. */
async function tellDecision(db: Db, job: JobRow): Promise<void> {
  const author = await db.kysely
    .selectFrom('comments as c')
    .innerJoin('site_users as u', 'u.id', 'c.author_ref')
    .select(['u.id', 'c.thread_id'])
    .where('c.id', '=', job.comment_id)
    .where('u.site_id', '=', job.site_id)
    .where('u.erased_at', 'is', null)
    .executeTakeFirst();
  if (!author) {
    await step(db, job, NO_ONE, null, true);
    return;
  }
  const { action, reason } = JSON.parse(job.data) as { action: string; reason: string | null };
  await step(db, job, { threadId: author.thread_id, recipients: [{ userId: author.id, kind: 'moderation' }], data: { action, reason } }, null, true);
}

/** A job that failed is tried again later by any instance; its steps so far stay done. */
async function postpone(db: Db, job: JobRow): Promise<void> {
  const delay = Math.min(FIRST_RETRY_MS * 2 ** job.attempt_count, LAST_RETRY_MS);
  await db.kysely
    .updateTable('notification_jobs')
    .set((eb) => ({ lease_until: null, next_attempt_at: new Date(Date.now() + delay).toISOString(), attempt_count: eb('attempt_count', '+', 1) }))
    .where('id', '=', job.id)
    .where('state', '=', 'pending')
    .execute();
}

/**
 * Polls the notification jobs, claims due ones with a lease and does them: after the commit of the
 * comment or decision that queued them, off the request path. Several instances may run this at
 * once; a job whose worker died is resumed from its cursor by the next one once its lease runs out,
 * and the notifications' unique cause keeps a batch done twice from telling anyone twice.
 */
export function startNotificationWorker(db: Db, log: FastifyBaseLogger): NotificationWorker {
  let stopping = false;

  async function poll(): Promise<void> {
    while (!stopping) {
      const job = await claimDue(db, nowIso());
      if (!job) return;
      try {
        await (job.kind === 'decision' ? tellDecision(db, job) : fanOut(db, job));
      } catch (error) {
        if (error instanceof LeaseLost) {
          log.warn({ job: job.id }, 'a notification job was taken over by another worker while this one did it');
          continue;
        }
        log.error({ err: error, job: job.id, attempt: job.attempt_count + 1 }, 'a notification job failed; it is tried again later');
        await postpone(db, job);
      }
    }
  }

  const poller = startPoller(poll, POLL_MS, (error) => log.error({ err: error }, 'notification worker could not poll'));
  db.changes.onNotificationJobsQueued(() => poller.kick());
  return {
    async stop() {
      stopping = true;
      await poller.stop();
    },
  };
}
