import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { Target } from '../webhooks/repository.ts';
import { alertRequest } from './formats.ts';

/**
 * Chat alerts with a delivery due that no one holds, each a target of the webhook worker beside the
 * sites' webhooks. Read through webhook_deliveries_alert_due (pending deliveries of alerts only). An
 * alert removed since has no row: its deliveries fail with `alert_removed`.
 */
export async function dueAlerts(db: Kysely<Database>, now: string, publicUrl: string): Promise<Target[]> {
  const { rows } = await sql<{ alert_id: string; site_id: string; kind: string | null; url: string | null; token: string | null; chat_id: string | null; room: string | null }>`
    select due.alert_id, due.site_id, a.kind, a.url, a.token, a.chat_id, a.room from (
      select alert_id, site_id, min(next_attempt_at) as oldest_due from webhook_deliveries
      where state = 'pending' and alert_id is not null and next_attempt_at <= ${now} and (lease_until is null or lease_until < ${now})
      group by alert_id, site_id
    ) due left join site_alerts a on a.id = due.alert_id
    order by due.oldest_due`.execute(db);
  return rows.map((r) => {
    const alert = r.kind === null || r.url === null ? null : { kind: r.kind, url: r.url, token: r.token, chat_id: r.chat_id, room: r.room };
    return {
      siteId: r.site_id,
      alertId: r.alert_id,
      url: r.url,
      request: alert && ((delivery) => alertRequest(alert, delivery, publicUrl)),
      missing: 'alert_removed',
    };
  });
}
