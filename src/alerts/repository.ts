import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { Database, SiteAlertTable } from '../db/schema.ts';

export type AlertRow = Selectable<SiteAlertTable>;

export const ALERT_KINDS = ['slack', 'discord', 'telegram', 'matrix'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_EVENTS = ['comment.held', 'comment.flagged', 'comment.first'] as const;
export type AlertEvent = (typeof ALERT_EVENTS)[number];

export function eventsOf(row: AlertRow): AlertEvent[] {
  return JSON.parse(row.events);
}

export function listAlerts(db: Kysely<Database>, siteId: string): Promise<AlertRow[]> {
  return db.selectFrom('site_alerts').selectAll().where('site_id', '=', siteId).orderBy('created_at').orderBy('id').execute();
}

export function findAlert(db: Kysely<Database>, siteId: string, id: string): Promise<AlertRow | undefined> {
  return db.selectFrom('site_alerts').selectAll().where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
}

export async function insertAlert(db: Kysely<Database>, row: Insertable<SiteAlertTable>): Promise<void> {
  await db.insertInto('site_alerts').values(row).execute();
}

export async function updateAlert(db: Kysely<Database>, siteId: string, id: string, change: Updateable<SiteAlertTable>): Promise<void> {
  await db.updateTable('site_alerts').set(change).where('site_id', '=', siteId).where('id', '=', id).execute();
}

/** Its pending deliveries stay and fail at their next attempt (`alert_removed`): nothing is sent after this. */
export async function deleteAlert(db: Kysely<Database>, siteId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('site_alerts').where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The site's alerts with its name and language, read in the transaction of the change that may trigger them. */
export function alertsToQueue(trx: Transaction<Database>, siteId: string) {
  return trx
    .selectFrom('site_alerts')
    .innerJoin('sites', 'sites.id', 'site_alerts.site_id')
    .selectAll('site_alerts')
    .select(['sites.name as site_name', 'sites.language as site_language'])
    .where('site_alerts.site_id', '=', siteId)
    .execute();
}
