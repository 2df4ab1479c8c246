import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/schema.ts';
import { AppError } from '../errors.ts';
import type { EventType } from '../events/record.ts';
import { newId } from '../ids.ts';
import type { Site } from '../sites/repository.ts';
import { accountPlan } from '../sites/service.ts';
import { deliveryBody } from './outbox.ts';
import {
  attemptsOf,
  findDelivery,
  insertDelivery,
  listDeliveries,
  recordAttempt,
  requeue,
  type AttemptRow,
  type DeliveryFilter,
  type DeliveryRow,
  type DeliveryState,
  type NextStep,
  type Target,
  webhookTarget,
} from './repository.ts';
import { sendOnce, type AttemptRecord } from './send.ts';
import { requireWebhookPlan } from './settings.ts';
import { nowIso } from '../clock.ts';
import { retryAt } from '../outbox/retry.ts';

export interface DeliveryPolicy {
  retryDelaysMs: readonly number[];
  timeoutMs: number;
  allowPrivate: boolean;
  /** Where chat alerts' links to the dashboard point (PARLEY_PUBLIC_URL). */
  publicUrl: string;
}

export function deliveryPolicy(config: Config): DeliveryPolicy {
  return { retryDelaysMs: config.webhookRetryDelaysMs, timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate, publicUrl: config.publicUrl };
}

/**
 * How long a claim holds: well past the longest attempt (the time-out bounds it) and the writing of
 * its outcome, so only a dead worker's claim is taken over.
 */
export function leaseMs(policy: DeliveryPolicy): number {
  return 2 * policy.timeoutMs + 5_000;
}

/**
 * After a failed attempt, the next retry is due its delay after the END of that attempt; once the
 * schedule is used up (or for a one-shot test delivery) the delivery has failed.
 */
function nextStep(delivery: DeliveryRow, attempt: AttemptRecord, target: AttemptTarget, policy: DeliveryPolicy): NextStep {
  if (attempt.error === null) return { state: 'succeeded', next_attempt_at: null };
  const next = retryAt(attempt, delivery.run_attempts, policy.retryDelaysMs);
  if (delivery.is_test === 1 || next === null || attempt.error === target.missing) return { state: 'failed', next_attempt_at: null };
  return { state: 'pending', next_attempt_at: next };
}

type AttemptTarget = Pick<Target, 'request' | 'missing'>;

/**
 * Makes one attempt of a delivery this worker holds, and records it with the delivery's next step.
 * A target gone since (a webhook URL removed, an alert deleted) fails it at once: nowhere to retry.
 */
export async function attemptDelivery(db: Kysely<Database>, delivery: DeliveryRow, target: AttemptTarget, policy: DeliveryPolicy): Promise<AttemptRecord> {
  const attempt =
    target.request === null ? { at: nowIso(), status_code: null, duration_ms: 0, error: target.missing } : await sendOnce(target.request(delivery), policy);
  await recordAttempt(db, delivery, attempt, nextStep(delivery, attempt, target, policy));
  return attempt;
}

export function deliveryView(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: row.id,
    event: row.event,
    state: row.state as DeliveryState,
    test: row.is_test === 1,
    attempts: attempts.map((a) => ({ number: a.number, at: a.at, status_code: a.status_code, duration_ms: a.duration_ms, error: a.error })),
    next_attempt_at: row.next_attempt_at,
    created_at: row.created_at,
    body: row.body,
  };
}

async function viewOf(db: Kysely<Database>, siteId: string, alertId: string | null, id: string) {
  const row = await findDelivery(db, siteId, alertId, id);
  if (!row) throw new AppError('not_found', `No delivery ${id}`);
  return deliveryView(row, (await attemptsOf(db, [id])).get(id) ?? []);
}

export async function deliveryLog(db: Kysely<Database>, site: Site, filter: DeliveryFilter) {
  const { rows, attempts, total } = await listDeliveries(db, site.id, filter);
  return { deliveries: rows.map((row) => deliveryView(row, attempts.get(row.id) ?? [])), total, page: filter.page };
}

/** Queues a finished delivery again: same id, same body, a fresh retry schedule. */
export async function redeliver(db: Kysely<Database>, site: Site, id: string) {
  requireWebhookPlan(await accountPlan(db, site.accountId));
  if (!(await findDelivery(db, site.id, null, id))) throw new AppError('not_found', `No delivery ${id}`);
  if (!(await requeue(db, site.id, id, nowIso()))) {
    throw new AppError('conflict', `Delivery ${id} is still pending; it can be redelivered once it has succeeded or failed`);
  }
  return viewOf(db, site.id, null, id);
}

/** A plausible `data` for each event kind, so a receiver can be tried before real traffic. */
function sampleData(event: EventType, plan: string) {
  const now = nowIso();
  const comment = {
    id: 'cmt_test',
    thread_url: 'https://example.com/posts/hello',
    author_name: 'Parley test',
    content: 'A sample comment sent by POST /webhooks/test',
    status: 'published',
    parent_id: null,
    created_at: now,
  };
  const user = { id: 'usr_test', external_id: 'test-user', name: 'Parley test', avatar_url: null };
  switch (event) {
    case 'moderation.action':
      return { action: 'approve', reason: null, moderator: { id: 'key_test', name: 'Parley test' }, comment };
    case 'user.created':
      return { user: { ...user, created_at: now } };
    case 'user.banned':
      return { user, ban_type: 'ban', reason: null };
    case 'subscription.changed':
      return { plan, previous_plan: plan };
    case 'import.completed':
      return {
        import: {
          id: 'imp_test',
          started_by: { id: 'key_test', name: 'Parley test' },
          format: 'disqus',
          threads: { created: 1, existing: 0 },
          comments: { imported: 2, by_status: { published: 2 }, already_present: 0 },
          skipped: {},
          reparented: 0,
          times_without_zone: 0,
          truncated: 0,
          personal_data_not_kept: { emails: 0, ip_addresses: 0 },
          warnings_total: 0,
        },
      };
    default:
      return { comment };
  }
}

/**
 * Sends a signed sample (`"test": true`) to the site's receiver now, once, and answers with the
 * attempt; it is logged like any delivery and never retried.
 */
export async function sendTestDelivery(db: Kysely<Database>, site: Site, event: EventType, policy: DeliveryPolicy) {
  const plan = await accountPlan(db, site.accountId);
  requireWebhookPlan(plan);
  if (site.webhookUrl === null) throw new AppError('conflict', 'Set a webhook_url on the site first');
  const now = new Date();
  const row: DeliveryRow = {
    id: newId('del'),
    site_id: site.id,
    event_id: null,
    event,
    body: deliveryBody(event, site.id, now.toISOString(), sampleData(event, plan), true),
    state: 'pending',
    attempt_count: 0,
    run_attempts: 0,
    is_test: 1,
    next_attempt_at: now.toISOString(),
    lease_until: new Date(now.getTime() + leaseMs(policy)).toISOString(),
    created_at: now.toISOString(),
    alert_id: null,
  };
  return sendNow(db, row, webhookTarget(site.id, site.webhookUrl, site.webhookSecret), policy);
}

/** A test delivery, held by this request: written, tried once at once, and answered as the log shows it. */
export async function sendNow(db: Kysely<Database>, row: DeliveryRow, target: AttemptTarget, policy: DeliveryPolicy) {
  await insertDelivery(db, row);
  await attemptDelivery(db, row, target, policy);
  return viewOf(db, row.site_id, row.alert_id, row.id);
}
