import type { Kysely } from 'kysely';
import { nowIso } from '../clock.ts';
import type { Database } from '../db/schema.ts';
import { AppError, invalid } from '../errors.ts';
import { newId } from '../ids.ts';
import type { Site } from '../sites/repository.ts';
import type { DeliveryRow, DeliveryState } from '../webhooks/repository.ts';
import { deliveryLog, leaseMs, sendNow, type DeliveryPolicy } from '../webhooks/service.ts';
import { cleanTargetUrl } from '../webhooks/settings.ts';
import { alertRequest, type AlertFacts } from './formats.ts';
import { deleteAlert, eventsOf, findAlert, insertAlert, listAlerts, updateAlert, type AlertEvent, type AlertKind, type AlertRow } from './repository.ts';

/** A site's alerts at most: each event it records reads them all. */
export const MAX_ALERTS_PER_SITE = 10;

export interface TargetInput {
  url: string;
  token?: string;
  chat_id?: string;
  room?: string;
}

export interface AlertInput {
  kind: AlertKind;
  target: TargetInput;
  events: AlertEvent[];
  flag_threshold?: number;
}

export type AlertChange = Partial<Omit<AlertInput, 'kind'>>;

/** An alert as the API shows it: its token never, only whether one is set. */
export function alertView(row: AlertRow) {
  return {
    id: row.id,
    site_id: row.site_id,
    kind: row.kind as AlertKind,
    target: { url: row.url, chat_id: row.chat_id, room: row.room, token_set: row.token !== null },
    events: eventsOf(row),
    flag_threshold: row.flag_threshold,
    created_at: row.created_at,
  };
}

/** What each service needs besides its URL (the issue's `target`), and nothing it would not use. */
const NEEDS: Record<AlertKind, Array<'token' | 'chat_id' | 'room'>> = { slack: [], discord: [], telegram: ['token', 'chat_id'], matrix: ['token', 'room'] };

/**
 * The target's columns, checked for the kind: the URL as a webhook's (http or https, no private
 * address unless PARLEY_WEBHOOK_ALLOW_PRIVATE); a token left out of a change keeps the one stored.
 */
async function targetColumns(kind: AlertKind, target: TargetInput, storedToken: string | null, allowPrivate: boolean) {
  const needs = NEEDS[kind];
  for (const field of ['token', 'chat_id', 'room'] as const) {
    if (!needs.includes(field) && target[field] !== undefined) throw invalid(`body/target/${field}`, `is not used by ${kind}`);
  }
  const token = target.token ?? storedToken;
  if (needs.includes('token') && token === null) throw invalid('body/target/token', `${kind} needs the ${kind === 'telegram' ? "bot's token" : "access token of the user that posts"}`);
  if (needs.includes('chat_id') && target.chat_id === undefined) throw invalid('body/target/chat_id', 'telegram needs the chat to post to');
  if (kind === 'matrix' && !/^!.+:.+$/.test(target.room ?? '')) throw invalid('body/target/room', 'must be a Matrix room id like !abc123:example.org');
  return {
    url: await cleanTargetUrl(target.url, allowPrivate, 'body/target/url'),
    token: needs.includes('token') ? token : null,
    chat_id: target.chat_id ?? null,
    room: target.room ?? null,
  };
}

async function existing(db: Kysely<Database>, site: Site, id: string): Promise<AlertRow> {
  const row = await findAlert(db, site.id, id);
  if (!row) throw new AppError('not_found', `No alert ${id}`);
  return row;
}

export async function alertsOf(db: Kysely<Database>, site: Site) {
  return { alerts: (await listAlerts(db, site.id)).map(alertView) };
}

export async function createAlert(db: Kysely<Database>, site: Site, input: AlertInput, policy: DeliveryPolicy) {
  if ((await listAlerts(db, site.id)).length >= MAX_ALERTS_PER_SITE) throw new AppError('conflict', `A site has at most ${MAX_ALERTS_PER_SITE} alerts`);
  const row: AlertRow = {
    id: newId('alr'),
    site_id: site.id,
    kind: input.kind,
    ...(await targetColumns(input.kind, input.target, null, policy.allowPrivate)),
    events: JSON.stringify([...new Set(input.events)]),
    flag_threshold: input.flag_threshold ?? 1,
    created_at: nowIso(),
  };
  await insertAlert(db, row);
  return alertView(row);
}

export async function changeAlert(db: Kysely<Database>, site: Site, id: string, change: AlertChange, policy: DeliveryPolicy) {
  const row = await existing(db, site, id);
  const columns = {
    ...(change.target && (await targetColumns(row.kind as AlertKind, change.target, row.token, policy.allowPrivate))),
    ...(change.events && { events: JSON.stringify([...new Set(change.events)]) }),
    ...(change.flag_threshold !== undefined && { flag_threshold: change.flag_threshold }),
  };
  if (Object.keys(columns).length > 0) await updateAlert(db, site.id, id, columns);
  return alertView(await existing(db, site, id));
}

export async function removeAlert(db: Kysely<Database>, site: Site, id: string): Promise<void> {
  if (!(await deleteAlert(db, site.id, id))) throw new AppError('not_found', `No alert ${id}`);
}

/** The body as the alert's last attempt sent it (a delivery stores the facts it is rendered from). */
function sentBody<T extends { body: string; id: string }>(alert: AlertRow, view: T, publicUrl: string): T {
  return { ...view, body: alertRequest(alert, view, publicUrl).body };
}

export async function alertDeliveries(db: Kysely<Database>, site: Site, id: string, filter: { page: number; limit: number; state?: DeliveryState }, publicUrl: string) {
  const alert = await existing(db, site, id);
  const log = await deliveryLog(db, site, { ...filter, alertId: id });
  return { ...log, deliveries: log.deliveries.map((view) => sentBody(alert, view, publicUrl)) };
}

/** Sends a sample alert now, once (logged, never retried), and answers with the attempt. */
export async function sendTestAlert(db: Kysely<Database>, site: Site, id: string, policy: DeliveryPolicy) {
  const alert = await existing(db, site, id);
  const facts: AlertFacts = {
    event: 'test',
    language: site.language,
    site: { id: site.id, name: site.name },
    comment: { id: 'cmt_test', thread_url: 'https://example.com/posts/hello', author_name: 'Parley', excerpt: 'A sample comment sent by POST /api/sites/:id/alerts/:alert_id/test' },
  };
  const now = new Date();
  const row: DeliveryRow = {
    id: newId('del'),
    site_id: site.id,
    alert_id: alert.id,
    event_id: null,
    event: 'alert.test',
    body: JSON.stringify(facts),
    state: 'pending',
    attempt_count: 0,
    run_attempts: 0,
    is_test: 1,
    next_attempt_at: now.toISOString(),
    lease_until: new Date(now.getTime() + leaseMs(policy)).toISOString(),
    created_at: now.toISOString(),
  };
  const view = await sendNow(db, row, { request: (delivery) => alertRequest(alert, delivery, policy.publicUrl), missing: 'alert_removed' }, policy);
  return sentBody(alert, view, policy.publicUrl);
}
