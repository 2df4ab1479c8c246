import { sql, type Kysely } from 'kysely';

// Chat alerts (src/alerts): a site's Slack, Discord, Telegram or Matrix targets and the moderation
// events each wants. Their messages are webhook deliveries with an alert_id, so they share the
// outbox, its worker, retries, SSRF guard and delivery log; a site's webhook log leaves them out.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('site_alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull().references('sites.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    // A bot's or homeserver user's access token (Telegram, Matrix); never answered, only `token_set`.
    .addColumn('token', 'text')
    .addColumn('chat_id', 'text')
    .addColumn('room', 'text')
    // JSON: the event names it sends.
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('flag_threshold', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Read by every comment write and flag of the site (is anyone to be alerted?).
  await db.schema.createIndex('site_alerts_site').on('site_alerts').columns(['site_id', 'created_at']).execute();

  // No foreign key: a removed alert's pending deliveries fail at their next attempt (`alert_removed`).
  await db.schema.alterTable('webhook_deliveries').addColumn('alert_id', 'text').execute();
  // The worker's poll of alert deliveries due, and an alert's delivery log, newest first.
  await db.schema
    .createIndex('webhook_deliveries_alert_due')
    .on('webhook_deliveries')
    .columns(['alert_id', 'next_attempt_at'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  await db.schema.createIndex('webhook_deliveries_alert').on('webhook_deliveries').columns(['alert_id', 'created_at', 'id']).execute();
}

export async function down(): Promise<void> {
  throw new Error('Parley migrations are forward-only');
}
